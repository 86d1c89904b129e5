"""The public wrappers reject bad input with one ValueError sentence before any jitted code."""

from __future__ import annotations

import numpy as np
import pytest

import seqviz
from seqviz.core import Params, Trace, forward, step, trace

P = Params.random("lstm", 3, 4, seed=0)


def test_lazy_top_level_api():
    assert seqviz.Params is Params and seqviz.Trace is Trace and seqviz.trace is trace


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(x=np.zeros((5, 2))), r"x has shape \(5, 2\), expected \(5, 3\)"),
        (dict(x=np.zeros(3)), r"expected \(T, 3\)"),
        (dict(x=np.zeros((0, 3))), "T >= 1"),
        (dict(x=[[0, 1, "a"]]), "x must be an array of numbers"),
        (dict(x=np.full((2, 3), np.nan)), "x contains non-finite"),
        (dict(h0=np.zeros(5)), r"h0 has shape \(5,\), expected \(4,\)"),
        (dict(c0=np.array([0, 0, np.inf, 0])), "c0 contains non-finite"),
        (dict(grad_hT=np.zeros(3)), "grad_hT has shape"),
        (dict(grad_out=np.zeros((4, 4))), r"grad_out has shape \(4, 4\), expected \(2, 4\)"),
    ],
)
def test_trace_bad_input(kwargs, match):
    args = dict(params=P, x=np.zeros((2, 3))) | kwargs
    with pytest.raises(ValueError, match=match):
        trace(**args)


def test_params_type_and_c0_for_non_lstm():
    with pytest.raises(ValueError, match="must be a seqviz Params"):
        trace({"cell": "rnn"}, np.zeros((2, 3)))
    gru = Params.random("gru", 3, 4, seed=0)
    with pytest.raises(ValueError, match="c0 is only used by the lstm"):
        trace(gru, np.zeros((2, 3)), c0=np.zeros(4))
    with pytest.raises(ValueError, match="c0 is only used by the lstm"):
        forward(gru, np.zeros((2, 3)), c0=np.zeros(4))


def test_step_bad_input():
    with pytest.raises(ValueError, match="needs the cell state c"):
        step(P, np.zeros((2, 3)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"h has shape \(3, 4\), expected \(2, 4\)"):
        step(P, np.zeros((2, 3)), np.zeros((3, 4)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="batch"):
        step(P, np.zeros(3), np.zeros((1, 4)), np.zeros((1, 4)))
    # x must be as wide as the cell's input, not merely consistent with itself
    for width in (2, 5):
        with pytest.raises(ValueError, match=rf"x has shape \(2, {width}\), expected \(2, 3\)"):
            step(P, np.zeros((2, width)), np.zeros((2, 4)), np.zeros((2, 4)))


def test_grad_out_alone_replaces_default_loss():
    x = np.random.default_rng(0).normal(size=(4, 3))
    g = np.zeros((4, 4))
    g[-1] = 1.0
    tr = trace(P, x, grad_out=g)
    np.testing.assert_allclose(tr.grad_h[-1], 1.0)
    both = trace(P, x, grad_out=g, grad_hT=np.ones(4))
    np.testing.assert_allclose(both.grad_h[-1], 2.0)


def test_trace_is_read_only_and_round_trips(tmp_path):
    x = np.random.default_rng(0).normal(size=(6, 3))
    tr = trace(P, x, h0=np.full(4, 0.1), c0=np.full(4, -0.2))
    with pytest.raises(ValueError):
        tr.h[0, 0] = 1.0
    path = tmp_path / "t.npz"
    tr.save(path)
    with np.load(path) as f:
        keys = set(f.files)
    assert {
        "h",
        "c",
        "gates",
        "grad_h",
        "grad_c",
        "x",
        "h0",
        "c0",
        "weight_ih",
        "weight_hh",
        "bias_ih",
        "bias_hh",
        "cell",
        "nonlinearity",
        "variant",
        "grad_weight_hh",
    } <= keys
    back = Trace.load(path)
    assert back.params.cell == "lstm" and back.overflow is None
    for name in ("h", "c", "gates", "grad_h", "grad_c", "grad_weight_ih", "grad_x", "grad_c0"):
        np.testing.assert_array_equal(getattr(back, name), getattr(tr, name))


def test_overflow_survives_save_load(tmp_path):
    p = Params.random("rnn", 1, 8, seed=0, spectral_radius=3.0, nonlinearity="linear")
    tr = trace(p, np.ones((900, 1)))
    assert tr.overflow is not None
    tr.save(tmp_path / "o.npz")
    back = Trace.load(tmp_path / "o.npz")
    assert back.overflow == tr.overflow
    assert back.params.nonlinearity == "linear"


def test_trace_load_rejects_other_files(tmp_path):
    np.savez(tmp_path / "x.npz", a=np.zeros(2))
    with pytest.raises(ValueError, match="not a seqviz trace"):
        Trace.load(tmp_path / "x.npz")


def test_trace_load_rejects_a_plain_array(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros(3))
    with pytest.raises(ValueError, match="single array"):
        Trace.load(tmp_path / "a.npy")
