"""Model kinds and the registry: the kind tag is written, read back and dispatched on."""

from __future__ import annotations

import numpy as np
import pytest

from seqviz import models
from seqviz.core import Params
from seqviz.models import format as fmt
from seqviz.models.lm import RNNLM, random_lm
from seqviz.scenes import decoding as decoding_scene
from seqviz.scenes.gates import load_weights


def test_lm_files_carry_the_kind_tag(tmp_path):
    m = random_lm(("<s>", "</s>", "a"), hidden=4, emb=2)
    path = m.save(tmp_path / "m.npz")
    with np.load(path) as f:
        assert str(f["format"]) == "seqviz-lm-1"
    back = models.load(path)
    assert isinstance(back, RNNLM) and back.vocab == m.vocab


def test_loader_dispatches_on_the_tag(tmp_path):
    calls = []
    fmt.register_kind("testkind", lambda arrays, p: calls.append((sorted(arrays), p.name)) or 7)
    try:
        path = models.save_model(tmp_path / "t.npz", "testkind", {"x": np.zeros(2)})
        assert models.load(path) == 7 and calls == [(["format", "x"], "t.npz")]
        with pytest.raises(ValueError, match="holds a testkind model; a lm model is needed"):
            models.load(path, kind="lm")
    finally:
        fmt._KINDS.pop("testkind")
    with pytest.raises(ValueError, match="holds a testkind model, which this seqviz cannot read"):
        models.load(path)


def test_untagged_and_unreadable_files(tmp_path):
    plain = tmp_path / "plain.npz"
    np.savez(plain, x=np.zeros(2))
    with pytest.raises(ValueError, match="has no seqviz format tag"):
        models.load(plain)
    with pytest.raises(ValueError, match="lacks weight_ih_l0"):
        models.load(plain, kind="lm")  # an untagged file is tried as the kind asked for
    junk = tmp_path / "junk.npz"
    junk.write_text("not a zip")
    with pytest.raises(ValueError, match="is not a seqviz language model"):
        models.load(junk, kind="lm")
    with pytest.raises(ValueError, match="cannot read the model file"):
        models.load(tmp_path / "missing.npz")


def test_registry_lists_and_loads_the_shipped_model():
    (entry,) = [e for e in models.entries() if e.name == "agreement"]
    assert entry.kind == "lm" and entry.path.is_file() and entry.path.stat().st_size < 2_000_000
    assert entry.command.startswith("seqviz train ") and "--out seqviz/data/" + entry.file in (
        entry.command
    )
    assert models.get("agreement") is entry and models.get(entry.key) is entry
    assert models.entries("lm") == tuple(e for e in models.entries() if e.kind == "lm")
    assert models.entries("no-such-kind") == ()
    with pytest.raises(ValueError, match="no model called 'nope'; shipped and user models: agre"):
        models.get("nope")
    with pytest.raises(ValueError, match="already registered"):
        models.register(models.ModelEntry("agreement", "lm", "x", "x.npz", "x"))


def test_decoding_scene_choices_come_from_the_registry():
    keys = tuple(e.key for e in models.entries("lm"))
    assert decoding_scene.MODELS == ("toy", *keys, "seq2seq", "file")
    for e in models.entries("lm"):
        lm, label = decoding_scene.load_model(e.key, "")
        assert label == e.label and lm.vocab == models.load(e.name).vocab


def test_gates_scene_loads_cells_through_the_registry(tmp_path):
    shipped = load_weights("agreement")
    assert np.array_equal(shipped.weight_hh, models.load("agreement").params.weight_hh)
    p = Params.random("gru", 3, 5, seed=2)
    p.save(tmp_path / "cell.npz")
    back = load_weights(str(tmp_path / "cell.npz"))
    assert back.cell == "gru" and np.array_equal(back.weight_ih, p.weight_ih)
    with pytest.raises(ValueError, match="does not exist"):
        load_weights(str(tmp_path / "nope.npz"))


def test_importing_the_registry_is_light():
    import json
    import subprocess
    import sys

    code = (
        "import json, sys, seqviz.models as m\n"
        "names = [e.name for e in m.entries()]\n"
        "print(json.dumps([names, sorted(sys.modules)]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    names, modules = json.loads(out.stdout)
    assert "agreement" in names and "numba" not in modules
