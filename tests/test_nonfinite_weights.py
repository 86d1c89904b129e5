"""Every loader of weights refuses a file whose weights hold nan or inf, in one sentence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import seqviz
from seqviz.cli import main
from seqviz.files import read_npz

DATA = Path(seqviz.__file__).parent / "data"
SHIPPED = sorted(p.name for p in DATA.glob("*.npz"))


def _float_keys(arrays):
    return [k for k, v in arrays.items() if v.dtype.kind == "f" and v.size]


def _spoilt(tmp_path, arrays, key, bad, name="m.npz"):
    arrays = {k: v.copy() for k, v in arrays.items()}
    arrays[key].reshape(-1)[arrays[key].size // 2] = bad
    path = tmp_path / name
    np.savez(path, **arrays)
    return path


def test_every_shipped_model_loads_as_it_is():
    from seqviz.models import load_file

    assert len(SHIPPED) >= 5
    for name in SHIPPED:
        load_file(DATA / name)  # the unspoilt files are read: the refusals below are the nan


@pytest.mark.parametrize("name", SHIPPED)
def test_a_nan_or_inf_in_any_weight_of_a_model_file_is_refused(tmp_path, name):
    from seqviz.models import load_file

    arrays = read_npz(DATA / name, "a model")
    keys = _float_keys(arrays)
    assert keys
    for key in keys:
        for bad in (np.nan, np.inf):
            path = _spoilt(tmp_path, arrays, key, bad)
            with pytest.raises(ValueError, match="nan or inf|inf or nan|non-finite") as info:
                load_file(path)
            message = str(info.value)
            assert key.removesuffix("_l0") in message, message
            assert "\n" not in message and len(message) < 300


def test_a_lagged_classifier_with_nan_is_refused(tmp_path):
    from seqviz.models import load_file
    from seqviz.models.lagged import LagClassifier

    model = LagClassifier("gru", 3, 4, 2)
    model.save(tmp_path / "lag.npz")
    load_file(tmp_path / "lag.npz")
    arrays = read_npz(tmp_path / "lag.npz", "a model")
    for key in _float_keys(arrays):
        with pytest.raises(ValueError, match="nan or inf|inf or nan|non-finite"):
            load_file(_spoilt(tmp_path, arrays, key, np.nan, "bad.npz"))


@pytest.mark.parametrize("stacked", [False, True])
def test_weights_files_with_nan_are_refused_by_params_and_stack_loaders(tmp_path, stacked):
    from seqviz.core import Params
    from seqviz.core.stack_params import StackParams
    from seqviz.models.registry import load_params

    if stacked:
        arrays = read_npz(DATA / "tagger_bi.npz", "a model")
        arrays = {k: v for k, v in arrays.items() if k.startswith(("weight", "bias"))}
        np.savez(tmp_path / "ok.npz", **arrays)
        StackParams.load(tmp_path / "ok.npz", variant="pytorch")
    else:
        Params.random("lstm", 3, 4).save(tmp_path / "ok.npz")
        arrays = read_npz(tmp_path / "ok.npz", "weights")
    for key in _float_keys(arrays):
        path = _spoilt(tmp_path, arrays, key, np.nan, "bad.npz")
        loaders = [lambda p: StackParams.load(p, variant="pytorch"), load_params]
        if not stacked:
            loaders.append(Params.load)
        for load in loaders:
            with pytest.raises(ValueError, match="nan or inf|inf or nan|non-finite"):
                load(path)


def test_a_torch_state_dict_with_nan_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    from seqviz.core.stack_params import StackParams
    from seqviz.models.registry import load_params

    lstm = torch.nn.LSTM(3, 4, num_layers=2)
    state = lstm.state_dict()
    torch.save(state, tmp_path / "ok.pt")
    StackParams.load(tmp_path / "ok.pt")
    with torch.no_grad():
        state["weight_hh_l1"][1, 2] = float("nan")
    torch.save(state, tmp_path / "bad.pt")
    for load in (StackParams.load, load_params):
        with pytest.raises(ValueError, match="nan or inf|inf or nan|non-finite"):
            load(tmp_path / "bad.pt")


def test_tag_with_a_nan_tagger_is_one_sentence_not_nan_tags(tmp_path, capsys):
    arrays = read_npz(DATA / "tagger_uni.npz", "a model")
    path = _spoilt(tmp_path, arrays, "w_out", np.nan)
    code = main(["tag", "--model", str(path), "the dog barks"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.startswith("seqviz: error: ") and captured.err.count("\n") == 1
    assert "nan" in captured.err and "w_out" in captured.err
