"""Batched forward and BPTT through BLAS, in float32 or float64: the trainer's fast path.

    >>> rec = blas_record("lstm", (w_ih, w_hh, b_ih, b_hh), x)  # x (T, B, d_in), time-major
    >>> g = blas_backward(rec, grad_out)                           # grad_out (T, B, d)

The dtype is the weights' (float32 or float64); x and the initial states are converted to it.
Results agree with the per-sequence kernels (seqviz.core.kernels) to rounding: in float64 to
about 1e-13, but not bit for bit, since BLAS sums in another order. `uses_blas` says which path
the trainer takes for a model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqviz.core import codes

DTYPES = ("float64", "float32")
# float64 models narrower than this train on the per-sequence kernels, which are as fast there
# and which trained the shipped models (so their training commands reproduce them bit for bit).
BLAS_FROM_HIDDEN = 64


def check_dtype(dtype: object) -> np.dtype:
    """np.float32 or np.float64 from "float32"/"float64" (or the NumPy types); else ValueError."""
    for name in DTYPES:
        if dtype == name or dtype is getattr(np, name) or dtype == np.dtype(name):
            return np.dtype(name)
    raise ValueError(f"unknown dtype {dtype!r}; allowed: {', '.join(DTYPES)}.")


def uses_blas(dtype: object, hidden: int) -> bool:
    """Whether a model of this dtype and hidden size trains on the batched BLAS kernels.

    Never while the app computes on the NumPy reference (its compiled kernels still loading):
    the per-sequence path then runs on the reference instead of compiling here."""
    from seqviz.core.backend import using_reference

    if using_reference():
        return False
    return check_dtype(dtype) == np.float32 or hidden >= BLAS_FROM_HIDDEN


class Workspace:
    """Arrays kept from one batch to the next, so that a training loop does not allocate (and
    fault in) tens of megabytes per update. A record made with a workspace is overwritten by
    the next one made with it."""

    def __init__(self) -> None:
        self._arrays: dict[str, np.ndarray] = {}

    def get(self, name: str, shape: tuple[int, ...], dtype: np.dtype, zero: bool) -> np.ndarray:
        arr = self._arrays.get(name)
        if arr is None or arr.shape != shape or arr.dtype != dtype:
            arr = self._arrays[name] = np.zeros(shape, dtype)
        elif zero:
            arr.fill(0)
        return arr


def _new(ws: Workspace | None, name: str, shape: tuple[int, ...], dt: np.dtype,
         zero: bool = False) -> np.ndarray:  # fmt: skip
    return np.zeros(shape, dt) if ws is None else ws.get(name, shape, dt, zero)


def _c(arr: np.ndarray, dtype: np.dtype) -> np.ndarray:
    # Writable C arrays only, so that Numba compiles (and caches) one signature per dtype.
    out = np.ascontiguousarray(arr, dtype=dtype)
    return out if out.flags.writeable else out.copy()


@dataclass(frozen=True, eq=False)
class BlasRecord:
    """A batch's forward pass kept for blas_backward; every array time-major, in `dtype`."""

    cell: str
    nonlinearity: str
    variant: str
    weights: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # w_ih, w_hh, b_ih, b_hh
    x: np.ndarray  # (T, B, d_in)
    h0: np.ndarray  # (B, d)
    c0: np.ndarray  # (B, d)
    h: np.ndarray  # (T, B, d)
    c: np.ndarray  # (T, B, d), zeros unless LSTM
    gates: np.ndarray  # (T, B, G*d) gate values side by side (unused for the RNN)
    aux: np.ndarray  # (T, B, d) what the backward pass needs besides the above

    @property
    def dtype(self) -> np.dtype:
        return self.h.dtype

    @property
    def hidden(self) -> int:
        return int(self.h.shape[2])

    def gate(self, k: int) -> np.ndarray:
        """(T, B, d) values of gate k (LSTM i f g o = 0..3; GRU r z n = 0..2)."""
        d = self.hidden
        return self.gates[:, :, k * d : (k + 1) * d]


@dataclass(frozen=True, eq=False)
class BlasGrads:
    """blas_backward's result: dL/dh and dL/dc per step, the weights' gradients summed over the
    batch, and dL/dx, dL/dh0, dL/dc0."""

    grad_h: np.ndarray  # (T, B, d)
    grad_c: np.ndarray  # (T, B, d), zeros unless LSTM
    weight_ih: np.ndarray
    weight_hh: np.ndarray
    bias_ih: np.ndarray
    bias_hh: np.ndarray
    x: np.ndarray | None  # (T, B, d_in) when asked for
    h0: np.ndarray  # (B, d)
    c0: np.ndarray  # (B, d)

    def weights(self) -> dict[str, np.ndarray]:
        return {"weight_ih": self.weight_ih, "weight_hh": self.weight_hh,
                "bias_ih": self.bias_ih, "bias_hh": self.bias_hh}  # fmt: skip


