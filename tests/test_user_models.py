"""User models: `seqviz models add/list/remove` under XDG_DATA_HOME, and their use by name."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from seqviz import models
from seqviz.cli import main
from seqviz.models import user
from seqviz.models.lm import random_lm

VOCAB = ("<s>", "</s>", "the", "cat", "dog", "sat")


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


@pytest.fixture
def lm_file(tmp_path):
    return random_lm(VOCAB, "lstm", hidden=6, emb=4, seed=3).save(tmp_path / "mine.npz")


def test_add_list_remove(data_home, lm_file, capsys):
    assert main(["models", "add", "mine", str(lm_file)]) == 0
    stored = data_home / "seqviz" / "models" / "mine.npz"
    assert stored.read_bytes() == lm_file.read_bytes()  # an exact copy
    assert "added mine (lm)" in capsys.readouterr().out
    assert [m.name for m in user.listing()] == ["mine"]
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert "agreement" in out.split("user (")[0]  # the shipped ones first
    assert "mine" in out.split("user (")[1] and str(data_home) in out
    # the registry: by name, among the entries of its kind, resolved to the stored copy
    assert models.resolve("mine") == stored
    assert models.get("mine").kind == "lm" and models.get("mine").cell == "lstm"
    assert "mine" in [e.name for e in models.entries("lm")]
    assert models.entries("lm")[0].name == "agreement"
    assert models.load("mine", kind="lm").vocab == VOCAB
    # the file the user gave can go: the copy is what is used
    lm_file.unlink()
    assert main(["decode", "--model", "mine", "--strategy", "greedy", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hypotheses"]
    assert main(["models", "remove", "mine"]) == 0
    assert not stored.exists() and user.listing() == []
    assert "mine" not in [e.name for e in models.entries()]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("agreement", "already the name of a shipped model"),
        ("lstm", "already the name of a shipped model or a scene choice"),
        ("../evil", "is not allowed; use 1-40 letters"),
        ("9lives", "is not allowed"),
        ("a" * 41, "is not allowed"),
        ("", "is not allowed"),
    ],
)
def test_names_are_checked(data_home, lm_file, capsys, name, message):
    assert main(["models", "add", name, str(lm_file)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (data_home / "seqviz" / "models").exists() or user.listing() == []


def test_bad_files_and_names(data_home, tmp_path, lm_file, capsys):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    assert main(["models", "add", "junk", str(junk)]) == 2
    assert "junk.npz" in capsys.readouterr().err
    assert main(["models", "remove", "nope"]) == 2
    assert "no user model called 'nope'; user models: none." in capsys.readouterr().err
    assert main(["models", "add", "mine", str(lm_file)]) == 0
    assert main(["models", "add", "mine", str(lm_file)]) == 2
    assert "--replace" in capsys.readouterr().err
    assert main(["models", "add", "mine", str(lm_file), "--replace"]) == 0
    assert user.listing()[0].name == "mine"
    # no temporary files are left behind by the atomic writes
    assert sorted(p.name for p in (data_home / "seqviz" / "models").iterdir()) == [
        "index.json",
        "mine.npz",
    ]


def test_user_models_appear_among_the_scenes_choices(data_home, lm_file):
    assert main(["models", "add", "mine", str(lm_file)]) == 0
    from seqviz.scenes.gates import model_choices

    assert "mine" in model_choices() and model_choices()[0] == "agreement"
    # the decoding scene's choices are made when it is imported: a fresh process sees the model
    code = "from seqviz.scenes.decoding import MODELS; print(' '.join(MODELS))"
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    assert out.index("lstm") < out.index("mine") < out.index("file")  # shipped first
    from seqviz.scenes.decoding import _shipped

    assert _shipped("mine").vocab == VOCAB


def test_a_user_model_in_the_inside_scene(data_home, capsys):
    """A word LM trained on the agreement grammar, added by name, is offered by the inside scene
    (in a fresh process, which makes the choices) and studied like the shipped ones."""
    from seqviz.models.lm_train import LMConfig, TrainableLM, read_corpus
    from seqviz.models.registry import DATA_DIR

    sents = read_corpus(DATA_DIR / "agreement.txt", "word")  # untrained: its vocabulary only
    path = TrainableLM(sents, LMConfig(hidden=5, emb=3)).save(data_home.parent / "tiny.npz")
    assert main(["models", "add", "tiny", str(path)]) == 0
    code = "from seqviz.scenes.inside import MODELS; print(' '.join(MODELS))"
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    assert out == ["agreement", "agreement-gru", "agreement-rnn", "tiny"]
    from seqviz.scenes.inside import _ranked

    ranked = _ranked("tiny", "position")
    assert len(ranked) == 10 and abs(ranked[0].r) >= abs(ranked[-1].r)  # c and h of 5 units
