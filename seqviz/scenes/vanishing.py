"""Scene 1, vanishing gradients: a random tanh or linear RNN, its states, gradients, spectrum."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from seqviz.scenes import title_of
from seqviz.scenes.base import ParamSpec, Scene

READOUT_STEPS = (1, 10, 30, 59)

SPECS = (
    ParamSpec("rho", "spectral radius", "float", 1.0, 0.05, 3.0, 0.05,
              help="largest |eigenvalue| of W_hh"),
    ParamSpec("hidden", "hidden size", "int", 64, 2, 256, 8, help="units d"),
    ParamSpec("steps", "steps", "int", 60, 2, 1000, 10, help="sequence length T"),
    ParamSpec("input_scale", "input scale", "float", 0.5, 0.0, 3.0, 0.1,
              help="std of the random inputs"),
    ParamSpec("nonlinearity", "nonlinearity", "choice", "tanh", choices=("tanh", "linear"),
              help="activation of the network in the heatmap"),
    ParamSpec("seed", "seed", "int", 0, 0, 9999, 1, help="random seed of the draws"),
    ParamSpec("draw", "matrix draw", "int", 2, 1, 3, 1,
              help="which (W, x) draw of the seed; the lesson uses 1, 2, 3 for 0.8, 1.0, 1.2"),
)  # fmt: skip


@dataclass(frozen=True)
class Overflow:
    """Where a run first produced inf/nan (0-based step), for the "overflow at step k" notice."""

    step: int
    phase: str
    what: str


@dataclass(frozen=True)
class VanishingResult:
    values: Any
    h: np.ndarray  # (T, d) hidden states of the chosen nonlinearity
    norms: np.ndarray  # (T,) |dL/dh_{T-1-k}| of the chosen network, k = 0..T-1
    norms_tanh: np.ndarray  # (T,) same for the tanh network
    norms_linear: np.ndarray  # (T,) same for the linear network
    eigenvalues: np.ndarray  # (d,) complex eigenvalues of W_hh
    overflow: Overflow | None
    readout_steps: tuple[int, ...]
    lesson: tuple[tuple[float, tuple[float, ...], float], ...]
    """The lesson's table (rho, norms at READOUT_STEPS, linear norm 59 back), for comparison."""
    lru: np.ndarray | None = None
    """(d,) eigenvalues of an LRU-style linear recurrence (ring 0.9-0.999), beside W_hh's."""

    @property
    def T(self) -> int:
        return int(self.h.shape[0])


def _overflow(tr: Any) -> Overflow | None:
    ov = tr.overflow
    return None if ov is None else Overflow(int(ov.step), str(ov.phase), str(ov.what))


LessonTable = tuple[tuple[float, tuple[float, ...], float], ...]
_lesson: list[LessonTable] = []  # the table, once computed (it never changes)


def lesson_table(known: tuple[int, tuple[Any, Any]] | None = None) -> LessonTable:
    """The lesson's three rows (rho, norms 1/10/30/59 back, linear 59 back), the numbers
    `seqviz run vanishing` prints (seqviz.experiments). ``known``: (row, (tanh, linear)
    traces) of a run that is that very row, which is then not run again: the scene's defaults
    are the middle row, so the first result of a launch traces 2 networks, not 6. The other rows
    need only the gradient norms (``norms_only``), not whole traces."""
    if not _lesson:
        from seqviz import experiments

        rows = []
        for i, rho in enumerate(experiments.LESSON_RHOS):
            traces = known[1] if known is not None and known[0] == i else None
            row = experiments.vanishing_row(rho, draw=i, traces=traces, norms_only=True)
            rows.append((row.rho, tuple(row.norms), row.linear_norm))
        _lesson.append(tuple(rows))
    return _lesson[0]


def _lesson_row(v: Any) -> int | None:
    """Which of the lesson's rows the run for ``v`` is (same network and input), if any."""
    from seqviz import experiments

    i = v.draw - 1
    rhos = experiments.LESSON_RHOS
    lesson_run = (v.hidden, v.steps, v.seed, v.input_scale) == (64, 60, 0, 0.5)  # vanishing()'s
    return i if lesson_run and 0 <= i < len(rhos) and v.rho == rhos[i] else None


def compute(v: Any) -> VanishingResult:
    from seqviz import experiments
    from seqviz.core import trace

    # The lesson draws W then x once per radius from one generator: draw k (1-based) scaled to
    # rho reproduces the lesson's k-th row exactly, and moving rho only rescales the same W.
    params, x = experiments.lesson_rnn(
        v.rho, v.hidden, v.steps, v.seed, v.input_scale, "tanh", draw=v.draw - 1
    )
    tanh_tr = trace(params, x)
    lin_tr = trace(params.replace(nonlinearity="linear"), x)
    chosen = tanh_tr if v.nonlinearity == "tanh" else lin_tr
    row = _lesson_row(v)
    eig = experiments.lesson_spectrum(v.rho, v.hidden, v.steps, v.seed, draw=v.draw - 1)
    norms_tanh, norms_linear = tanh_tr.grad_norms(), lin_tr.grad_norms()  # (T,) each
    return VanishingResult(
        values=v,
        h=chosen.h,
        norms=norms_tanh if chosen is tanh_tr else norms_linear,  # the same run's, not again
        norms_tanh=norms_tanh,
        norms_linear=norms_linear,
        eigenvalues=eig,
        overflow=_overflow(chosen),
        readout_steps=tuple(k for k in READOUT_STEPS if k < v.steps),
        lesson=lesson_table(None if row is None else (row, (tanh_tr, lin_tr))),
        lru=lru_eigenvalues(v.hidden, v.seed),
    )


@lru_cache(maxsize=4)
def lru_eigenvalues(hidden: int, seed: int) -> np.ndarray:
    """The diagonal of a linear recurrence at the LRU's ring init (|lambda| 0.9 to 0.999, phase
    up to pi/10): all inside the circle, by construction, at any size."""
    from seqviz.dynamics import LinearRecurrence

    lam = LinearRecurrence.ring(hidden, 1, 0.9, 0.999, np.pi / 10, seed=seed).lam
    lam.flags.writeable = False
    return lam


def frames(result: VanishingResult) -> int:
    """Forward pass (T frames filling the heatmap), then the backward wave (T frames)."""
    return 2 * result.T


def traces(result: VanishingResult) -> dict[str, Any]:
    """The tanh network and its linear twin (same W and inputs, as in the gradient plot)."""
    from seqviz import experiments
    from seqviz.core import trace

    v = result.values
    params, x = experiments.lesson_rnn(
        v.rho, v.hidden, v.steps, v.seed, v.input_scale, "tanh", draw=v.draw - 1
    )
    return {"tanh": trace(params, x), "linear": trace(params.replace(nonlinearity="linear"), x)}


SCENE = Scene(
    name="vanishing",
    title=title_of("vanishing"),
    summary="A random RNN run forward, then its gradient sent back through time.",
    specs=SPECS,
    compute=compute,
    frames=frames,
    view="seqviz.ui.views.vanishing:VanishingView",
    traces=traces,
)
