"""Public entry points: validate inputs (ValueError, one sentence), allocate, call the kernels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from seqviz.core import codes
from seqviz.core.backend import kernels, numba_only
from seqviz.core.params import Params, as_float_array
from seqviz.core.trace import Overflow, Trace, row_norms


def _codes(params: Params) -> tuple[int, int, int]:
    return (
        codes.CELL_CODES[params.cell],
        codes.NONLINEARITY_CODES[params.nonlinearity],
        codes.VARIANT_CODES[params.variant],
    )


def _check_params(params: Any) -> Params:
    if not isinstance(params, Params):
        raise ValueError(f"params must be a seqviz Params, got {type(params).__name__}.")
    return params


def _sequence(params: Params, x: Any) -> np.ndarray:
    shape = np.shape(x)
    if len(shape) != 2 or shape[0] < 1:
        raise ValueError(
            f"x has shape {shape}; expected (T, {params.input_size}) with T >= 1 steps."
        )
    return as_float_array(x, "x", (shape[0], params.input_size))


def _readonly(arr: np.ndarray) -> np.ndarray:
    # Kernel inputs are always read-only so that Numba compiles (and caches) one signature.
    arr.flags.writeable = False
    return arr


def _state(value: Any, name: str, d: int) -> np.ndarray:
    if value is None:
        return _readonly(np.zeros(d))
    return as_float_array(value, name, (d,))


def _initial(params: Params, h0: Any, c0: Any) -> tuple[np.ndarray, np.ndarray]:
    d = params.hidden_size
    if c0 is not None and params.cell != "lstm":
        raise ValueError(f"c0 is only used by the lstm cell, not by {params.cell}.")
    return _state(h0, "h0", d), _state(c0, "c0", d)


def trace(
    params: Params,
    x: Any,
    h0: Any = None,
    c0: Any = None,
    grad_hT: Any = None,
    grad_out: Any = None,
) -> Trace:
    """Forward pass with every state and gate, then BPTT to every step, as a Trace.

    x is (T, input_size). The loss gradient is grad_out (T, d), dL/dh_t injected at every step,
    plus grad_hT (d,) at the last step; with neither, grad_hT = ones(d)/sqrt(d), i.e.
    L = sum(h_T)/sqrt(d). Non-finite results are kept and reported in Trace.overflow.
    """
    params = _check_params(params)
    x = _sequence(params, x)
    h0_, c0_ = _initial(params, h0, c0)
    T, d = x.shape[0], params.hidden_size
    if grad_hT is None and grad_out is None:
        g_T = _readonly(np.full(d, 1.0 / np.sqrt(d)))
    else:
        g_T = _state(grad_hT, "grad_hT", d)
    g_out = (
        _readonly(np.zeros((T, d)))
        if grad_out is None
        else as_float_array(grad_out, "grad_out", (T, d))
    )
    return run_trace(params, x, h0_, c0_, g_out, g_T)


def run_trace(
    params: Params,
    x: np.ndarray,
    h0: np.ndarray,
    c0: np.ndarray,
    g_out: np.ndarray,
    g_T: np.ndarray,
) -> Trace:
    """The kernel call behind trace() on already checked, read-only float64 arrays.

    Inputs may hold inf/nan here: a stack passes a lower layer's overflowed output upwards.
    """
    T, d = x.shape[0], params.hidden_size
    G, gd = params.n_gates, params.n_gates * d
    lstm = params.cell == "lstm"
    h = np.empty((T, d))
    c = np.zeros((T, d))
    gates = np.zeros((T, G, d))
    grad_h = np.empty((T, d))
    grad_c = np.zeros((T, d))
    g_w_ih = np.empty((gd, params.input_size))
    g_w_hh = np.empty((gd, d))
    g_b_ih = np.empty(gd)
    g_b_hh = np.empty(gd)
    g_x = np.empty_like(x)
    g_h0 = np.empty(d)
    g_c0 = np.empty(d)
    kernels().trace_kernel(
        *_codes(params), params.weight_ih, params.weight_hh, params.bias_ih, params.bias_hh,
        x, h0, c0, g_out, g_T,
        h, c, gates, grad_h, grad_c, g_w_ih, g_w_hh, g_b_ih, g_b_hh, g_x, g_h0, g_c0,
    )  # fmt: skip
    fields: dict[str, Any] = dict(
        params=params, x=x, h0=h0, c0=c0, h=h,
        c=c if lstm else None, gates=gates if G > 1 else None,
        grad_h=grad_h, grad_c=grad_c if lstm else None,
        grad_weight_ih=g_w_ih, grad_weight_hh=g_w_hh, grad_bias_ih=g_b_ih, grad_bias_hh=g_b_hh,
        grad_x=g_x, grad_h0=g_h0, grad_c0=g_c0,
    )  # fmt: skip
    return Trace(**fields, overflow=find_overflow(fields))


def _all_finite(arr: np.ndarray) -> bool:
    """Whether every entry is finite: a finite sum says so in one pass (an inf or nan anywhere
    makes the sum inf or nan); a sum that overflowed is checked entry by entry."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.add.reduce(arr, axis=None)):
            return True
    return bool(np.isfinite(arr).all())


