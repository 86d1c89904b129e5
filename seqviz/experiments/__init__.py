"""The lesson's two printed experiments (vanishing gradients, RNN vs LSTM memory) on the core.

The memory experiment (``memory``, ``pulse``, ``memory_rnn``, ``memory_lstm`` and its records) is
in ``memory_pulse``, imported on first use (PEP 562): the app's first scene needs only the
vanishing-gradient rows, and that module's three dataclasses cost its launch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from seqviz.core import Params, trace
from seqviz.core.reference import rnn_grad_norms
from seqviz.lazy import lazy_getattr

if TYPE_CHECKING:
    from seqviz.experiments.memory_pulse import (
        LstmMemory,
        MemoryResult,
        RnnMemory,
        memory,
        memory_lstm,
        memory_rnn,
        pulse,
    )

_MEMORY = (
    "LstmMemory",
    "MemoryResult",
    "RnnMemory",
    "memory",
    "memory_lstm",
    "memory_rnn",
    "pulse",
)
__getattr__ = lazy_getattr(__name__, dict.fromkeys(_MEMORY, "memory_pulse"))
__all__ = [
    "LESSON_RHOS",
    "LstmMemory",
    "MemoryResult",
    "RnnMemory",
    "VanishingResult",
    "VanishingRow",
    "default_ks",
    "lesson_rnn",
    "lesson_spectrum",
    "memory",
    "memory_lstm",
    "memory_rnn",
    "pulse",
    "vanishing",
    "vanishing_row",
]

LESSON_RHOS = (0.8, 1.0, 1.2)


def lesson_rnn(
    rho: float,
    hidden: int = 64,
    steps: int = 60,
    seed: int = 0,
    input_scale: float = 0.5,
    nonlinearity: str = "tanh",
    draw: int = 0,
) -> tuple[Params, np.ndarray]:
    """The lesson's RNN: W_ih = I, no bias, W_hh ~ N(0,1) scaled to spectral radius rho.

    The lesson draws, per rho in turn, W (d, d) then x (T, d) from one default_rng(seed); the
    draws do not depend on rho, so `draw=i` gives the network of the i-th rho in a list
    (with rhos (0.8, 1.0, 1.2) and seed 0, rho=1.2 is draw=2). Returns (Params, x (T, d)).
    """
    _check_draw(hidden, steps, draw)
    if not (math.isfinite(rho) and rho >= 0):
        raise ValueError(f"spectral radius must be a finite number >= 0, got {rho!r}.")
    if not math.isfinite(input_scale):
        raise ValueError(f"input scale must be a finite number, got {input_scale!r}.")
    w, x, eig = _lesson_draw(hidden, steps, seed, draw)
    radius = float(np.max(np.abs(eig)))
    p = Params.from_arrays("rnn", np.eye(hidden), w * (rho / radius), nonlinearity=nonlinearity)
    return p, x * input_scale


def lesson_spectrum(
    rho: float, hidden: int = 64, steps: int = 60, seed: int = 0, draw: int = 0
) -> np.ndarray:
    """Eigenvalues of lesson_rnn's W_hh (the unscaled draw's, times rho / radius)."""
    _check_draw(hidden, steps, draw)
    _, _, eig = _lesson_draw(hidden, steps, seed, draw)
    return eig * (rho / float(np.max(np.abs(eig))))


@lru_cache(maxsize=8)
def _lesson_draw(
    hidden: int, steps: int, seed: int, draw: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The draw-th (W, x) of default_rng(seed), unscaled, and W's eigenvalues; cached (read-only)
    because moving rho or the input scale only rescales them."""
    rng = np.random.default_rng(seed)
    for _ in range(draw + 1):
        w = rng.normal(0.0, 1.0, (hidden, hidden))
        x = rng.normal(0.0, 1.0, (steps, hidden))
    eig = np.linalg.eigvals(w)
    for array in (w, x, eig):
        array.flags.writeable = False
    return w, x, eig


def _check_draw(hidden: int, steps: int, draw: int) -> None:
    _check_int(hidden, "hidden", 1)
    _check_int(steps, "steps", 1)
    _check_int(draw, "draw", 0)


def _check_int(value: object, name: str, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")


def default_ks(steps: int) -> tuple[int, ...]:
    """The lesson's columns 1, 10, 30 steps back (those that fit) and the first step."""
    return tuple(sorted({k for k in (1, 10, 30) if k < steps} | {steps - 1}))


@dataclass(frozen=True)
class VanishingRow:
    rho: float
    ks: tuple[int, ...]
    norms: tuple[float, ...]  # ||dL/dh|| k steps back, tanh RNN, for each k in ks
    linear_norm: float  # the same network without tanh, steps-1 steps back
    grad_norms: tuple[float, ...] = field(repr=False)  # every k = 0..steps-1 (tanh)
    overflow: str | None = None


@dataclass(frozen=True)
class VanishingResult:
    hidden: int
    steps: int
    seed: int
    input_scale: float
    rows: tuple[VanishingRow, ...]

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(asdict(self))


def vanishing(
    rhos: Sequence[float] = LESSON_RHOS,
    hidden: int = 64,
    steps: int = 60,
    seed: int = 0,
    input_scale: float = 0.5,
) -> VanishingResult:
    """Gradient norms flowing back through a tanh RNN and a linear one, per spectral radius."""
    if len(rhos) == 0:
        raise ValueError("give at least one spectral radius.")
    rows = tuple(
        vanishing_row(rho, hidden, steps, seed, input_scale, draw=i) for i, rho in enumerate(rhos)
    )
    return VanishingResult(hidden, steps, seed, float(input_scale), rows)


def vanishing_row(
    rho: float,
    hidden: int = 64,
    steps: int = 60,
    seed: int = 0,
    input_scale: float = 0.5,
    draw: int = 0,
    traces: tuple[Any, Any] | None = None,
    *,
    norms_only: bool = False,
) -> VanishingRow:
    """One row of ``vanishing``: lesson_rnn(rho, ..., draw) run as tanh and as linear.
    ``traces``: the (tanh, linear) traces of exactly that network and input, if the caller has
    them already (the scene's default run is the lesson's middle row). ``norms_only``: run the
    backward pass for dL/dh alone (reference.rnn_grad_norms, no parameter gradients), about a
    fifth of two traces' work, and do not look for where a run overflowed (``overflow`` None):
    the app's lesson table, whose rows are fixed and finite."""
    if traces is None:
        p, x = lesson_rnn(rho, hidden, steps, seed, input_scale, "tanh", draw=draw)
        linear = p.replace(nonlinearity="linear")
        if norms_only:
            return _row(rho, steps, rnn_grad_norms(p, x), rnn_grad_norms(linear, x), None)
        traces = (trace(p, x), trace(linear, x))
    tr, lin = traces
    problems = [f"{name}: {o.describe()}" for name, o in
                (("tanh", tr.overflow), ("linear", lin.overflow)) if o is not None]  # fmt: skip
    return _row(rho, steps, tr.grad_norms(), lin.grad_norms(), "; ".join(problems) or None)


def _row(
    rho: float, steps: int, norms: np.ndarray, linear: np.ndarray, overflow: str | None
) -> VanishingRow:
    ks = default_ks(steps) if steps > 1 else (0,)
    return VanishingRow(
        rho=float(rho),
        ks=ks,
        norms=tuple(float(norms[k]) for k in ks),
        linear_norm=float(linear[steps - 1]),
        grad_norms=tuple(float(v) for v in norms),
        overflow=overflow,
    )


def _jsonable(value: Any) -> Any:
    # JSON has no inf/nan: exploded values are written as the strings "inf", "-inf", "nan".
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value
