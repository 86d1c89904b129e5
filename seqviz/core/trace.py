"""Trace: the immutable record of one sequence's forward pass and backpropagation through time."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from seqviz.core._io import atomic_savez, read_npz
from seqviz.core.params import Params

_GRAD_FIELDS = (
    "grad_weight_ih", "grad_weight_hh", "grad_bias_ih", "grad_bias_hh", "grad_x", "grad_h0",
    "grad_c0",
)  # fmt: skip


def row_norms(a: np.ndarray) -> np.ndarray:
    """(T,) Euclidean norm of each row of a (T, d) array, inf only if the norm itself is.

    np.linalg.norm squares first, so rows of 1e200 would read inf; scaling by the row's
    largest entry keeps every representable norm finite.
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        m = np.max(np.abs(a), axis=1, keepdims=True)  # (T, 1)
        safe = np.where((m > 0) & np.isfinite(m), m, 1.0)
        return np.where(np.isfinite(m[:, 0]), safe[:, 0] * np.linalg.norm(a / safe, axis=1),
                        np.abs(m[:, 0]) if a.shape[1] else 0.0)  # fmt: skip


@dataclass(frozen=True)
class Overflow:
    """Where a value first became inf or nan: step t (0-based), phase and array name."""

    step: int
    phase: str  # "forward" | "backward"
    what: str  # "h", "c", "gates", "grad_h", "grad_c", "grad_weight_hh", ...

    def describe(self) -> str:
        return f"{self.what} became non-finite at step {self.step} of the {self.phase} pass"


@dataclass(frozen=True, eq=False)
class Trace:
    """Every state, gate and gradient of one sequence. Row t of h is the state after input t."""

    params: Params
    x: np.ndarray  # (T, d_in)
    h0: np.ndarray  # (d,)
    c0: np.ndarray  # (d,) zeros unless LSTM
    h: np.ndarray  # (T, d)
    c: np.ndarray | None  # (T, d) LSTM only
    gates: np.ndarray | None  # (T, G, d) LSTM i,f,g,o; GRU r,z,n
    grad_h: np.ndarray  # (T, d) total dL/dh_t
    grad_c: np.ndarray | None  # (T, d) total dL/dc_t, LSTM only
    grad_weight_ih: np.ndarray
    grad_weight_hh: np.ndarray
    grad_bias_ih: np.ndarray
    grad_bias_hh: np.ndarray
    grad_x: np.ndarray  # (T, d_in)
    grad_h0: np.ndarray  # (d,)
    grad_c0: np.ndarray  # (d,) zeros unless LSTM
    overflow: Overflow | None = None

    def __post_init__(self) -> None:
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False

    @property
    def T(self) -> int:
        return int(self.h.shape[0])

    @property
    def hidden_size(self) -> int:
        return int(self.h.shape[1])

    def grad_norms(self) -> np.ndarray:
        """(T,) ||dL/dh|| k steps back from the last state, k = 0..T-1."""
        return row_norms(self.grad_h[::-1])

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write an .npz holding the arrays, the weights and the cell settings (atomic)."""
        p = self.params
        arrays: dict[str, np.ndarray] = {
            "x": self.x, "h0": self.h0, "c0": self.c0, "h": self.h, "grad_h": self.grad_h,
            "weight_ih": p.weight_ih, "weight_hh": p.weight_hh,
            "bias_ih": p.bias_ih, "bias_hh": p.bias_hh,
            "cell": np.array(p.cell), "nonlinearity": np.array(p.nonlinearity),
            "variant": np.array(p.variant),
        }  # fmt: skip
        for name in ("c", "gates", "grad_c"):
            value = getattr(self, name)
            if value is not None:
                arrays[name] = value
        for name in _GRAD_FIELDS:
            arrays[name] = getattr(self, name)
        if self.overflow is not None:
            arrays["overflow_step"] = np.array(self.overflow.step)
            arrays["overflow_phase"] = np.array(self.overflow.phase)
            arrays["overflow_what"] = np.array(self.overflow.what)
        return atomic_savez(path, arrays)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Trace:
        """Read a trace written by save()."""
        data = read_npz(path, "a seqviz trace", "trace file")
        need = ("x", "h", "grad_h", "weight_ih", "weight_hh", "cell", *_GRAD_FIELDS)
        missing = [k for k in need if k not in data]
        if missing:
            raise ValueError(f"{path} is not a seqviz trace: it lacks {', '.join(missing)}.")
        params = Params.from_arrays(
            str(data["cell"]), data["weight_ih"], data["weight_hh"],
            data.get("bias_ih"), data.get("bias_hh"),
            nonlinearity=str(data.get("nonlinearity", "tanh")),
            variant=str(data.get("variant", "textbook")),
        )  # fmt: skip
        overflow = None
        if "overflow_step" in data:
            overflow = Overflow(
                int(data["overflow_step"]), str(data["overflow_phase"]), str(data["overflow_what"])
            )
        d = params.hidden_size
        return cls(
            params=params,
            x=data["x"],
            h0=data.get("h0", np.zeros(d)),
            c0=data.get("c0", np.zeros(d)),
            h=data["h"],
            c=data.get("c"),
            gates=data.get("gates"),
            grad_h=data["grad_h"],
            grad_c=data.get("grad_c"),
            overflow=overflow,
            **{k: data[k] for k in _GRAD_FIELDS},
        )
