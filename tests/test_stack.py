"""trace_stack without torch: finite differences, one-layer equality with trace, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from seqviz.core import Params, StackParams, trace, trace_stack
from seqviz.core.stack import forward_stack


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
@pytest.mark.parametrize("bi", [False, True])
def test_gradients_match_finite_differences(cell, bi):
    p = StackParams.random(cell, 2, 3, num_layers=2, bidirectional=bi, seed=1, scale=0.9)
    rng = np.random.default_rng(2)
    T, D = 5, 2 if bi else 1
    x, g_out = rng.normal(size=(T, 2)), rng.normal(size=(T, D * 3))

    def loss(params, xx):
        return float((trace_stack(params, xx, grad_out=g_out).h * g_out).sum())

    tr = trace_stack(p, x, grad_out=g_out)
    eps = 1e-6
    for name, grad in tr.grads().items():
        layer, k = int(name.split("_l")[1][0]), int(name.endswith("_reverse"))
        cell_p = p.layer(layer, k)
        field = name.split("_l")[0]
        w = getattr(cell_p, field)
        for idx in [(0,) * w.ndim, tuple(s - 1 for s in w.shape)]:

            def shifted(delta, w=w, idx=idx, layer=layer, k=k, cell_p=cell_p, field=field):
                arr = w.copy()
                arr[idx] += delta
                cells = list(p.cells)
                cells[layer * D + k] = cell_p.replace(**{field: arr})
                return StackParams(tuple(cells), p.num_layers, p.bidirectional)

            num = (loss(shifted(eps), x) - loss(shifted(-eps), x)) / (2 * eps)
            assert grad[idx] == pytest.approx(num, rel=1e-5, abs=1e-7), name
    for t in (0, T - 1):
        dx = np.zeros_like(x)
        dx[t, 1] = eps
        num = (loss(p, x + dx) - loss(p, x - dx)) / (2 * eps)
        assert tr.grad_x[t, 1] == pytest.approx(num, rel=1e-5, abs=1e-7)


def test_one_layer_stack_is_the_plain_trace():
    p = Params.random("lstm", 3, 4, seed=0)
    x = np.random.default_rng(0).normal(size=(6, 3))
    st, tr = trace_stack(p, x), trace(p, x)
    np.testing.assert_array_equal(st.h, tr.h)
    np.testing.assert_array_equal(st.grads()["weight_hh_l0"], tr.grad_weight_hh)


def test_reverse_direction_reads_right_to_left():
    p = StackParams.random("gru", 2, 3, bidirectional=True, seed=0)
    x = np.random.default_rng(1).normal(size=(5, 2))
    st = trace_stack(p, x)
    # The reverse cell's state at the last step has seen only the last input.
    alone = trace(p.layer(0, "reverse"), x[-1:])
    np.testing.assert_allclose(st.states(0, "reverse")[-1], alone.h[0])
    np.testing.assert_allclose(st.h[:, 3:], st.states(0, 1))
    assert st.gates(0, 1).shape == (5, 3, 3)


def _state(p):
    return {k: v for k, v in p.to_dict().items() if k.startswith(("weight", "bias"))}


def test_bad_state_dicts_are_named_in_one_sentence():
    p = StackParams.random("lstm", 2, 3, num_layers=3, bidirectional=True, seed=0)
    state = _state(p)
    missing = {k: v for k, v in state.items() if not k.endswith("_l1")}
    with pytest.raises(ValueError, match=r"lack weight_ih_l1: a 3-layer bidirectional"):
        StackParams.from_state_dict(missing)
    no_rev = {k: v for k, v in state.items() if k != "weight_hh_l2_reverse"}
    with pytest.raises(ValueError, match=r"weight_hh_l2_reverse"):
        StackParams.from_state_dict(no_rev)
    bad = dict(state, weight_ih_l1=np.zeros((12, 3)))
    with pytest.raises(ValueError, match=r"weight_ih_l1 has shape \(12, 3\).*needs \(12, 6\)"):
        StackParams.from_state_dict(bad)
    with pytest.raises(ValueError, match=r"weight_hr_l0"):
        StackParams.from_state_dict(dict(state, weight_hr_l0=np.zeros((2, 3))))
    for reader in (StackParams.from_state_dict, Params.from_state_dict):  # one helper, one text
        with pytest.raises(ValueError, match="hold no weight_ih_l0: expected the state_dict"):
            reader({"fc.weight": np.zeros((2, 2))})


def test_bad_input_and_selection():
    p = StackParams.random("rnn", 2, 3, num_layers=2, seed=0)
    with pytest.raises(ValueError, match=r"x has shape \(4, 3\), expected \(4, 2\)"):
        trace_stack(p, np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"grad_out has shape"):
        trace_stack(p, np.zeros((4, 2)), grad_out=np.zeros((4, 6)))
    with pytest.raises(ValueError, match="layers 0-1"):
        p.layer(2)
    with pytest.raises(ValueError, match="bidirectional"):
        p.layer(0, "reverse")
    with pytest.raises(ValueError, match="c0 is only used by the lstm"):
        trace_stack(p, np.zeros((4, 2)), c0=np.zeros((2, 3)))


def test_overflow_names_the_layer():
    p = StackParams.random("rnn", 1, 2, num_layers=2, seed=0, nonlinearity="relu", scale=1e200)
    st = trace_stack(p, np.full((30, 1), 1e200))
    assert st.overflow is not None and "layer" in st.overflow.describe()


def test_save_writes_per_layer_states(tmp_path):
    p = StackParams.random("lstm", 2, 3, num_layers=2, bidirectional=True, seed=0)
    st = trace_stack(p, np.ones((4, 2)))
    data = np.load(st.save(tmp_path / "s.npz"))
    assert data["h"].shape == (4, 6) and data["c_l1_reverse"].shape == (4, 3)
    assert bool(data["bidirectional"]) and int(data["num_layers"]) == 2


def test_export_of_a_random_stack(tmp_path, capsys):
    from seqviz.cli import main

    out = tmp_path / "t.npz"
    args = ["export", "--cell", "gru", "--layers", "2", "--bidirectional", "--hidden", "4"]
    assert main([*args, "--steps", "5", "--out", str(out)]) == 0
    assert "2-layer bidirectional gru" in capsys.readouterr().out
    data = np.load(out)
    assert data["h"].shape == (5, 8) and data["h_l1_reverse"].shape == (5, 4)
    assert main(["export", "--cell", "gru", "--layers", "0", "--out", str(out)]) == 2
    assert "--layers must be from 1 to" in capsys.readouterr().err


@pytest.mark.parametrize("bi", [True, False])
def test_default_loss_is_the_last_top_output_summed_over_sqrt_of_its_width(bi):
    """Without grad_out or grad_hn the loss is sum(top output at the last step) / sqrt(D*d):
    for a bidirectional stack the top output is 2d wide, so the scale is 1/sqrt(2d), not
    1/sqrt(d). Checked by finite differences of that loss, computed from the forward pass."""
    d, D = 3, 2 if bi else 1
    p = StackParams.random("gru", 2, d, num_layers=2, bidirectional=bi, seed=4)
    x = np.random.default_rng(5).normal(size=(4, 2))

    def loss(params, xx):
        return float(forward_stack(params, xx)[-1].sum()) / np.sqrt(D * d)

    tr = trace_stack(p, x)
    eps = 1e-6
    for t, i in ((0, 0), (2, 1), (3, 0)):
        dx = np.zeros_like(x)
        dx[t, i] = eps
        num = (loss(p, x + dx) - loss(p, x - dx)) / (2 * eps)
        assert tr.grad_x[t, i] == pytest.approx(num, rel=1e-6, abs=1e-9), (t, i)
    w = p.layer(0).weight_hh
    cells = list(p.cells)

    def with_w(delta):
        arr = w.copy()
        arr[1, 2] += delta
        cells[0] = p.layer(0).replace(weight_hh=arr)
        return StackParams(tuple(cells), p.num_layers, p.bidirectional)

    num = (loss(with_w(eps), x) - loss(with_w(-eps), x)) / (2 * eps)
    assert tr.grads()["weight_hh_l0"][1, 2] == pytest.approx(num, rel=1e-6, abs=1e-9)


def test_the_first_overflow_computed_is_the_one_named():
    """Several cells overflow: the forward pass runs bottom-up, so the lowest layer's forward
    overflow came first (and beats any backward one); the backward pass runs top-down, so
    without a forward overflow the top layer's is named."""
    p = StackParams.random("rnn", 1, 2, num_layers=3, bidirectional=True, seed=0,
                           nonlinearity="relu", scale=1e200)  # fmt: skip
    st = trace_stack(p, np.full((6, 1), 1e200))
    phases = [(i // 2, c.overflow.phase) for i, c in enumerate(st.cells) if c.overflow]
    assert {(1, "backward"), (2, "forward")} <= set(phases) and phases[0] == (0, "forward")
    assert (st.overflow.layer, st.overflow.direction) == (0, 0)
    assert st.overflow.overflow.phase == "forward"
    assert st.overflow.describe().startswith("layer 0: h became non-finite at step 0 of the fo")

    # only layer 0's reverse cell blows up forward; the layer above then overflows backward
    small = StackParams.random("rnn", 1, 2, num_layers=2, bidirectional=True, seed=0,
                               nonlinearity="relu", scale=0.5)  # fmt: skip
    c = small.cells[1]
    cells = list(small.cells)
    cells[1] = c.replace(weight_ih=np.abs(c.weight_ih) * 1e200 + 1e200,
                         weight_hh=np.abs(c.weight_hh) * 1e200 + 1e200)  # fmt: skip
    st = trace_stack(StackParams(tuple(cells), 2, True), np.full((5, 1), 1e150))
    assert [c.overflow.phase if c.overflow else None for c in st.cells] == [
        None, "forward", "backward", "backward"
    ]  # fmt: skip
    assert (st.overflow.layer, st.overflow.direction) == (0, 1)
    assert st.overflow.describe().startswith("layer 0 (reverse): h became non-finite at step 0")

    p = StackParams.random("rnn", 1, 2, num_layers=3, bidirectional=True, seed=0)
    st = trace_stack(p, np.ones((6, 1)), grad_out=np.full((6, 4), 1e308))
    assert np.isfinite(st.h).all()
    layers = {i // 2 for i, c in enumerate(st.cells) if c.overflow}
    assert layers == {1, 2}
    assert all(c.overflow.phase == "backward" for c in st.cells if c.overflow)
    assert st.overflow.layer == 2 and st.overflow.overflow.phase == "backward"
    assert st.cells[2 * 2 + st.overflow.direction].overflow is st.overflow.overflow