def blas_record(
    cell: str,
    weights: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    x: np.ndarray,
    h0: np.ndarray | None = None,
    c0: np.ndarray | None = None,
    *,
    nonlinearity: str = "tanh",
    variant: str = "textbook",
    workspace: Workspace | None = None,
) -> BlasRecord:
    """Forward pass of B sequences of T steps, x (T, B, d_in), in the weights' dtype."""
    from seqviz.core.blas_kernels import blas_forward

    if cell not in codes.N_GATES:
        raise ValueError(f"unknown cell {cell!r}; allowed: {', '.join(codes.N_GATES)}.")
    w_ih, w_hh, b_ih, b_hh = weights
    dt = check_dtype(np.asarray(w_hh).dtype)
    w = (_c(w_ih, dt), _c(w_hh, dt), _c(b_ih, dt), _c(b_hh, dt))
    x = np.asarray(x)
    if x.ndim != 3 or x.shape[2] != w[0].shape[1]:
        raise ValueError(f"x has shape {x.shape}; expected (T, B, {w[0].shape[1]}), time-major.")
    T, B = x.shape[:2]
    d = w[1].shape[1]
    x = _c(x, dt)
    h0_ = np.zeros((B, d), dt) if h0 is None else _c(h0, dt)
    c0_ = np.zeros((B, d), dt) if c0 is None else _c(c0, dt)
    G = codes.N_GATES[cell]
    ws = workspace
    h = _new(ws, "h", (T, B, d), dt)
    c = _new(ws, "c", (T, B, d), dt, cell != "lstm")  # zeros unless LSTM
    gates = _new(ws, "gates", (T, B, G * d), dt)
    aux = _new(ws, "aux", (T, B, d), dt)
    blas_forward(
        codes.CELL_CODES[cell], codes.NONLINEARITY_CODES[nonlinearity],
        codes.VARIANT_CODES[variant], dt == np.float32, *w, x, h0_, c0_, h, c, gates, aux,
    )  # fmt: skip
    return BlasRecord(cell, nonlinearity, variant, w, x, h0_, c0_, h, c, gates, aux)


def blas_backward(
    rec: BlasRecord,
    grad_out: np.ndarray | None = None,
    grad_hT: np.ndarray | None = None,
    want_x: bool = False,
    workspace: Workspace | None = None,
) -> BlasGrads:
    """BPTT of a blas_record: grad_out (T, B, d) is dL/dh_t, grad_hT (B, d) dL/dh at the end."""
    from seqviz.core.blas_kernels import blas_backward as kernel

    T, B, d_in = rec.x.shape
    d, dt = rec.hidden, rec.dtype
    gd = rec.weights[1].shape[0]
    ws = workspace
    g_out = _new(ws, "grad_out", (T, B, d), dt, True) if grad_out is None else _c(grad_out, dt)
    g_T = np.zeros((B, d), dt) if grad_hT is None else _c(grad_hT, dt)
    dpre = _new(ws, "dpre", (T, B, gd), dt)
    pytorch_gru = rec.cell == "gru" and rec.variant == "pytorch"
    dpre_hh = _new(ws, "dpre_hh", (T, B, gd), dt) if pytorch_gru else dpre
    out = BlasGrads(
        grad_h=_new(ws, "grad_h", (T, B, d), dt),
        grad_c=_new(ws, "grad_c", (T, B, d), dt, rec.cell != "lstm"),
        weight_ih=np.empty((gd, d_in), dt), weight_hh=np.empty((gd, d), dt),
        bias_ih=np.empty(gd, dt), bias_hh=np.empty(gd, dt),
        x=np.empty((T, B, d_in), dt) if want_x else None,
        h0=np.empty((B, d), dt), c0=np.empty((B, d), dt),
    )  # fmt: skip
    w_ih, w_hh = rec.weights[0], rec.weights[1]
    kernel(
        codes.CELL_CODES[rec.cell], codes.NONLINEARITY_CODES[rec.nonlinearity],
        codes.VARIANT_CODES[rec.variant], w_ih, w_hh, rec.x, rec.h0, rec.c0, rec.h, rec.c,
        rec.gates, rec.aux, g_out, g_T, want_x, dpre, dpre_hh, out.grad_h, out.grad_c,
        out.weight_ih, out.weight_hh, out.bias_ih, out.bias_hh,
        out.x if out.x is not None else np.empty((1, 1, 1), dt), out.h0, out.c0,
    )  # fmt: skip
    return out


def warmup() -> None:
    """Compile (or load) the batched kernels for both dtypes and every cell."""
    rng = np.random.default_rng(0)
    for dt in (np.float64, np.float32):
        for cell, G in codes.N_GATES.items():
            for variant in ("textbook", "pytorch") if cell == "gru" else ("textbook",):
                w = tuple(rng.normal(size=s).astype(dt) for s in ((G, 1), (G, 1), (G,), (G,)))
                rec = blas_record(cell, w, np.zeros((2, 1, 1)), variant=variant)
                blas_backward(rec, want_x=True)
