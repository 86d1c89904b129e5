"""The lesson's two experiments, computed on the seqviz core, print the lesson's digits."""

from __future__ import annotations

import numpy as np
import pytest

from seqviz.core import trace
from seqviz.experiments import (
    lesson_rnn,
    lesson_spectrum,
    memory,
    vanishing,
    vanishing_row,
)

# Acceptance data: the numbers the lesson's code prints (lesson 002).
LESSON_VANISHING = {
    0.8: (["6.5e-01", "6.7e-03", "5.9e-07", "3.5e-13"], "9.7e-07"),
    1.0: (["7.8e-01", "6.1e-02", "8.5e-05", "9.5e-09"], "2.2e-01"),
    1.2: (["9.4e-01", "2.0e-01", "2.2e-03", "1.4e-05"], "2.2e+04"),
}
LESSON_RNN_MEMORY = {0.9: "1.48e-05", 1.5: "0.859"}
LESSON_LSTM_MEMORY = {
    2.0: ("0.88080", "0.000"),
    5.0: ("0.99331", "0.487"),
    10.0: ("0.99995", "0.942"),
}


def test_vanishing_reproduces_the_lesson():
    result = vanishing()
    assert [r.rho for r in result.rows] == [0.8, 1.0, 1.2]
    for row in result.rows:
        assert row.ks == (1, 10, 30, 59)
        norms, linear = LESSON_VANISHING[row.rho]
        assert [f"{v:.1e}" for v in row.norms] == norms
        assert f"{row.linear_norm:.1e}" == linear
        assert row.overflow is None
        assert len(row.grad_norms) == 60 and row.grad_norms[0] == pytest.approx(1.0)


def test_a_row_from_the_gradient_norms_alone_is_the_row_from_whole_traces():
    """A row from the dL/dh recursion alone (the app's lesson table) against one that traces
    both networks: the lesson's rows, and a smaller network that does not start at draw 0."""
    other = {"hidden": 9, "steps": 25, "seed": 3, "input_scale": 1.5, "draw": 1}
    for rho, kwargs in [(0.8, {}), (1.0, {"draw": 1}), (1.2, {"draw": 2}), (1.7, other)]:
        fast = vanishing_row(rho, **kwargs, norms_only=True)
        full = vanishing_row(rho, **kwargs)
        assert (fast.rho, fast.ks, fast.overflow) == (full.rho, full.ks, full.overflow)
        np.testing.assert_allclose(fast.grad_norms, full.grad_norms, rtol=1e-12, atol=0)
        np.testing.assert_allclose(fast.norms, full.norms, rtol=1e-12, atol=0)
        assert fast.linear_norm == pytest.approx(full.linear_norm, rel=1e-12, abs=0)
        if rho in LESSON_VANISHING:
            norms, linear = LESSON_VANISHING[rho]
            assert [f"{v:.1e}" for v in fast.norms] == norms
            assert f"{fast.linear_norm:.1e}" == linear


def test_memory_reproduces_the_lesson():
    result = memory()
    assert {r.w: (f"{r.h_final:.2e}" if r.w < 1 else f"{r.h_final:.3f}") for r in result.rnn} == (
        LESSON_RNN_MEMORY
    )
    got = {m.forget_bias: (f"{m.forget_gate:.5f}", f"{m.c_final:.3f}") for m in result.lstm}
    assert got == LESSON_LSTM_MEMORY


def test_lesson_rnn_draw_index_follows_the_lesson_order():
    """The i-th network of a list does not depend on the other radii in it."""
    p2, x2 = lesson_rnn(1.2, draw=2)
    assert np.array_equal(p2.weight_ih, np.eye(64)) and np.all(p2.bias_hh == 0)
    assert np.max(np.abs(np.linalg.eigvals(p2.weight_hh))) == pytest.approx(1.2)
    assert x2.shape == (60, 64)
    norms = trace(p2, x2).grad_norms()
    assert [f"{norms[k]:.1e}" for k in (1, 10, 30, 59)] == LESSON_VANISHING[1.2][0]
    p_other, x_other = lesson_rnn(0.3, draw=2)
    assert np.array_equal(x_other, x2)
    np.testing.assert_allclose(p_other.weight_hh * 4, p2.weight_hh)


def test_lesson_spectrum_is_the_eigenvalues_of_the_scaled_matrix():
    p, _ = lesson_rnn(0.9, hidden=16, steps=20, seed=5, draw=1)
    got = np.sort_complex(lesson_spectrum(0.9, hidden=16, steps=20, seed=5, draw=1))
    want = np.sort_complex(np.linalg.eigvals(p.weight_hh))
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert np.max(np.abs(got)) == pytest.approx(0.9)
    # cached draws are shared, but callers cannot change them
    _, x = lesson_rnn(0.9, hidden=16, steps=20, seed=5, input_scale=1.0, draw=1)
    before = x.copy()
    x[0, 0] += 1.0
    _, again = lesson_rnn(0.9, hidden=16, steps=20, seed=5, input_scale=1.0, draw=1)
    np.testing.assert_array_equal(again, before)


def test_options_change_the_result_and_overflow_is_reported():
    result = vanishing([0.5, 1.5], hidden=16, steps=30, seed=3)
    assert result.rows[0].ks == (1, 10, 29)
    assert result.rows[0].norms[-1] < result.rows[1].norms[-1]
    big = vanishing([3.0], hidden=16, steps=1000)
    assert big.rows[0].overflow and "linear" in big.rows[0].overflow
    as_json = big.to_dict()
    assert as_json["rows"][0]["linear_norm"] in ("nan", "inf")


def test_bad_experiment_input():
    with pytest.raises(ValueError, match="hidden must be an integer >= 1"):
        vanishing(hidden=0)
    with pytest.raises(ValueError, match="spectral radius"):
        vanishing([float("nan")])
    with pytest.raises(ValueError, match="at least one"):
        vanishing([])
    with pytest.raises(ValueError, match="steps"):
        memory(steps=0)
