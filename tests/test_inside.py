"""Inside trained LMs: saliency against finite differences, units by pattern on a planted unit,
the grammar's tracks, predictions, the agreement measurement and its commands."""

from __future__ import annotations

import json

import numpy as np
import pytest

from seqviz import models
from seqviz.core import Params, forward
from seqviz.inside.reading import predictions, read, right_verb
from seqviz.inside.saliency import saliency
from seqviz.inside.study import held_out_set, study, training_lines
from seqviz.inside.tracks import (
    PLURAL_NOUNS,
    SINGULAR_NOUNS,
    has_other_number_distractor,
    parse,
    tracks,
)
from seqviz.inside.units import rank_units
from seqviz.models.lm import RNNLM


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_saliency_equals_finite_differences(cell):
    rng = np.random.default_rng(3)
    e, d, V, T = 3, 4, 6, 5
    params = Params.random(cell, e, d, seed=1, scale=0.8)
    x = rng.normal(size=(T, e))
    out_w = rng.normal(size=(V, d))
    targets = rng.integers(0, V, size=T)
    S = saliency(params, x, out_w, targets)

    def logit(xx, t):
        h, _ = forward(params, xx)
        return float(out_w[targets[t]] @ h[t])

    eps = 1e-6
    fd = np.zeros((T, T))
    for t in range(T):
        for s in range(T):
            g = np.zeros(e)
            for j in range(e):
                up, down = x.copy(), x.copy()
                up[s, j] += eps
                down[s, j] -= eps
                g[j] = (logit(up, t) - logit(down, t)) / (2 * eps)
            fd[t, s] = np.linalg.norm(g)
    np.testing.assert_allclose(S, fd, rtol=1e-5, atol=1e-8)
    assert np.all(np.triu(S, 1) == 0) and np.all(np.diag(S) > 0)


def _planted_lm(vocab: tuple[str, ...], unit: int = 2, d: int = 5) -> RNNLM:
    """A hand-built LSTM whose unit `unit` stores the first noun's number and holds it: a helper
    unit 0 counts nouns, and once it is on, the number unit's input gate stays shut."""
    e = 2  # features: the noun's number (+1 plural, -1 singular, 0 otherwise), is-a-noun
    emb = np.zeros((len(vocab), e))
    for k, w in enumerate(vocab):
        if w in PLURAL_NOUNS or w in SINGULAR_NOUNS:
            emb[k] = (1.0 if w in PLURAL_NOUNS else -1.0, 1.0)
    rng = np.random.default_rng(0)
    w_ih = rng.normal(0, 0.1, (4 * d, e))
    w_hh = rng.normal(0, 0.1, (4 * d, d))
    b = np.zeros(4 * d)
    i, f, g, o = (k * d for k in range(4))  # gate blocks
    a, n = 0, unit
    for row in (i + a, f + a, g + a, o + a, i + n, f + n, g + n, o + n):
        w_ih[row] = 0.0
        w_hh[row] = 0.0
    w_ih[i + a, 1], b[i + a] = 20.0, -10.0  # the helper writes on every noun ...
    b[f + a], b[g + a], b[o + a] = 20.0, 20.0, 20.0  # ... +1 each time, kept, shown
    w_ih[i + n, 1], b[i + n], w_hh[i + n, a] = 20.0, -5.0, -30.0  # open only before any noun
    w_ih[g + n, 0] = 5.0  # writes the noun's number
    b[f + n], b[o + n] = 20.0, 20.0  # and keeps it
    params = Params.from_arrays("lstm", w_ih, w_hh, b, np.zeros(4 * d))
    out_w = rng.normal(0, 0.1, (len(vocab), d))
    return RNNLM(params, emb, out_w, np.zeros(len(vocab)), vocab)


def test_units_by_pattern_finds_the_planted_number_unit():
    vocab = models.load("agreement").vocab
    lm = _planted_lm(vocab, unit=2)
    sentences = held_out_set(60)
    s = study(lm, sentences, "planted")
    best = s.best("number")
    assert best.unit == 2 and best.r > 0.99
    assert all(abs(u.r) < 0.9 for u in s.units["number"] if u.unit != 2)
    # the same machinery on raw states: the planted unit's c and h (= tanh c) lead the ranking
    readings = [read(lm, " ".join(x)) for x in sentences[:30]]
    ranked = rank_units({"c": [r.c for r in readings], "h": [r.h for r in readings]},
                        [tracks(list(x))["number"] for x in sentences[:30]])  # fmt: skip
    assert {(u.unit, u.state) for u in ranked[:2]} == {(2, "c"), (2, "h")}
    assert abs(ranked[2].r) < 0.9


