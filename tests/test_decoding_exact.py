"""Exact search: equal to brute-force enumeration on small random models, never below beam."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqviz.decoding import BeamSearch, BigramModel, toy_model
from seqviz.decoding.exact import BUDGET, OPTIMAL, ExactSearch, budget_message, first_search_error


def random_bigram(seed: int, n_words: int, eos_p: float) -> BigramModel:
    rng = np.random.default_rng(seed)
    names = [f"w{i}" for i in range(n_words)]
    table = {}
    for prev in ["<s>", *names]:
        p = rng.dirichlet(np.ones(n_words + 1) * 0.5) * (1 - eos_p)
        p[-1] += eos_p
        row = {t: float(x) for t, x in zip([*names, "</s>"], p, strict=True)}
        row["</s>"] = max(0.0, 1.0 - math.fsum(v for k, v in row.items() if k != "</s>"))
        table[prev] = row
    return BigramModel(table, name=f"r{seed}")


def brute_force(model: BigramModel, max_len: int, alpha: float, penalty: str) -> float:
    """Best score over every finished sequence of at most max_len tokens, by enumeration."""
    content = [t for t in model.vocab if t not in ("<s>", "</s>")]
    best = -math.inf
    for n in range(max_len):
        for seq in itertools.product(content, repeat=n):
            prev, lp = "<s>", 0.0
            for t in (*seq, "</s>"):
                p = model.table[prev].get(t, 0.0)
                lp = lp + math.log(p) if p > 0 else -math.inf
                prev = t
            t_len = n + 1
            div = ((5 + t_len) / 6) ** alpha if penalty == "google" else t_len**alpha
            best = max(best, lp / div)
    return best


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_words=st.integers(1, 4),
    eos_p=st.sampled_from([0.0, 0.05, 0.3]),
    max_len=st.integers(1, 5),
    alpha=st.sampled_from([0.0, 0.6, 1.0, 2.0]),
    penalty=st.sampled_from(["plain", "google"]),
)
def test_exact_equals_brute_force(seed, n_words, eos_p, max_len, alpha, penalty):
    model = random_bigram(seed, n_words, eos_p)
    search = ExactSearch(model, max_len=max_len, alpha=alpha, penalty=penalty, node_budget=10**5)
    res = search.run()
    want = brute_force(model, max_len, alpha, penalty)
    if math.isinf(want):
        assert not res.best.finished
        return
    assert search.proved and res.stop == OPTIMAL
    assert res.best.finished and len(res.best.tokens) <= max_len
    assert math.isclose(res.best.score, want, rel_tol=1e-9, abs_tol=1e-12)
    # its score is its own log-probability under the table, recomputed
    prev, lp = "<s>", 0.0
    for t in res.best.tokens:
        lp += math.log(model.table[prev][model.vocab[t]])
        prev = model.vocab[t]
    assert math.isclose(lp, res.best.logprob, rel_tol=1e-9, abs_tol=1e-12)
    # and no beam width beats it
    for width in (1, 2, 5):
        b = BeamSearch(model, width=width, max_len=max_len, alpha=alpha, penalty=penalty).run()
        if b.best.finished:
            assert b.best.score <= res.best.score + 1e-9


def test_exact_on_toy_is_the_lessons_best_and_steps_back():
    m = toy_model()
    s = ExactSearch(m, max_len=6)
    res = s.run()
    assert [m.vocab[t] for t in res.best.tokens] == ["a", "small", "cat", "</s>"]
    n = len(s.history)
    again = [s.back() for _ in range(2)][-1]
    assert len(s.history) == n - 2 and again is s.current
    assert s.run().best == res.best


def test_node_budget_stops_with_a_sentence():
    m = random_bigram(3, 4, 0.01)
    s = ExactSearch(m, max_len=12, node_budget=3)
    res = s.run()
    assert res.stop == BUDGET and not s.proved and len(s.history) == 3
    msg = budget_message(3)
    assert msg.endswith(".") and "--node-budget" in msg and msg.count(". ") == 0
    with pytest.raises(ValueError, match="node budget"):
        ExactSearch(m, node_budget=0)


def test_first_search_error_on_toy():
    """Width 1 takes 'the' (0.5) and loses the optimum 'a small cat' at step 1; width 2 keeps
    every prefix of it."""
    m = toy_model()
    opt = ExactSearch(m, max_len=6).run().best
    b1 = BeamSearch(m, width=1, max_len=6)
    b1.run()
    assert first_search_error(b1.history, opt) == 1
    b2 = BeamSearch(m, width=2, max_len=6)
    b2.run()
    assert first_search_error(b2.history, opt) is None


@pytest.mark.slow
def test_exact_never_below_beam_on_the_shipped_lm():
    from seqviz import models

    lm = models.load("agreement", kind="lm")
    for alpha in (0.0, 0.6):
        ex = ExactSearch(lm, "the", max_len=8, alpha=alpha, node_budget=20_000)
        best = ex.run().best
        assert ex.proved
        for width in (1, 2, 4, 8, 16):
            b = BeamSearch(lm, "the", width=width, max_len=8, alpha=alpha).run()
            assert b.best.score <= best.score + 1e-9, (alpha, width)
