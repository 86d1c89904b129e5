"""Properties of traces (ranges, shapes), the overflow report, forward/step consistency."""

from __future__ import annotations

import numpy as np
import pytest
from core_cases import CASES, IDS, make_case
from hypothesis import given, settings
from hypothesis import strategies as st

from seqviz.core import Params, forward, step, trace

cells = st.sampled_from(CASES)


@pytest.mark.slow  # a fuzz run (hypothesis)
@settings(max_examples=40, deadline=None)
@given(
    case=cells,
    d_in=st.integers(1, 5),
    d=st.integers(1, 6),
    T=st.integers(1, 12),
    seed=st.integers(0, 2**31),
    scale=st.floats(0.0, 5.0),
)
def test_ranges_and_shapes(case, d_in, d, T, seed, scale):
    cell, nl, variant = case
    p = Params.random(cell, d_in, d, seed=seed, nonlinearity=nl, variant=variant, scale=scale)
    x = np.random.default_rng(seed).normal(0, 3, (T, d_in))
    tr = trace(p, x)
    G = p.n_gates
    assert tr.h.shape == tr.grad_h.shape == (T, d)
    assert tr.grad_x.shape == x.shape
    assert tr.grad_weight_ih.shape == p.weight_ih.shape
    assert tr.grad_weight_hh.shape == p.weight_hh.shape
    assert tr.grad_bias_ih.shape == tr.grad_bias_hh.shape == (G * d,)
    assert tr.grad_h0.shape == tr.grad_c0.shape == (d,)
    assert tr.grad_norms().shape == (T,)
    if cell == "rnn":
        assert tr.gates is None and tr.c is None and tr.grad_c is None
        if nl == "tanh":
            assert np.all(np.abs(tr.h) <= 1)
        if nl == "relu":
            assert np.all(tr.h >= 0)
    else:
        assert tr.gates.shape == (T, G, d)
        sig = [0, 1, 3] if cell == "lstm" else [0, 1]
        tanh = [2]
        # Gates are sigmoids: inside (0, 1) (they may round to the ends in float64 at large input).
        assert np.all((tr.gates[:, sig] >= 0) & (tr.gates[:, sig] <= 1))
        assert np.all(np.abs(tr.gates[:, tanh]) <= 1)
        assert np.all(np.abs(tr.h) <= 1)
    if cell == "lstm":
        assert tr.c.shape == tr.grad_c.shape == (T, d)
    assert tr.overflow is None


def test_gates_strictly_inside_unit_interval_for_moderate_inputs():
    p = Params.random("lstm", 3, 8, seed=1, scale=1.0)
    tr = trace(p, np.random.default_rng(1).normal(size=(50, 3)))
    sig = tr.gates[:, [0, 1, 3]]
    assert np.all((sig > 0) & (sig < 1))


def test_default_loss_is_sum_of_last_state_over_sqrt_d():
    p = Params.random("gru", 2, 9, seed=4)
    tr = trace(p, np.ones((5, 2)))
    np.testing.assert_allclose(tr.grad_h[-1], np.ones(9) / 3.0)
    assert tr.grad_norms()[0] == pytest.approx(1.0)


def test_grad_norms_count_steps_back():
    p = Params.random("rnn", 2, 4, seed=0)
    tr = trace(p, np.ones((6, 2)))
    np.testing.assert_allclose(tr.grad_norms(), np.linalg.norm(tr.grad_h, axis=1)[::-1])


@pytest.mark.parametrize(("cell", "nl", "variant"), CASES, ids=IDS)
def test_forward_and_step_agree_with_trace(cell, nl, variant):
    p, x, h0, c0, _, _ = make_case(cell, nl, variant, T=5)
    tr = trace(p, x, h0, c0)
    h, c = forward(p, x, h0, c0)
    np.testing.assert_allclose(h, tr.h, rtol=1e-13, atol=1e-14)
    # A batch of 5 independent steps, each from the true previous state.
    hp = np.vstack([h0, tr.h[:-1]])
    cp = np.vstack([c0, tr.c[:-1]]) if cell == "lstm" else None
    hs, cs = step(p, x, hp, cp)
    np.testing.assert_allclose(hs, tr.h, rtol=1e-12, atol=1e-14)
    if cell == "lstm":
        np.testing.assert_allclose(c, tr.c, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(cs, tr.c, rtol=1e-12, atol=1e-14)
    else:
        assert c is None and cs is None


def test_linear_rnn_overflow_is_reported_not_raised():
    p = Params.random("rnn", 4, 32, seed=0, spectral_radius=3.0, nonlinearity="linear")
    x = np.random.default_rng(0).normal(size=(1000, 4))
    tr = trace(p, x)
    assert tr.overflow is not None
    assert tr.overflow.phase == "forward" and tr.overflow.what == "h"
    t = tr.overflow.step
    # 3^t growth passes float64's 1.8e308 after ~650 steps.
    assert 500 < t < 800
    assert np.isfinite(tr.h[t - 1]).all() and not np.isfinite(tr.h[t]).all()
    assert not np.isfinite(tr.h[-1]).all()  # the arrays keep their inf/nan
    assert "step" in tr.overflow.describe()


def test_backward_only_overflow_reports_backward_phase():
    # tanh keeps the states bounded while the gradient of a radius-3 network (small inputs, units
    # unsaturated) grows by about 3 per step back.
    p = Params.random("rnn", 1, 16, seed=2, spectral_radius=3.0)
    tr = trace(p, np.zeros((1000, 1)))
    assert np.isfinite(tr.h).all()
    assert tr.overflow is not None and tr.overflow.phase == "backward"
    assert tr.overflow.what == "grad_h"
    t = tr.overflow.step
    assert np.isfinite(tr.grad_h[t + 1 :]).all() and not np.isfinite(tr.grad_h[t]).all()


def test_lstm_and_gru_large_values_do_not_crash():
    for cell in ("lstm", "gru"):
        p = Params.random(cell, 2, 8, seed=0, scale=1e3)
        tr = trace(p, np.random.default_rng(0).normal(0, 1e3, (200, 2)))
        assert tr.h.shape == (200, 8)
        assert np.all(np.abs(tr.h[np.isfinite(tr.h)]) <= 1)