def test_tracks_of_a_sentence():
    words = "the keys to the cabinet are missing".split()
    p = parse(words)
    assert (p.subject, p.verb, p.plural) == (1, 5, True)
    tr = tracks(words)  # steps: <s> the keys to the cabinet are missing
    assert np.isnan(tr["number"][:2]).all() and (tr["number"][2:6] == 1).all()
    assert np.isnan(tr["number"][6:]).all()
    assert tr["distractor"][:7].tolist() == [0, 0, 0, 1, 1, 1, 0]
    assert tr["distance"][:7].tolist() == [6, 5, 4, 3, 2, 1, 0]
    assert has_other_number_distractor(words)
    assert not has_other_number_distractor("the keys to the cabinets are old".split())
    assert right_verb("the key near the doors was".split()) == "was"
    assert right_verb("the boxes".split()) == "are"


def test_held_out_sentences_are_new_and_distracting():
    seen = training_lines()
    sents = held_out_set(100)
    assert len(sents) == 100 and len(set(sents)) == 100
    assert all(" ".join(s) not in seen and has_other_number_distractor(list(s)) for s in sents)


def test_predictions_match_the_model():
    lm = models.load("agreement")
    text = "the keys to the cabinet"
    r = read(lm, text)
    pred = predictions(lm, r)
    probs = lm.next_token_probs(text)
    assert pred.probs["are"][-1] == pytest.approx(probs["are"])
    assert pred.right == "are"
    order = sorted(probs, key=lambda w: -probs[w])
    assert pred.rank[-1] == order.index("are") + 1
    p = np.exp(r.logp[-1])
    assert pred.entropy[-1] == pytest.approx(-(p[p > 0] * np.log2(p[p > 0])).sum())
    with pytest.raises(ValueError, match="'cabnet'.*cabinet"):
        read(lm, "the cabnet")


@pytest.mark.slow
def test_run_agreement_and_units_commands(capsys):
    from seqviz.cli import main

    assert main(["run", "agreement", "--json"]) == 0
    rows = {r["model"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(rows) == {"agreement", "agreement-gru", "agreement-rnn"}
    for r in rows.values():
        assert r["sentences"] == 500 and 0.9 <= r["accuracy"] <= 1.0 and r["margin"] > 0
        assert abs(r["units"]["number"][0]["r"]) > 0.7
    assert main(["run", "agreement"]) == 0
    text = capsys.readouterr().out
    lstm = rows["agreement"]["units"]["number"][0]
    assert f"{lstm['state']}[{lstm['unit']}]" in text and f"{lstm['r']:+.3f}" in text
    assert main(["units", "--model", "agreement-gru", "--track", "distance", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["track"] == "distance" and len(out["units"]) == 10
    rs = [abs(u["r"]) for u in out["units"]]
    assert rs == sorted(rs, reverse=True)
    assert main(["units", "--model", "no-such-model"]) == 2
    assert "no-such-model" in capsys.readouterr().err


def test_a_constant_track_is_refused_not_scored_zero():
    from seqviz.inside.units import correlations

    rng = np.random.default_rng(0)
    states = [rng.normal(size=(5, 3)), rng.normal(size=(4, 3))]
    flat = [np.full(5, 2.0), np.array([2.0, np.nan, 2.0, 2.0])]  # constant where defined
    with pytest.raises(ValueError, match=r"^the track is constant on these sentences, so "
                       r"nothing can follow it\.$"):  # fmt: skip
        correlations(states, flat)
    with pytest.raises(ValueError):  # two defined steps are too few to correlate
        correlations(states, [np.full(5, np.nan), np.array([np.nan, 1.0, 3.0, np.nan])])
    with pytest.raises(ValueError, match="constant"):
        rank_units({"h": states}, flat)
    # one step off the constant is enough to score, and the score is Pearson's r
    moved = [flat[0], np.array([2.0, np.nan, 2.0, 5.0])]
    r, n = correlations(states, moved)
    x = np.concatenate([states[0], states[1][[0, 2, 3]]])
    y = np.array([2.0] * 7 + [5.0])
    assert n == 8
    np.testing.assert_allclose(r, [np.corrcoef(x[:, u], y)[0, 1] for u in range(3)], atol=1e-12)
