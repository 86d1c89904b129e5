"""Vocabularies are capped where a corpus or a model file is read (limits.MAX_VOCAB)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import seqviz
from seqviz.cli import main
from seqviz.files import read_npz
from seqviz.limits import MAX_VOCAB

DATA = Path(seqviz.__file__).parent / "data"


@pytest.mark.parametrize(("name", "key"), [("agreement_lstm.npz", "vocab"),
                                           ("seq2seq_attention.npz", "tgt_vocab"),
                                           ("tagger_uni.npz", "vocab")])  # fmt: skip
def test_a_model_file_with_too_many_tokens_is_refused_as_it_is_read(tmp_path, name, key):
    from seqviz.models import load_file

    arrays = read_npz(DATA / name, "a model")
    arrays[key] = np.array([f"w{i}" for i in range(MAX_VOCAB + 1)])
    np.savez(tmp_path / "big.npz", **arrays)
    with pytest.raises(ValueError, match=f"{MAX_VOCAB + 1:,} distinct tokens; the limit is"):
        load_file(tmp_path / "big.npz")
    arrays[key] = arrays[key][:MAX_VOCAB]  # at the limit: on to the model's own checks
    np.savez(tmp_path / "ok.npz", **arrays)
    with pytest.raises(ValueError) as info:
        load_file(tmp_path / "ok.npz")
    assert "distinct tokens" not in str(info.value)


def test_train_refuses_too_many_distinct_words_before_training(tmp_path, capsys, monkeypatch):
    from seqviz import training

    def no_training(*args, **kwargs):
        raise AssertionError("training started")

    monkeypatch.setattr(training, "fit", no_training)
    corpus = tmp_path / "words.txt"
    corpus.write_text(" ".join(f"w{i}" for i in range(MAX_VOCAB + 1)) + "\n")
    code = main(["train", str(corpus), "--out", str(tmp_path / "m.npz"), "--epochs", "1"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert f"{MAX_VOCAB + 3:,} distinct tokens; the limit is {MAX_VOCAB:,}" in err, err
