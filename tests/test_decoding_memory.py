"""Beam search keeps memory linear in steps x width, and refuses a plan over its budget."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from seqviz.decoding import BeamSearch, BigramModel, Greedy
from seqviz.decoding.records import TokenPath
from seqviz.decoding.search import MEMORY_BUDGET, check_memory, estimate_bytes
from seqviz.limits import LimitError


def looping_bigram(n_words: int, seed: int = 0, eos: float = 1e-4) -> BigramModel:
    """A random bigram whose sentences almost never end, so beams live to the length limit."""
    rng = np.random.default_rng(seed)
    names = [f"w{i}" for i in range(n_words)]
    table = {}
    for prev in ["<s>", *names]:
        p = rng.dirichlet(np.ones(n_words)) * (1 - eos)
        row = {w: float(x) for w, x in zip(names, p, strict=True)}
        row["</s>"] = max(0.0, 1.0 - sum(row.values()))
        table[prev] = row
    return BigramModel(table, name=f"loop{n_words}")


class WideModel:
    """A word model with a big vocabulary whose next-word row is drawn from the previous word
    (seeded), so no V x V table is held; </s> is never predicted. With `carry`, a state holds
    its row, as a recurrent LM's state holds its next-word log-probabilities."""

    level = "word"

    def __init__(self, n_words: int, carry: bool = False) -> None:
        self.carry = carry
        self.name = f"wide{n_words}"
        self.vocab = ("<s>", "</s>", *(f"w{i}" for i in range(n_words)))
        self.bos_id, self.eos_id = 0, 1

    def encode(self, text):
        return []

    def start(self, prompt_ids):
        return (0, self.row(0)) if self.carry else 0

    def row(self, prev: int) -> np.ndarray:
        z = np.random.default_rng(prev).standard_normal(len(self.vocab))
        z[:2] = -np.inf
        return z - np.log(np.exp(z[2:] - z[2:].max()).sum()) - z[2:].max()

    def logprobs(self, states):
        return np.stack([s[1] if self.carry else self.row(s) for s in states])

    def advance(self, states, tokens):
        return [(int(t), self.row(int(t))) if self.carry else int(t) for t in tokens]


def peak_bytes(model, width: int, max_len: int) -> tuple[int, object]:
    tracemalloc.start()
    try:
        search = BeamSearch(model, width=width, max_len=max_len)
        result = search.run()
        return tracemalloc.get_traced_memory()[1], (search, result)
    finally:
        tracemalloc.stop()


def test_token_paths_share_prefixes_and_read_like_tuples():
    a = TokenPath().extend(3).extend(5)
    b, c = a.extend(7), a.extend(8)
    assert b == (3, 5, 7) and (3, 5, 8) == c and b != c and len(b) == 3
    assert b[-1] == 7 and b[:2] == (3, 5) and list(b) == [3, 5, 7]
    assert (1,) + b == (1, 3, 5, 7) and hash(b) == hash((3, 5, 7))
    assert {b: 1}[(3, 5, 7)] == 1 and not TokenPath() and TokenPath() == ()
    assert b._parent is a and c._parent is a  # one link each, the prefix shared


@pytest.mark.slow
def test_beam_memory_grows_linearly_with_length():
    """Each hypothesis used to copy its whole prefix: 4x the memory for 2x the length.
    (Without the shared paths and compact steps, the 240-step run holds over 100 MB.)"""
    model = looping_bigram(40, eos=0.0)
    short, _ = peak_bytes(model, 50, 60)
    long, (search, result) = peak_bytes(model, 50, 240)
    assert result.stop == "max length" and len(result.best.tokens) == 240
    # linear: 4x the steps, about 4x the bytes (copied prefixes made it about 16x)
    assert long < 4 * short * 1.5, (short, long)
    assert long < 20e6, long
    # and the estimate the budget check uses is an upper bound of what was kept
    assert estimate_bytes(model, 50, 240, search._root_state) > long


def test_wide_vocabulary_step_records_only_its_best():
    """A 5,000-word model with width 3: 15,000 extensions a step; the step keeps the best."""
    model = WideModel(5000)
    search = BeamSearch(model, width=3, max_len=4)
    search.run()
    for st in search.history:
        assert len(st.candidates) <= 3 * 3 + 16
        assert st.considered == len(st.expanded) * 5000  # every word has probability > 0
        assert st.n_pruned == st.considered - 3
        ranked = [c.logprob for c in st.candidates]
        assert ranked == sorted(ranked, reverse=True)
        # the recorded ones are the true best: a full ranking by hand
        totals = np.concatenate([n.logprob + model.row(n.token)[2:] for n in st.expanded])
        assert np.allclose(ranked, np.sort(totals)[::-1][: len(ranked)])
    best = search.result().best
    assert search.path(best.id)[-1] == best and len(best.tokens) == 4


def test_budget_refuses_before_starting_in_one_sentence():
    model = WideModel(30_000, carry=True)
    root = model.start([])
    with pytest.raises(LimitError) as err:
        BeamSearch(model, width=100, max_len=1000)
    msg = str(err.value)
    assert msg.count(". ") == 0 and msg.endswith(".") and "GB" in msg and "budget" in msg
    # the length it proposes does fit, a little more does not
    fits = int(msg.split("at most ")[1].split(" ")[0].replace(",", ""))
    assert 1 <= fits < 1000
    check_memory(model, 100, fits, root)
    with pytest.raises(LimitError):
        check_memory(model, 100, fits * 2 + 10, root)
    Greedy(model, max_len=1000)  # a beam of one fits
    with pytest.raises(LimitError):  # and a wider model's greedy search is checked too
        Greedy(WideModel(300_000, carry=True), max_len=1000)
    assert MEMORY_BUDGET < 2e9


@pytest.mark.slow
def test_documented_maxima_fit_the_budget_on_the_shipped_lm():
    from seqviz import models
    from seqviz.limits import MAX_LEN, MAX_WIDTH

    lm = models.load("agreement", kind="lm")
    check_memory(lm, MAX_WIDTH, MAX_LEN, lm.start([]))  # accepted: it fits (measured ~0.5 GB)
