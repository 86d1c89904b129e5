"""Optimizers (SGD, Adam) and global-norm gradient clipping over name -> array dicts."""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np

Arrays = dict[str, np.ndarray]


def global_norm(grads: Arrays) -> float:
    """The L2 norm of all gradients taken together (inf or nan if any entry is)."""
    return math.sqrt(sum(float((g * g).sum()) for g in grads.values()))


def clip_global_norm(grads: Arrays, max_norm: float) -> tuple[float, float]:
    """Scale `grads` IN PLACE so that their global norm is at most `max_norm` (0 = no clipping).

    Returns (norm before clipping, scale applied); a non-finite norm is returned with scale 1
    and the gradients left as they are, so the caller can report the divergence."""
    norm = global_norm(grads)
    if max_norm > 0 and math.isfinite(norm) and norm > max_norm:
        scale = max_norm / norm
        for g in grads.values():
            g *= scale
        return norm, scale
    return norm, 1.0


class Optimizer(Protocol):
    """Updates parameters in place from gradients of the same names."""

    lr: float

    def step(self, params: Arrays, grads: Arrays) -> None: ...


class SGD:
    """Plain gradient descent: w -= lr * g."""

    def __init__(self, lr: float) -> None:
        self.lr = lr

    def step(self, params: Arrays, grads: Arrays) -> None:
        for k, g in grads.items():
            params[k] -= self.lr * g


class Adam:
    """Adam (Kingma & Ba) with bias correction; moments are kept per parameter name."""

    def __init__(
        self, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8
    ) -> None:
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        # rounded so that 1 - 0.9 is 0.1 exactly, as in the moment updates written out by hand
        self._a1, self._a2 = round(1.0 - beta1, 12), round(1.0 - beta2, 12)
        self.m: Arrays = {}
        self.v: Arrays = {}
        self.t = 0

    def step(self, params: Arrays, grads: Arrays) -> None:
        self.t += 1
        for k, g in grads.items():
            m = self.m.get(k)
            if m is None:
                m = self.m[k] = np.zeros_like(params[k])
                self.v[k] = np.zeros_like(params[k])
            self.m[k] = self.beta1 * m + self._a1 * g
            self.v[k] = self.beta2 * self.v[k] + self._a2 * g * g
            mhat = self.m[k] / (1 - self.beta1**self.t)
            vhat = self.v[k] / (1 - self.beta2**self.t)
            params[k] -= self.lr * mhat / (np.sqrt(vhat) + self.eps)


OPTIMIZERS = ("adam", "sgd")


def make_optimizer(name: str, lr: float) -> Optimizer:
    """The optimizer called `name` ("adam" or "sgd") with learning rate `lr`."""
    if name == "adam":
        return Adam(lr)
    if name == "sgd":
        return SGD(lr)
    raise ValueError(f"unknown optimizer {name!r}; allowed: {', '.join(OPTIMIZERS)}.")
