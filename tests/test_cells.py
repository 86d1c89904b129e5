"""The `code` model's corpus pieces, the string-or-comment pattern and `seqviz run cells`."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from seqviz.cli import main
from seqviz.inside import patterns
from seqviz.inside.units import rank_by_pattern, segments

CODE = (
    "def f(x):\n"
    "    s = \"a # b\"  # note 'q'\n"
    "    if x:\n"
    "        return [x, (1, 2)]\n"
    "    return {s: 'it''s'}\n"
) * 6


def test_string_or_comment_is_either_by_hand():
    line = 'x = "a#" # b\n'
    got = patterns.char_values("string-or-comment", line)
    want = [0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0]
    assert got.tolist() == want


def test_chunked_corpus_keeps_newlines_and_indentation(tmp_path):
    from seqviz.models.lm_train import read_corpus

    p = tmp_path / "code.txt"
    p.write_text(CODE)
    pieces = read_corpus(p, "char", chunk=50)
    assert "".join("".join(s) for s in pieces) == CODE
    assert all(len(s) == 50 for s in pieces[:-1]) and 0 < len(pieces[-1]) <= 50
    lines = read_corpus(p, "char")  # one stripped line a sentence, as before
    assert lines[1][0] == "s" and all("\n" not in s for s in lines)
    with pytest.raises(ValueError, match="--chunk reads the corpus as one text"):
        read_corpus(p, "word", chunk=50)


def _tiny_model(tmp_path):
    from seqviz.models.lm_train import LMConfig, TrainableLM

    sents = [list(CODE[i : i + 40]) for i in range(0, len(CODE), 40)]
    lm = TrainableLM(sents, LMConfig(cell="lstm", hidden=6, emb=4, level="char", seed=3)).model()
    path = lm.save(tmp_path / "tiny.npz")
    text = tmp_path / "held.txt"
    text.write_text(CODE)
    return lm, path, text


def test_run_cells_agrees_with_units_and_a_stepwise_reading(tmp_path, capsys):
    """Each pattern's best c and h unit is the one `units` ranks first in that state; the bits
    per character are the decoder's own step-by-step log-probabilities; the baselines are the
    n-grams' own numbers."""
    from seqviz.models.ngram import CharNGram

    lm, path, text = _tiny_model(tmp_path)
    assert main(["run", "cells", "--model", str(path), "--text", str(text), "--train",
                 str(text), "--json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["chars"] == len(CODE) and out["skipped"] == 0
    for pattern in ("string", "indent", "brackets", "comment", "string-or-comment"):
        ranked = rank_by_pattern(lm, pattern, CODE).units
        for state in ("c", "h"):
            top = next(u for u in ranked if u.state == state)
            got = out["cells"][pattern][state]
            assert got["unit"] == top.label()
            assert got["r"] == pytest.approx(top.r, abs=1e-12)
    nats = 0.0
    for _, piece in segments(CODE, "char", True):
        states = [lm.start([])]  # reads <s>
        for ch in piece:
            k = lm.index[ch]
            nats -= float(lm.logprobs(states)[0, k])
            states = lm.advance(states, [k])
    assert out["bits_per_char"] == pytest.approx(nats / len(CODE) / math.log(2), rel=1e-9)
    for row in out["ngram"]:
        assert row["bits_per_char"] == pytest.approx(
            CharNGram.train(CODE, row["n"]).bits_per_char(CODE), rel=1e-12
        )
    assert [row["n"] for row in out["ngram"]] == [3, 5]


def test_run_cells_table_and_a_word_model_refused(tmp_path, capsys):
    _, path, text = _tiny_model(tmp_path)
    assert main(["run", "cells", "--model", str(path), "--text", str(text), "--train",
                 str(text), "--n", "2"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "2-gram" in out and "string-or-comment" in out and "bits/char" in out
    assert main(["run", "cells", "--model", "agreement", "--text", str(text)]) == 2
    assert "needs a character model" in capsys.readouterr().err


def test_shipped_code_model_reads_its_held_out_text():
    """The shipped corpus: ASCII, its held-out modules apart from the training ones, and
    every held-out character known to the shipped model."""
    from seqviz import models
    from seqviz.inside.code_cells import HELD_OUT, TRAIN
    from seqviz.models.lm import RNNLM

    train, held = TRAIN.read_text(), HELD_OUT.read_text()
    assert train.isascii() and held.isascii() and held[:2000] not in train
    assert 900_000 < len(train) < 1_200_000
    lm = RNNLM.load(models.get("code").path)
    assert lm.level == "char" and set(held) <= set(lm.index)
    assert np.isfinite(lm.out_weight).all()
