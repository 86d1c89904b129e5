"""The jitted kernels agree with the NumPy reference, and both agree with finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from core_cases import CASES, IDS, make_case

from seqviz.core import forward, reference_kernels, trace
from seqviz.core.reference import reference_trace, rnn_grad_norms

FIELDS = (
    "h", "c", "gates", "grad_h", "grad_c", "grad_weight_ih", "grad_weight_hh", "grad_bias_ih",
    "grad_bias_hh", "grad_x", "grad_h0", "grad_c0",
)  # fmt: skip


# d = 4 makes every gate block a multiple of 4 rows; 1, 3 and 5 reach the kernels' remainder
# loops (the matrix-vector products take four rows per pass). T = 9 and 7: not multiples of 4.
SIZES = [4, 1, 3, 5]


@pytest.mark.parametrize("d", SIZES, ids=lambda d: f"d{d}")
@pytest.mark.parametrize(("cell", "nl", "variant"), CASES, ids=IDS)
def test_kernels_match_reference(cell, nl, variant, d):
    p, x, h0, c0, grad_out, grad_hT = make_case(cell, nl, variant, d=d, T=9)
    tr = trace(p, x, h0, c0, grad_hT=grad_hT, grad_out=grad_out)
    ref = reference_trace(p, x, h0, c0, grad_hT=grad_hT, grad_out=grad_out)
    for name in FIELDS:
        got, want = getattr(tr, name), ref[name]
        if want is None:
            assert got is None or name in ("grad_c0",), name
            continue
        if name == "grad_c0" and cell != "lstm":
            assert np.all(got == 0)
            continue
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=name)


def _loss(p, x, h0, c0, grad_out, grad_hT):
    h, _ = forward(p, x, h0, c0)
    return float(np.sum(h * grad_out) + h[-1] @ grad_hT)


def _central(f, arr, eps=1e-6):
    arr = np.array(arr, dtype=float)
    out = np.zeros_like(arr)
    for idx in np.ndindex(arr.shape):
        plus, minus = arr.copy(), arr.copy()
        plus[idx] += eps
        minus[idx] -= eps
        out[idx] = (f(plus) - f(minus)) / (2 * eps)
    return out


@pytest.mark.parametrize("d", SIZES, ids=lambda d: f"d{d}")
@pytest.mark.parametrize(("cell", "nl", "variant"), CASES, ids=IDS)
def test_parameter_and_input_gradients_match_finite_differences(cell, nl, variant, d):
    p, x, h0, c0, grad_out, grad_hT = make_case(cell, nl, variant, d=d, T=7, seed=3)
    tr = trace(p, x, h0, c0, grad_hT=grad_hT, grad_out=grad_out)

    def loss(**kw):
        args = dict(p=p, x=x, h0=h0, c0=c0, grad_out=grad_out, grad_hT=grad_hT) | kw
        return _loss(**args)

    checks = {
        "grad_weight_ih": _central(lambda w: loss(p=p.replace(weight_ih=w)), p.weight_ih),
        "grad_weight_hh": _central(lambda w: loss(p=p.replace(weight_hh=w)), p.weight_hh),
        "grad_bias_ih": _central(lambda b: loss(p=p.replace(bias_ih=b)), p.bias_ih),
        "grad_bias_hh": _central(lambda b: loss(p=p.replace(bias_hh=b)), p.bias_hh),
        "grad_x": _central(lambda v: loss(x=v), x),
        "grad_h0": _central(lambda v: loss(h0=v), h0),
    }
    if cell == "lstm":
        checks["grad_c0"] = _central(lambda v: loss(c0=v), c0)
    for name, numeric in checks.items():
        np.testing.assert_allclose(getattr(tr, name), numeric, rtol=1e-6, atol=1e-8, err_msg=name)


@pytest.mark.parametrize(("cell", "nl", "variant"), CASES, ids=IDS)
def test_state_gradients_match_finite_differences(cell, nl, variant):
    """grad_h[t] (and grad_c[t]) is the total derivative of the loss w.r.t. the state at t."""
    p, x, h0, c0, grad_out, grad_hT = make_case(cell, nl, variant, seed=5, T=7)
    tr = trace(p, x, h0, c0, grad_hT=grad_hT, grad_out=grad_out)
    T = x.shape[0]
    for t in (0, 3, T - 1):

        def loss_from(h_t, c_t, t=t):
            # The loss as a function of the state at step t: its own term plus everything later.
            own = h_t @ grad_out[t] + (h_t @ grad_hT if t == T - 1 else 0.0)
            if t == T - 1:
                return own
            return own + _loss(p, x[t + 1 :], h_t, c_t, grad_out[t + 1 :], grad_hT)

        c_t = tr.c[t] if cell == "lstm" else None
        numeric = _central(lambda v, c_t=c_t, f=loss_from: f(v, c_t), tr.h[t])
        np.testing.assert_allclose(tr.grad_h[t], numeric, rtol=1e-6, atol=1e-8)
        if cell == "lstm":
            # Through c_t the loss reaches h_t = o*tanh(c_t) too, so hold o_t fixed explicitly.
            o_t = tr.gates[t, 3]

            def via_c(cv, t=t, o_t=o_t, f=loss_from):
                return f(o_t * np.tanh(cv), cv)

            numeric_c = _central(via_c, tr.c[t])
            np.testing.assert_allclose(tr.grad_c[t], numeric_c, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(("cell", "nl", "variant"), CASES, ids=IDS)
def test_reference_and_trace_share_the_default_loss(cell, nl, variant):
    """With no loss gradient given, both use L = sum(h_T)/sqrt(d)."""
    p, x, h0, c0, _, _ = make_case(cell, nl, variant, d=5, T=7, seed=2)
    tr = trace(p, x, h0, c0)
    ref = reference_trace(p, x, h0, c0)
    d = p.hidden_size
    for name in ("grad_h", "grad_weight_hh", "grad_x", "grad_h0"):
        np.testing.assert_allclose(
            getattr(tr, name), ref[name], rtol=1e-10, atol=1e-12, err_msg=name
        )
    # and that default is the one documented: dL/dh_T = 1/sqrt(d) when nothing follows
    explicit = trace(p, x, h0, c0, grad_hT=np.full(d, 1 / np.sqrt(d)))
    np.testing.assert_allclose(explicit.grad_h, tr.grad_h, rtol=1e-12, atol=0)


@pytest.mark.parametrize("backend", ["numba", "reference"])
@pytest.mark.parametrize("nl", ["tanh", "relu", "linear"])
def test_rnn_grad_norms_are_the_norms_of_a_whole_trace(nl, backend, monkeypatch):
    """The dL/dh recursion alone gives trace(p, x).grad_norms(), with biases and an input size
    other than the hidden size; to 1e-12 of the kernels, and exactly the reference's numbers."""
    if backend == "reference":
        monkeypatch.setattr("seqviz.core.api.kernels", lambda: reference_kernels)
    for d, T, seed in [(4, 6, 0), (7, 13, 1), (1, 1, 2)]:
        p, x, _, _, _, _ = make_case("rnn", nl, "textbook", d=d, T=T, seed=seed)
        want = trace(p, x).grad_norms()
        got = rnn_grad_norms(p, x)
        assert got.shape == (T,)
        if backend == "reference":
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


def test_rnn_grad_norms_take_only_an_rnn():
    p, x, _, _, _, _ = make_case("lstm", "tanh", "textbook")
    with pytest.raises(ValueError, match="takes an rnn cell, not lstm"):
        rnn_grad_norms(p, x)