def _first_bad_row(arr: np.ndarray | None, last: bool = False) -> int | None:
    if arr is None or _all_finite(arr):
        return None
    bad = ~np.isfinite(arr.reshape(arr.shape[0], -1)).all(axis=1)
    rows = np.flatnonzero(bad)
    if rows.size == 0:
        return None
    return int(rows[-1] if last else rows[0])


def find_overflow(fields: dict[str, Any]) -> Overflow | None:
    """The first non-finite value in the order it was computed (forward, then backward)."""
    found = []
    for name in ("h", "c", "gates"):
        t = _first_bad_row(fields[name])
        if t is not None:
            found.append(Overflow(t, "forward", name))
    if found:
        return min(found, key=lambda o: o.step)
    # The backward pass runs from the last step down, so its first bad step is the largest t.
    for name in ("grad_h", "grad_c"):
        t = _first_bad_row(fields[name], last=True)
        if t is not None:
            found.append(Overflow(t, "backward", name))
    if found:
        return max(found, key=lambda o: o.step)
    # Finite entries near 1e308 can still give |dL/dh_t| = inf, which grad_norms() reports;
    # entries below 1e150 cannot (a norm is at most sqrt(d) times the largest entry).
    grad_h = fields["grad_h"]  # (T, d), finite here
    if grad_h.size and np.max(np.abs(grad_h)) >= 1e150:
        bad = np.flatnonzero(~np.isfinite(row_norms(grad_h)))
        if bad.size:
            return Overflow(int(bad[-1]), "backward", "|grad_h|")
    for name in ("grad_weight_hh", "grad_weight_ih", "grad_bias_hh", "grad_bias_ih", "grad_x"):
        if not _all_finite(fields[name]):
            # Sums over all steps: they are complete when the backward pass reaches step 0.
            return Overflow(0, "backward", name)
    return None


def forward(params: Params, x: Any, h0: Any = None, c0: Any = None):
    """Forward pass only: (h (T,d), c (T,d) or None for non-LSTM cells)."""
    params = _check_params(params)
    x = _sequence(params, x)
    h0_, c0_ = _initial(params, h0, c0)
    return run_forward(params, x, h0_, c0_)


def run_forward(params: Params, x: np.ndarray, h0: np.ndarray, c0: np.ndarray):
    """The kernel call behind forward() on already checked, read-only float64 arrays."""
    T, d = x.shape[0], params.hidden_size
    h = np.empty((T, d))
    c = np.zeros((T, d))
    gates = np.zeros((T, params.n_gates, d))
    aux = np.empty((T, d))
    kernels().forward_kernel(
        *_codes(params), params.weight_ih, params.weight_hh, params.bias_ih, params.bias_hh,
        x, h0, c0, h, c, gates, aux,
    )  # fmt: skip
    return h, (c if params.cell == "lstm" else None)


def step(params: Params, x: Any, h: Any, c: Any = None):
    """One step for a batch: x (B, input_size), h (B, d), c (B, d) for LSTM -> (h_new, c_new).

    c_new is None for non-LSTM cells. Nothing is recorded; this is the decoding hot path.
    """
    params = _check_params(params)
    d = params.hidden_size
    xs = np.shape(x)
    if len(xs) != 2 or xs[0] < 1:
        raise ValueError(
            f"x has shape {xs}; step expects a batch (B, {params.input_size}) with B >= 1."
        )
    B = xs[0]
    x_ = as_float_array(x, "x", (B, params.input_size))
    h_ = as_float_array(h, "h", (B, d))
    if params.cell == "lstm":
        if c is None:
            raise ValueError("the lstm cell needs the cell state c (B, d) as well as h.")
        c_ = as_float_array(c, "c", (B, d))
    elif c is not None:
        raise ValueError(f"c is only used by the lstm cell, not by {params.cell}.")
    else:
        c_ = _readonly(np.zeros((B, d)))
    h_out = np.empty((B, d))
    c_out = np.empty((B, d))
    kernels().step_kernel(
        *_codes(params), params.weight_ih, params.weight_hh, params.bias_ih, params.bias_hh,
        x_, h_, c_, h_out, c_out,
    )  # fmt: skip
    return h_out, (c_out if params.cell == "lstm" else None)


