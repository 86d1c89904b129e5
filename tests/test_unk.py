"""<unk>: rare training words replaced, so a word model reads any sentence."""

from __future__ import annotations

import json

from seqviz.cli import main
from seqviz.models import load
from seqviz.models.lm_train import replace_rare


def test_replace_rare_by_count():
    sents = [["a", "b", "a"], ["c", "a", "b"]]
    assert replace_rare(sents, 2) == [["a", "b", "a"], ["<unk>", "a", "b"]]
    assert replace_rare(sents, 3) == [["a", "<unk>", "a"], ["<unk>", "a", "<unk>"]]
    assert replace_rare(sents, 1) is sents


def test_trained_model_reads_unknown_words(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat sat\nthe dog sat\nthe cat ran\nthe emu sat\n")
    out = tmp_path / "m.npz"
    assert main(["train", str(corpus), "--hidden", "6", "--emb", "4", "--epochs", "1",
                 "--min-count", "2", "--batch", "2", "--out", str(out)]) == 0  # fmt: skip
    lm = load(out, kind="lm")
    assert "<unk>" in lm.vocab and "emu" not in lm.vocab and "dog" not in lm.vocab
    assert lm.encode("the zebra sat") == [lm.index["the"], lm.index["<unk>"], lm.index["sat"]]
    assert lm.unknown("the zebra sat on Ada") == ["zebra", "on", "Ada"]
    capsys.readouterr()
    code = main(["decode", "--model", str(out), "--prompt", "the zebra", "--max-len", "3",
                 "--json"])  # fmt: skip
    got = capsys.readouterr()
    assert code == 0 and "read as <unk>: zebra" in got.err
    assert json.loads(got.out)["hypotheses"]
    # without --min-count a model has no <unk>, and an unknown word is still one sentence
    assert main(["train", str(corpus), "--hidden", "4", "--emb", "3", "--epochs", "1",
                 "--out", str(tmp_path / "n.npz")]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["decode", "--model", str(tmp_path / "n.npz"), "--prompt", "the zebra"]) == 2
    assert "'zebra' is not in the vocabulary" in capsys.readouterr().err
