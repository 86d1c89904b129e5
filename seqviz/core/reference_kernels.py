"""The kernels' call signatures on the NumPy reference: what the core runs while Numba compiles.

Each function fills the same caller-allocated arrays as its namesake in ``kernels`` (outputs the
kernel leaves alone, e.g. ``c`` of a GRU, stay as allocated). The numbers come from
``reference``, which agrees with the kernels to ~1e-12 (tests/test_reference_kernels.py).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from seqviz.core import reference as R
from seqviz.core.codes import CELL_CODES, LSTM, NONLINEARITY_CODES, VARIANT_CODES

_CELLS = {code: name for name, code in CELL_CODES.items()}
_NONLINEARITIES = {code: name for name, code in NONLINEARITY_CODES.items()}
_VARIANTS = {code: name for name, code in VARIANT_CODES.items()}


def _cell(cell, nl, variant, w_ih, w_hh, b_ih, b_hh) -> SimpleNamespace:
    """What the reference reads from a Params, from the kernels' codes and arrays."""
    return SimpleNamespace(
        cell=_CELLS[cell], nonlinearity=_NONLINEARITIES[nl], variant=_VARIANTS[variant],
        weight_ih=w_ih, weight_hh=w_hh, bias_ih=b_ih, bias_hh=b_hh, hidden_size=w_hh.shape[1],
    )  # fmt: skip


def _forward_into(p, x, h0, c0, h, c, gates, aux=None) -> None:
    """Run the reference forward over x (T, d_in) and copy its states into h, c, gates, aux."""
    with np.errstate(all="ignore"):
        hs, cs, gs, ax = R.forward_steps(p, x, h0, c0)
    for t in range(x.shape[0]):
        h[t] = hs[t]
        if t in gs:
            gates[t] = gs[t]  # (G, d)
        if p.cell == "lstm":
            c[t] = cs[t]
        if aux is not None:
            # What the Numba forward keeps for its backward pass: tanh(c_t) or the GRU's term.
            aux[t] = np.tanh(cs[t]) if p.cell == "lstm" else ax.get(t, aux[t])


def forward_kernel(cell, nl, variant, w_ih, w_hh, b_ih, b_hh, x, h0, c0, h, c, gates, aux):
    p = _cell(cell, nl, variant, w_ih, w_hh, b_ih, b_hh)
    _forward_into(p, x, h0, c0, h, c, gates, aux)


def step_kernel(cell, nl, variant, w_ih, w_hh, b_ih, b_hh, x, h, c, h_out, c_out):
    p = _cell(cell, nl, variant, w_ih, w_hh, b_ih, b_hh)
    for b in range(x.shape[0]):
        with np.errstate(all="ignore"):
            hs, cs, _, _ = R.forward_steps(p, x[b : b + 1], h[b], c[b])
        h_out[b] = hs[0]
        if cell == LSTM:
            c_out[b] = cs[0]


def trace_kernel(
    cell, nl, variant, w_ih, w_hh, b_ih, b_hh, x, h0, c0, grad_out, grad_hT,
    h, c, gates, grad_h, grad_c, g_w_ih, g_w_hh, g_b_ih, g_b_hh, g_x, g_h0, g_c0,
):  # fmt: skip
    p = _cell(cell, nl, variant, w_ih, w_hh, b_ih, b_hh)
    out = R.reference_trace(p, x, h0, c0, grad_hT, grad_out)
    targets = {
        "h": h, "c": c, "gates": gates, "grad_h": grad_h, "grad_c": grad_c,
        "grad_weight_ih": g_w_ih, "grad_weight_hh": g_w_hh, "grad_bias_ih": g_b_ih,
        "grad_bias_hh": g_b_hh, "grad_x": g_x, "grad_h0": g_h0, "grad_c0": g_c0,
    }  # fmt: skip
    for name, target in targets.items():
        if out[name] is not None:
            target[...] = out[name]


def batch_forward_kernel(cell, nl, variant, w_ih, w_hh, b_ih, b_hh, x, h, c, gates, aux):
    p = _cell(cell, nl, variant, w_ih, w_hh, b_ih, b_hh)
    zero = np.zeros(p.hidden_size)
    for b in range(x.shape[0]):
        _forward_into(p, x[b], zero, zero, h[b], c[b], gates[b], aux[b])


def batch_backward_kernel(
    cell, nl, variant, w_ih, w_hh, x, grad_out, h, c, gates, aux,
    grad_h, grad_c, g_w_ih, g_w_hh, g_b_ih, g_b_hh,
):  # fmt: skip
    no_bias = np.zeros(w_hh.shape[0])  # the backward pass does not read the biases
    p = _cell(cell, nl, variant, w_ih, w_hh, no_bias, no_bias)
    zero = np.zeros(p.hidden_size)
    sums = {"grad_weight_ih": g_w_ih, "grad_weight_hh": g_w_hh,
            "grad_bias_ih": g_b_ih, "grad_bias_hh": g_b_hh}  # fmt: skip
    for target in sums.values():
        target[...] = 0.0
    steps = range(x.shape[1])
    for b in range(x.shape[0]):
        # The forward's record as the reference keeps it: dicts by step, initial states at -1.
        hs = {-1: zero, **{t: h[b, t] for t in steps}}
        cs = {-1: zero, **{t: c[b, t] for t in steps}}
        gs = {t: gates[b, t] for t in steps}
        ax = {t: aux[b, t] for t in steps}
        with np.errstate(all="ignore"):
            out = R.backward_steps(p, x[b], hs, cs, gs, ax, zero, grad_out[b])
        grad_h[b] = out["grad_h"]
        if cell == LSTM:
            grad_c[b] = out["grad_c"]
        for name, target in sums.items():
            target += out[name]
