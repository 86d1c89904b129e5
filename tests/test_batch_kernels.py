"""Batched forward/BPTT (the training hot path) against the per-sequence kernels and PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from core_cases import CASES, IDS

from seqviz.core import (
    Params,
    batch_backward,
    batch_forward,
    batch_record,
    batch_trace,
    forward,
    trace,
)


def _batch_case(cell, nl, variant, B=3, T=7, d_in=3, d=5, seed=0):
    rng = np.random.default_rng(seed)
    p = Params.random(cell, d_in, d, seed=seed, nonlinearity=nl, variant=variant, scale=0.8)
    g = p.n_gates * d
    p = p.replace(bias_ih=rng.normal(0, 0.3, g), bias_hh=rng.normal(0, 0.3, g))
    return p, rng.normal(size=(B, T, d_in)), rng.normal(size=(B, T, d))


@pytest.mark.parametrize(("cell", "nl", "variant"), CASES, ids=IDS)
@pytest.mark.parametrize("d", [1, 3, 5])
def test_batch_trace_equals_per_sequence_traces(cell, nl, variant, d):
    p, x, grad_out = _batch_case(cell, nl, variant, d=d, seed=d)
    out = batch_trace(p, x, grad_out)
    sums = {k: 0.0 for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}
    for b in range(x.shape[0]):
        tr = trace(p, x[b], grad_out=grad_out[b], grad_hT=np.zeros(d))
        np.testing.assert_allclose(out["h"][b], tr.h, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(out["grad_h"][b], tr.grad_h, rtol=1e-12, atol=1e-14)
        if cell == "lstm":
            np.testing.assert_allclose(out["c"][b], tr.c, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(out["grad_c"][b], tr.grad_c, rtol=1e-12, atol=1e-14)
        if tr.gates is not None:
            np.testing.assert_allclose(out["gates"][b], tr.gates, rtol=1e-12, atol=1e-14)
        for k in sums:
            sums[k] = sums[k] + getattr(tr, f"grad_{k}")
    for k, total in sums.items():
        np.testing.assert_allclose(out[f"grad_{k}"], total, rtol=1e-11, atol=1e-13, err_msg=k)
    assert (out["c"] is None) == (cell != "lstm")
    assert (out["gates"] is None) == (cell == "rnn")


@pytest.mark.parametrize(("cell", "nl", "variant"), CASES, ids=IDS)
def test_batch_forward_equals_forward(cell, nl, variant):
    p, x, _ = _batch_case(cell, nl, variant)
    h, c, gates = batch_forward(p, x)
    for b in range(x.shape[0]):
        hb, cb = forward(p, x[b])
        np.testing.assert_allclose(h[b], hb, rtol=1e-12, atol=1e-14)
        if cell == "lstm":
            np.testing.assert_allclose(c[b], cb, rtol=1e-12, atol=1e-14)
    assert (gates is None) == (cell == "rnn")


def test_batch_inputs_are_checked_with_a_sentence():
    p = Params.random("lstm", 3, 4)
    with pytest.raises(ValueError, match=r"\(B, T, 3\)"):
        batch_trace(p, np.zeros((5, 3)), np.zeros((5, 4)))
    with pytest.raises(ValueError, match="x has shape"):
        batch_forward(p, np.zeros((2, 5, 4)))
    with pytest.raises(ValueError, match="grad_out has shape"):
        batch_trace(p, np.zeros((2, 5, 3)), np.zeros((2, 5, 3)))
    with pytest.raises(ValueError, match="non-finite"):
        batch_trace(p, np.full((2, 5, 3), np.nan), np.zeros((2, 5, 4)))


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_batch_trace_equals_torch_autograd(cell):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    make = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[cell]
    module = make(3, 6, batch_first=True, dtype=torch.float64)
    sd = {k: v.detach().numpy() for k, v in module.state_dict().items()}
    p = Params(cell, sd["weight_ih_l0"], sd["weight_hh_l0"], sd["bias_ih_l0"], sd["bias_hh_l0"],
               variant="pytorch" if cell == "gru" else "textbook")  # fmt: skip
    rng = np.random.default_rng(1)
    x, grad_out = rng.normal(size=(4, 9, 3)), rng.normal(size=(4, 9, 6))
    out_t, _ = module(torch.tensor(x))
    (out_t * torch.tensor(grad_out)).sum().backward()
    out = batch_trace(p, x, grad_out)
    np.testing.assert_allclose(out["h"], out_t.detach().numpy(), rtol=1e-10, atol=1e-12)
    for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        want = getattr(module, f"{name}_l0").grad.numpy()
        np.testing.assert_allclose(out[f"grad_{name}"], want, rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_backward_reuses_the_recorded_forward(cell):
    p = Params.random(cell, 3, 5, seed=2)
    rng = np.random.default_rng(3)
    x, grad_out = rng.normal(size=(4, 7, 3)), rng.normal(size=(4, 7, 5))
    record = batch_record(p, x)
    out = batch_backward(record, grad_out)
    assert out["h"] is record.h  # the forward's states, not a second forward pass
    want = batch_trace(p, x, grad_out)
    for key, value in want.items():
        if value is None:
            assert out[key] is None, key
        else:
            np.testing.assert_array_equal(out[key], value, err_msg=key)
    h, c, gates = batch_forward(p, x)
    np.testing.assert_array_equal(record.h, h)
    with pytest.raises(ValueError, match="grad_out has shape"):
        batch_backward(record, np.zeros((4, 7, 4)))
