"""Agreement across attractors: the grammar's sentences with a chosen number of attractors, the
held-out sets per count, and `seqviz run agreement --by-attractors`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from seqviz import models
from seqviz.cli import main
from seqviz.inside.ablation import attractors, verb_margins
from seqviz.inside.attractors import attractor_set
from seqviz.inside.study import training_lines
from seqviz.inside.tracks import PLURAL_NOUNS, parse
from seqviz.tasks.grammar import BE, attractor_sentence


@pytest.mark.parametrize("nested", [False, True])
def test_attractor_sentences_have_the_count_asked_for(nested):
    vocab = set(models.load("agreement", kind="lm").vocab)
    rng = np.random.default_rng(5)
    for count in range(1 if nested else 0, 4):
        lengths = set()
        for _ in range(60):
            words = attractor_sentence(rng, count, nested=nested)
            assert attractors(words) == count, words
            p = parse(words)
            assert p is not None and p.plural == (words[1] in PLURAL_NOUNS)
            assert words[p.verb] in (BE[("present", p.plural)], BE[("past", p.plural)])
            assert set(words) <= vocab
            assert ("that" in words) == nested
            lengths.add(p.verb - p.subject)
        if not nested:
            assert lengths == {7 if count < 3 else 10}  # 2 phrases, or 3 for three attractors


def test_attractor_counts_out_of_range_are_refused():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="0 to 3"):
        attractor_sentence(rng, 4)
    with pytest.raises(ValueError, match="at least one attractor"):
        attractor_sentence(rng, 0, nested=True)


def test_attractor_sets_are_held_out_and_distinct():
    train = training_lines()
    for count in range(4):
        s = attractor_set(count, 30)
        assert len(s) == len(set(s)) == 30
        assert not {" ".join(w) for w in s} & train
        assert {attractors(w) for w in s} == {count}


@pytest.mark.slow
def test_run_agreement_by_attractors(capsys):
    assert main(["run", "agreement", "--by-attractors", "--sentences", "10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["model"] for c in out["plain"]] == ["agreement", "agreement-gru", "agreement-rnn"]
    assert list(out["plain"][0]["accuracy"]) == ["0", "1", "2", "3"]
    assert list(out["nested"][2]["accuracy"]) == ["1", "2", "3"]
    rnn = models.load("agreement-rnn", kind="lm")
    want = float((verb_margins(rnn, attractor_set(2, 10, nested=True)) > 0).mean())
    assert out["nested"][2]["accuracy"]["2"] == pytest.approx(want)
    assert main(["run", "agreement", "--by-attractors", "--sentences", "10"]) == 0
    text = capsys.readouterr().out
    assert "nested" in text and "agreement-rnn" in text
