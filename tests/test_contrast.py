"""Contrastive attribution of log P(plus) - log P(minus): gradient x input against finite
differences, occlusion against plain forward passes, the lesson's example on the shipped LSTM."""

from __future__ import annotations

import numpy as np
import pytest

from seqviz import models
from seqviz.core import forward
from seqviz.inside.contrast import contrast
from seqviz.inside.intervene import ablate
from seqviz.inside.reading import read
from seqviz.models.lm import random_lm

VOCAB = ["<s>", "</s>", "a", "b", "is", "are"]


def d_of(lm, x):
    h, _ = forward(lm.params, x)
    lp = lm._logp(h[-1:].copy())[0]
    return lp[lm.index["are"]] - lp[lm.index["is"]]


@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn"])
def test_gradient_and_occlusion_against_recomputation(cell):
    lm = random_lm(VOCAB, cell=cell, hidden=5, emb=3, seed=4)
    c = contrast(lm, "a b b a")
    ids, x = lm.inputs("a b b a")
    assert c.value == pytest.approx(d_of(lm, x), abs=1e-10)
    r = read(lm, "a b b a")
    assert c.value == pytest.approx(r.logp[-1, lm.index["are"]] - r.logp[-1, lm.index["is"]])
    eps = 1e-6
    for s in range(len(ids)):
        grad = np.zeros(3)
        for j in range(3):
            xp, xm = x.copy(), x.copy()
            xp[s, j] += eps
            xm[s, j] -= eps
            grad[j] = (d_of(lm, xp) - d_of(lm, xm)) / (2 * eps)
        assert c.gradient[s] == pytest.approx(grad @ x[s], abs=1e-6)
        xo = x.copy()
        xo[s] = 0.0
        assert c.occlusion[s] == pytest.approx(c.value - d_of(lm, xo), abs=1e-10)


def test_occlusion_goes_through_the_interventions():
    lm = random_lm(VOCAB, cell="lstm", hidden=5, emb=3, seed=4)
    ivs = ablate([("c", 1), ("h", 2)])
    c = contrast(lm, "a b a", interventions=ivs)
    r = read(lm, "a b a", ivs)
    assert c.value == pytest.approx(r.logp[-1, lm.index["are"]] - r.logp[-1, lm.index["is"]])
    assert np.isnan(c.gradient).all()  # no backward pass through forced units: shown as nan
    with pytest.raises(ValueError, match="'were' is not in the vocabulary"):
        contrast(lm, "a", "were", "is")


def test_keys_not_cabinet_push_are_over_is_in_the_shipped_lstm():
    lm = models.load("agreement", kind="lm")
    c = contrast(lm, "the keys to the cabinet", "are", "is")
    assert c.value > 0  # the model prefers "are"
    k, cab = c.words.index("keys"), c.words.index("cabinet")
    for method in ("gradient", "occlusion"):
        a = getattr(c, method)
        assert c.top(method) == "keys"
        assert a[k] > 0 > a[cab]  # the plural subject pushes to "are", the singular noun away