def warmup() -> None:
    """Compile (or load from the cache) every kernel, so later calls are instant."""
    with numba_only():
        for cell, G in codes.N_GATES.items():
            p = Params.from_arrays(cell, np.zeros((G, 1)), np.zeros((G, 1)))
            x = np.zeros((2, 1))
            trace(p, x)
            forward(p, x)
            step(p, x, np.zeros((2, 1)), np.zeros((2, 1)) if cell == "lstm" else None)
            batch_trace(p, x[None], np.zeros((1, 2, 1)))  # both batch kernels


def _batch(params: Params, x: Any) -> np.ndarray:
    shape = np.shape(x)
    if len(shape) != 3 or shape[0] < 1 or shape[1] < 1:
        raise ValueError(
            f"x has shape {shape}; a batch must be (B, T, {params.input_size}) "
            "with B >= 1 sequences of T >= 1 steps."
        )
    return as_float_array(x, "x", (shape[0], shape[1], params.input_size))


@dataclass(frozen=True)
class BatchRecord:
    """A batch forward pass kept for BPTT (``batch_record``), so ``batch_backward`` need not
    run the forward again. c, gates and aux are full arrays for every cell (zeros where unused)."""

    params: Params
    x: np.ndarray  # (B, T, input_size)
    h: np.ndarray  # (B, T, d)
    c: np.ndarray  # (B, T, d)
    gates: np.ndarray  # (B, T, G, d)
    aux: np.ndarray  # (B, T, d) what the backward pass would otherwise recompute


def batch_record(params: Params, x: Any) -> BatchRecord:
    """Forward pass of B equal-length sequences from zero states, recorded for batch_backward.

    x (B, T, input_size); the record's h (B, T, d) are the hidden states.
    """
    params = _check_params(params)
    x = _batch(params, x)
    B, T = x.shape[:2]
    d, G = params.hidden_size, params.n_gates
    rec = BatchRecord(params, x, np.empty((B, T, d)), np.zeros((B, T, d)),
                      np.zeros((B, T, G, d)), np.zeros((B, T, d)))  # fmt: skip
    kernels().batch_forward_kernel(
        *_codes(params), params.weight_ih, params.weight_hh, params.bias_ih, params.bias_hh,
        x, rec.h, rec.c, rec.gates, rec.aux,
    )  # fmt: skip
    return rec


def batch_forward(params: Params, x: Any):
    """Forward pass of B equal-length sequences from zero states.

    x (B, T, input_size) -> (h (B,T,d), c (B,T,d) or None, gates (B,T,G,d) or None).
    """
    rec = batch_record(params, x)
    lstm = rec.params.cell == "lstm"
    return rec.h, (rec.c if lstm else None), (rec.gates if rec.params.n_gates > 1 else None)


def batch_backward(record: BatchRecord, grad_out: Any) -> dict[str, Any]:
    """BPTT from a batch_record's states, without running the forward again.

    grad_out (B, T, d) is dL/dh_t of each sequence. Returns a dict with h, grad_h (B,T,d), c,
    grad_c (B,T,d) and gates (B,T,G,d) (None where the cell has none) and the parameter
    gradients summed over the batch under Params' field names prefixed "grad_". Non-finite
    values are returned as they are.
    """
    params, x = record.params, record.x
    B, T = x.shape[:2]
    d, G = params.hidden_size, params.n_gates
    g_out = as_float_array(grad_out, "grad_out", (B, T, d))
    gd = G * d
    out: dict[str, Any] = {
        "h": record.h,
        "c": record.c,
        "gates": record.gates,
        "grad_h": np.empty((B, T, d)),
        "grad_c": np.zeros((B, T, d)),
        "grad_weight_ih": np.empty((gd, params.input_size)),
        "grad_weight_hh": np.empty((gd, d)),
        "grad_bias_ih": np.empty(gd),
        "grad_bias_hh": np.empty(gd),
    }
    kernels().batch_backward_kernel(
        *_codes(params), params.weight_ih, params.weight_hh, x, g_out, record.h, record.c,
        record.gates, record.aux, out["grad_h"], out["grad_c"], out["grad_weight_ih"],
        out["grad_weight_hh"], out["grad_bias_ih"], out["grad_bias_hh"],
    )  # fmt: skip
    if params.cell != "lstm":
        out["c"] = out["grad_c"] = None
    if G == 1:
        out["gates"] = None
    return out


def batch_trace(params: Params, x: Any, grad_out: Any) -> dict[str, Any]:
    """Forward and BPTT for B equal-length sequences from zero states: batch_backward of a
    batch_record (use those two when the loss needs the states before its gradient)."""
    return batch_backward(batch_record(params, x), grad_out)
