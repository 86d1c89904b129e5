"""Character n-gram baselines: normalised, exact on what they can know, and their command."""

from __future__ import annotations

import json
import math
import random

import pytest

from seqviz.cli import main
from seqviz.models.ngram import CharNGram

TEXT = "the cat sat on the mat. the dog sat on the log.\n" * 20


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_distributions_sum_to_one(n):
    m = CharNGram.train(TEXT, n)
    for history in ("", "t", "the", "xyz", "the c"):
        total = sum(m.prob(history, c) for c in m.alphabet) + m.prob(history, "\u2603")
        assert total == pytest.approx(1.0, abs=1e-12)


def test_unigram_by_hand():
    m = CharNGram.train("aab", 1)
    # T = 2 types over C = 3 characters mixed with uniform 1/3 over {a, b, unseen}
    assert m.prob("", "a") == pytest.approx((2 + 2 / 3) / 5)
    assert m.prob("", "z") == pytest.approx((2 / 3) / 5)


def test_bits_per_char_on_known_sources():
    # a period-3 text is almost free to a trigram, a fair 4-letter source costs 2 bits
    periodic = CharNGram.train("abc" * 200, 3)
    assert periodic.bits_per_char("abc" * 50) < 0.05
    rng = random.Random(0)
    noise = "".join(rng.choice("wxyz") for _ in range(30000))
    bpc = CharNGram.train(noise[:25000], 3).bits_per_char(noise[25000:])
    assert abs(bpc - 2.0) < 0.05
    # and by hand for one character: -log2 P
    m = CharNGram.train("aab", 1)
    assert m.bits_per_char("b") == pytest.approx(-math.log2((1 + 2 / 3) / 5))


def test_ngram_command(tmp_path, capsys):
    f = tmp_path / "t.txt"
    f.write_text(TEXT)
    assert main(["ngram", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["n"] for r in out["models"]] == [3, 5]
    assert out["train_chars"] + out["held_out_chars"] == len(TEXT)
    assert out["models"][1]["bits_per_char"] < out["models"][0]["bits_per_char"] < 3
    assert main(["ngram", str(f), "--n", "2"]) == 0
    assert "n = 2" in capsys.readouterr().out
    assert main(["ngram", str(f), "--n", "13"]) == 2
