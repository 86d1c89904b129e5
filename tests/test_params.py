"""Params: construction, validation, random initialisation, .npz save/load, replace."""

from __future__ import annotations

import numpy as np
import pytest

from seqviz.core import Params


@pytest.mark.parametrize(("cell", "G"), [("rnn", 1), ("lstm", 4), ("gru", 3)])
def test_random_shapes_and_counts(cell, G):
    p = Params.random(cell, 3, 5, seed=0)
    assert p.weight_ih.shape == (G * 5, 3) and p.weight_hh.shape == (G * 5, 5)
    assert p.bias_ih.shape == p.bias_hh.shape == (G * 5,)
    assert (p.input_size, p.hidden_size, p.n_gates) == (3, 5, G)
    assert p.n_params == G * 5 * (3 + 5 + 2)
    assert p.weight_ih.dtype == np.float64
    assert not p.weight_hh.flags.writeable


def test_random_is_seeded():
    a = Params.random("gru", 2, 4, seed=7)
    b = Params.random("gru", 2, 4, seed=7)
    c = Params.random("gru", 2, 4, seed=8)
    assert np.array_equal(a.weight_hh, b.weight_hh)
    assert not np.array_equal(a.weight_hh, c.weight_hh)


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_spectral_radius_sets_each_recurrent_block(cell):
    p = Params.random(cell, 2, 6, seed=1, spectral_radius=1.3)
    d = 6
    for b in range(p.n_gates):
        block = p.weight_hh[b * d : (b + 1) * d]
        assert np.max(np.abs(np.linalg.eigvals(block))) == pytest.approx(1.3)


def test_forget_bias_goes_to_lstm_forget_rows():
    p = Params.random("lstm", 2, 3, seed=0, forget_bias=2.5)
    np.testing.assert_array_equal(p.bias_ih[3:6], 2.5)
    assert np.all(p.bias_ih[:3] == 0) and np.all(p.bias_ih[6:] == 0)


@pytest.mark.parametrize(
    ("cell", "nl", "variant"), [("rnn", "relu", "textbook"), ("lstm", "tanh", "textbook"),
                                ("gru", "tanh", "pytorch")]
)  # fmt: skip
def test_npz_round_trip_uses_pytorch_key_names(tmp_path, cell, nl, variant):
    p = Params.random(cell, 2, 3, seed=0, nonlinearity=nl, variant=variant)
    path = tmp_path / "m.npz"
    p.save(path)
    with np.load(path) as f:
        assert {"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"} <= set(f.files)
    q = Params.load(path)
    assert (q.cell, q.nonlinearity, q.variant) == (cell, nl, variant)
    for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        np.testing.assert_array_equal(getattr(q, name), getattr(p, name))
    assert not list(tmp_path.glob("*.tmp"))


def test_load_infers_cell_without_metadata(tmp_path):
    p = Params.random("lstm", 2, 3, seed=0)
    np.savez(tmp_path / "bare.npz", weight_ih_l0=p.weight_ih, weight_hh_l0=p.weight_hh)
    q = Params.load(tmp_path / "bare.npz")
    assert q.cell == "lstm" and np.all(q.bias_ih == 0)


def test_from_arrays_defaults_biases_to_zero_and_copies():
    w = np.eye(2)
    p = Params.from_arrays("rnn", w, w)
    w[0, 0] = 5.0
    assert p.weight_ih[0, 0] == 1.0
    assert np.all(p.bias_hh == 0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(cell="cnn"), "unknown cell 'cnn'"),
        (dict(nonlinearity="sigmoid"), "unknown nonlinearity"),
        (dict(cell="gru", variant="keras"), "unknown GRU variant"),
        (dict(cell="lstm", nonlinearity="relu"), "rnn cell only"),
        (dict(cell="lstm", variant="pytorch"), "gru cell only"),
    ],
)
def test_bad_names_raise(kwargs, match):
    args = dict(cell="rnn", input_size=2, hidden_size=3, seed=0) | kwargs
    with pytest.raises(ValueError, match=match):
        Params.random(**args)


@pytest.mark.parametrize(("d_in", "d"), [(0, 3), (2, 0), (-1, 3), (2, 2.5)])
def test_sizes_below_one_raise(d_in, d):
    with pytest.raises(ValueError, match=">= 1"):
        Params.random("rnn", d_in, d, seed=0)


def test_bad_shapes_and_values_raise():
    with pytest.raises(ValueError, match="weight_hh has shape"):
        Params.from_arrays("lstm", np.zeros((4, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="weight_ih has shape"):
        Params.from_arrays("rnn", np.zeros((3, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="bias_ih has shape"):
        Params.from_arrays("rnn", np.zeros((2, 2)), np.zeros((2, 2)), np.zeros(3))
    w = np.eye(2)
    w[1, 1] = np.nan
    with pytest.raises(ValueError, match="weight_hh contains non-finite"):
        Params.from_arrays("rnn", np.eye(2), w)
    with pytest.raises(ValueError, match="spectral_radius"):
        Params.random("rnn", 2, 2, seed=0, spectral_radius=float("inf"))


def test_replace_validates():
    p = Params.random("rnn", 2, 3, seed=0)
    assert p.replace(nonlinearity="relu").nonlinearity == "relu"
    with pytest.raises(ValueError, match="hidden size 2"):
        p.replace(weight_hh=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="non-finite"):
        p.replace(bias_hh=np.array([1.0, np.inf, 0.0]))


def test_refuses_multilayer_and_bidirectional_state_dicts():
    p = Params.random("gru", 2, 3, seed=0)
    base = dict(weight_ih_l0=p.weight_ih, weight_hh_l0=p.weight_hh)
    with pytest.raises(ValueError, match="load stacked or bidirectional networks with StackParams"):
        Params.from_state_dict(base | {"weight_ih_l1": p.weight_hh})
    with pytest.raises(ValueError, match="StackParams"):
        Params.from_state_dict(base | {"weight_ih_l0_reverse": p.weight_ih})
    with pytest.raises(ValueError, match="match no cell"):
        Params.from_state_dict(dict(weight_ih_l0=np.zeros((6, 2)), weight_hh_l0=np.zeros((6, 3))))


def test_load_rejects_non_npz_files(tmp_path):
    np.save(tmp_path / "w.npy", np.zeros(3))
    with pytest.raises(ValueError, match="single array"):
        Params.load(tmp_path / "w.npy")
    (tmp_path / "junk.npz").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="is not a weights file"):
        Params.load(tmp_path / "junk.npz")
    with pytest.raises(FileNotFoundError):
        Params.load(tmp_path / "missing.npz")


def test_pt_without_torch_says_so(tmp_path, monkeypatch):
    import sys

    (tmp_path / "m.pt").write_bytes(b"\x00")
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` fail
    with pytest.raises(ValueError, match="needs PyTorch, which is not installed"):
        Params.load(tmp_path / "m.pt")
