"""Scene 4, gradient flow: RNN, LSTM and GRU on the same input, gradients k steps back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from seqviz.scenes import title_of
from seqviz.scenes.base import ParamSpec, Scene

CELLS = ("rnn", "lstm", "gru")
INPUT_SIZE = 8

SPECS = (
    ParamSpec("rho", "spectral radius", "float", 1.0, 0.05, 3.0, 0.05,
              help="radius of every recurrent weight block W_hh"),
    ParamSpec("forget_bias", "forget bias", "float", 1.0, -5.0, 10.0, 0.5,
              help="LSTM b_f; the cell path keeps the product of f"),
    ParamSpec("update_bias", "GRU update bias", "float", 0.0, -10.0, 10.0, 0.5,
              help="GRU b_z; h = (1-z)h + z n, so a negative b_z keeps z near 0 and copies h"),
    ParamSpec("steps", "steps", "int", 100, 10, 1000, 10, help="sequence length T"),
    ParamSpec("hidden", "hidden size", "int", 32, 4, 128, 4, help="units d of each cell"),
    ParamSpec("input_scale", "input scale", "float", 1.0, 0.0, 3.0, 0.1,
              help="std of the shared random input"),
    ParamSpec("seed", "seed", "int", 0, 0, 9999, 1, help="weights and input"),
    ParamSpec("lru_rmin", "LRU r_min", "float", 0.9, 0.0, 0.999, 0.01,
              help="linear recurrence: smallest |lambda| of its ring"),
    ParamSpec("lru_rmax", "LRU r_max", "float", 0.999, 0.0, 0.999, 0.001,
              help="linear recurrence: largest |lambda| of its ring"),
    ParamSpec("lru_phase", "LRU max phase", "float", 0.31, 0.0, 6.28, 0.01,
              help="linear recurrence: largest angle of lambda (radians)"),
)  # fmt: skip


@dataclass(frozen=True)
class GradflowResult:
    values: Any
    norms: dict[str, np.ndarray]  # cell -> (T,) |dL/dh_{T-1-k}|
    cell_norms: np.ndarray  # (T,) LSTM |dL/dc_{T-1-k}|, total (through h as well)
    forget_product: np.ndarray  # (T,) mean over units of prod of f over the last k steps
    cell_path: np.ndarray  # (T,) |dL/dc_T * prod f|: the cell path alone
    grad_h: dict[str, np.ndarray]  # cell -> (T, d) dL/dh_t
    mean_forget: float
    mean_update: float = 0.5  # GRU mean z
    overflow: Any = None
    lru: Any = None  # LruSummary of the diagonal linear recurrence on the same input

    @property
    def T(self) -> int:
        return int(self.cell_norms.shape[0])


def forget_products(f: np.ndarray) -> np.ndarray:
    """(T, d) forget gates -> (T, d): row k = prod of f over the last k steps (row 0 = 1)."""
    T, d = f.shape
    out = np.ones((T, d))
    if T > 1:
        out[1:] = np.cumprod(f[::-1][: T - 1], axis=0)
    return out


@dataclass(frozen=True)
class LruSummary:
    """The diagonal linear recurrence beside the cells: its gradient and loop-vs-scan check."""

    norms: np.ndarray  # (T,) |dL/dh_{T-1-k}|
    eigenvalues: np.ndarray  # (d,) complex lambda
    scan_rounds: int  # ceil(log2 T) rounds of the parallel scan, against T loop steps
    max_diff: float  # largest |loop - scan| over all states


def lru_summary(v: Any, x: np.ndarray) -> LruSummary:
    from seqviz.dynamics import LinearRecurrence, scan_levels

    r_min, r_max = sorted((v.lru_rmin, v.lru_rmax))
    rec = LinearRecurrence.ring(v.hidden, INPUT_SIZE, r_min, r_max, v.lru_phase, seed=v.seed)
    loop, scan = rec.loop(x), rec.scan(x)
    with np.errstate(all="ignore"):
        diff = float(np.max(np.abs(loop - scan)))
    return LruSummary(rec.grad_norms(len(x)), rec.lam, scan_levels(len(x)), diff)


def compute(v: Any) -> GradflowResult:
    from seqviz.core import Params, trace

    x = np.random.default_rng(v.seed).normal(0.0, 1.0, (v.steps, INPUT_SIZE)) * v.input_scale
    traces = {}
    for cell in CELLS:
        params = Params.random(cell, INPUT_SIZE, v.hidden, seed=v.seed, spectral_radius=v.rho,
                               forget_bias=v.forget_bias)  # fmt: skip
        if cell == "gru":  # gate blocks r, z, n: the update gate's bias is the middle block
            bias = params.bias_ih.copy()
            bias[v.hidden : 2 * v.hidden] = v.update_bias
            params = params.replace(bias_ih=bias)
        traces[cell] = trace(params, x)
    lstm = traces["lstm"]
    assert lstm.gates is not None and lstm.grad_c is not None  # an LSTM trace has both
    prods = forget_products(lstm.gates[:, 1, :])
    with np.errstate(all="ignore"):
        cell_norms = np.linalg.norm(lstm.grad_c[::-1], axis=1)
        cell_path = np.linalg.norm(lstm.grad_c[-1][None, :] * prods, axis=1)
    overflow = next((t.overflow for t in traces.values() if t.overflow is not None), None)
    return GradflowResult(
        values=v,
        norms={cell: tr.grad_norms() for cell, tr in traces.items()},
        cell_norms=cell_norms,
        forget_product=prods.mean(axis=1),
        cell_path=cell_path,
        grad_h={cell: tr.grad_h for cell, tr in traces.items()},
        mean_forget=float(np.mean(lstm.gates[:, 1, :])),
        mean_update=float(np.mean(traces["gru"].gates[:, 1, :])),  # type: ignore[index]
        overflow=overflow,
        lru=lru_summary(v, x),
    )


def fastest(result: GradflowResult) -> tuple[str, int, float] | None:
    """The cell whose |dL/dh| has fallen most, relative to k = 0, at the farthest k plotted for all
    three (finite and > 0 on the log axis): (cell, k, its value), or None if none fell."""
    T = result.T
    with np.errstate(all="ignore"):
        ratios = {c: result.norms[c] / result.norms[c][0] for c in CELLS}
    for k in range(T - 1, 0, -1):
        shown = {c: float(r[k]) for c, r in ratios.items() if np.isfinite(r[k]) and r[k] > 0}
        if len(shown) == len(CELLS):
            break
    else:
        return None
    cell = min(shown, key=lambda c: shown[c])
    if shown[cell] >= 1.0:
        return None
    return cell, k, float(result.norms[cell][k])


def frames(result: GradflowResult) -> int:
    """The backward wave: frame k shows gradients up to k steps back."""
    return result.T


def traces(result: GradflowResult) -> dict[str, Any]:
    """RNN, LSTM and GRU on the shared input."""
    from seqviz.core import Params, trace

    v = result.values
    x = np.random.default_rng(v.seed).normal(0.0, 1.0, (v.steps, INPUT_SIZE)) * v.input_scale
    out = {}
    for cell in CELLS:
        params = Params.random(cell, INPUT_SIZE, v.hidden, seed=v.seed, spectral_radius=v.rho,
                               forget_bias=v.forget_bias)  # fmt: skip
        out[cell] = trace(params, x)
    return out


SCENE = Scene(
    name="gradflow",
    title=title_of("gradflow"),
    summary="The same input through an RNN, an LSTM and a GRU: whose gradient survives?",
    specs=SPECS,
    compute=compute,
    frames=frames,
    view="seqviz.ui.views.gradflow:GradflowView",
    traces=traces,
)
