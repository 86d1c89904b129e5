"""Connectivity: how strongly the output at step t depends on the input at step s (grad_x)."""

from __future__ import annotations

import numpy as np

from seqviz.core.api import trace
from seqviz.core.params import Params


def saliency(params: Params, x: np.ndarray, out_weight: np.ndarray,
             targets: np.ndarray) -> np.ndarray:  # fmt: skip
    """(T, T): S[t, s] = |d logit_{targets[t]}(t) / d x_s| (L2 over the input's components),
    zero above the diagonal (an output never depends on later inputs).

    logit_k(t) = out_weight[k] . h_t + b_k, so its gradient with respect to h_t is out_weight[k];
    seqviz's backward pass carries that to every earlier input (Trace.grad_x).
    """
    x = np.asarray(x, dtype=np.float64)  # (T, e)
    T = x.shape[0]
    if np.shape(targets) != (T,):
        raise ValueError(f"targets must have one entry per step ({T}), got {np.shape(targets)}.")
    out = np.zeros((T, T))
    for t in range(T):
        tr = trace(params, x[: t + 1], grad_hT=out_weight[int(targets[t])])
        out[t, : t + 1] = np.sqrt((np.asarray(tr.grad_x) ** 2).sum(axis=1))
    return out


def lm_saliency(lm, tokens: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The saliency map of `lm` reading `tokens` (<s> first), each row's target being the next
    token read (</s> after the last): ((T, T) map, (T,) target ids)."""
    ids = np.array([lm.index[t] for t in tokens], dtype=np.intp)
    targets = np.append(ids[1:], lm.eos_id)
    return saliency(lm.params, lm.embedding[ids], lm.out_weight, targets), targets
