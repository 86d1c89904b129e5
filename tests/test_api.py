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


def _overflow_entry_by_entry(fields):
    """find_overflow as it was before its fast paths: every check entry by entry."""
    from seqviz.core.trace import Overflow, row_norms

    def first_bad(arr, last=False):
        if arr is None:
            return None
        rows = np.flatnonzero(~np.isfinite(arr.reshape(arr.shape[0], -1)).all(axis=1))
        return None if rows.size == 0 else int(rows[-1] if last else rows[0])

    found = [Overflow(t, "forward", n) for n in ("h", "c", "gates")
             if (t := first_bad(fields[n])) is not None]  # fmt: skip
    if found:
        return min(found, key=lambda o: o.step)
    found = [Overflow(t, "backward", n) for n in ("grad_h", "grad_c")
             if (t := first_bad(fields[n], last=True)) is not None]  # fmt: skip
    if found:
        return max(found, key=lambda o: o.step)
    bad = np.flatnonzero(~np.isfinite(row_norms(fields["grad_h"])))
    if bad.size:
        return Overflow(int(bad[-1]), "backward", "|grad_h|")
    for name in ("grad_weight_hh", "grad_weight_ih", "grad_bias_hh", "grad_bias_ih", "grad_x"):
        if not np.isfinite(fields[name]).all():
            return Overflow(0, "backward", name)
    return None


def test_find_overflow_fast_paths_find_what_checking_every_entry_finds():
    """A finite sum skips the entry-by-entry check; huge finite entries (whose sum overflows),
    inf, -inf with inf, nan, and norms that overflow from finite entries still land where the
    entry-by-entry check puts them."""
    import warnings

    from seqviz.core.api import find_overflow

    rng = np.random.default_rng(5)
    names = ("h", "c", "gates", "grad_h", "grad_c", "grad_weight_hh", "grad_weight_ih",
             "grad_bias_hh", "grad_bias_ih", "grad_x")  # fmt: skip
    shapes = {"gates": (6, 3, 4), "grad_weight_hh": (12, 4), "grad_weight_ih": (12, 2),
              "grad_bias_hh": (12,), "grad_bias_ih": (12,), "grad_x": (6, 2)}  # fmt: skip
    specials = (np.inf, -np.inf, np.nan, 1e308, -1e308, 1e200, 1e160)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the fast paths warn about nothing
        for _ in range(400):
            fields = {n: rng.normal(size=shapes.get(n, (6, 4))) for n in names}
            if rng.random() < 0.2:
                fields["c"] = None
            for _ in range(int(rng.integers(0, 4))):
                name = names[int(rng.integers(len(names)))]
                if fields[name] is None:
                    continue
                flat = fields[name].reshape(-1)
                flat[int(rng.integers(flat.size))] = specials[int(rng.integers(len(specials)))]
            if rng.random() < 0.1:  # every entry huge and finite: the sum (or a norm) overflows
                fields["grad_h"] = np.full((6, 4), (1e307, 1.5e308)[int(rng.integers(2))])
            with np.errstate(all="ignore"):
                expected = _overflow_entry_by_entry(fields)
            assert find_overflow(fields) == expected
