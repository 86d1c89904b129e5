"""Decoding engine: greedy, beam search, sampling and the cut-offs on toy and random bigrams."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from seqviz.decoding import (
    TOY_BIGRAM,
    BeamSearch,
    BigramModel,
    Greedy,
    Sampler,
    filter_distribution,
    toy_model,
)
from seqviz.decoding.lesson import beam_table, format_beam_table


def words(model, node):
    return [model.vocab[t] for t in node.tokens]


def random_bigram(seed: int, n_words: int = 5, eos_p: float = 0.25) -> BigramModel:
    """A random bigram table over w0..w{n-1} with every row summing to 1."""
    rng = np.random.default_rng(seed)
    names = [f"w{i}" for i in range(n_words)]
    table = {}
    for prev in ["<s>", *names]:
        # Some end-of-sentence mass in every row so that searches finish.
        p = (1 - eos_p) * rng.dirichlet(np.ones(n_words + 1) * 0.7)
        p[-1] += eos_p
        table[prev] = {tok: float(x) for tok, x in zip([*names, "</s>"], p, strict=True)}
        # Make the row sum to 1 to within rounding for the validator.
        last = [*names, "</s>"][-1]
        table[prev][last] = 1.0 - math.fsum(v for k, v in table[prev].items() if k != last)
    return BigramModel(table, name=f"random{seed}")


def exhaustive_best(model: BigramModel, max_len: int) -> tuple[list[str], float]:
    """Best finished sequence of at most max_len tokens by brute-force enumeration."""
    best, best_lp = None, -math.inf
    content = [t for t in model.vocab if t not in ("<s>", "</s>")]
    for n in range(0, max_len):
        for seq in itertools.product(content, repeat=n):
            toks = [*seq, "</s>"]
            prev, lp = "<s>", 0.0
            for t in toks:
                p = model.table[prev].get(t, 0.0)
                if p == 0.0:
                    lp = -math.inf
                    break
                lp += math.log(p)
                prev = t
            if lp > best_lp:
                best, best_lp = toks, lp
    return best, best_lp


# --- the lesson ------------------------------------------------------------------------------
def test_lesson_table_numbers():
    rows = beam_table()
    got = [(r.label, " ".join(r.tokens), f"{r.prob:.3f}") for r in rows]
    assert got == [
        ("greedy", "the dog </s>", "0.140"),
        ("beam, width 1", "the dog </s>", "0.140"),
        ("beam, width 2", "a small cat </s>", "0.292"),
        ("beam, width 3", "a small cat </s>", "0.292"),
    ]
    text = format_beam_table(rows)
    assert "p = 0.140" in text and "p = 0.292" in text


def test_beam_step_records_follow_the_lesson():
    m = toy_model()
    s = BeamSearch(m, width=2, max_len=6)
    st1 = s.step()
    assert [c.text for c in st1.candidates] == ["the", "a", "</s>"]
    assert [c.status for c in st1.candidates] == ["kept", "kept", "pruned"]
    st2 = s.step()
    # "a small" (0.36) outranks "the dog" (0.2): the width-2 beam keeps both, drops "the cat".
    assert [(words(m, c), round(c.prob, 4)) for c in st2.kept] == [
        (["a", "small"], 0.36),
        (["the", "dog"], 0.2),
    ]
    assert all(c.parent in {n.id for n in st2.expanded} for c in st2.candidates)
    assert len(st2.candidates) == 5 and len(st2.pruned) == 3
    st3 = s.step()
    assert [words(m, c) for c in st3.new_finished] == [["the", "dog", "</s>"]]
    assert [words(m, c) for c in st3.beam] == [["a", "small", "cat"]]
    # The finished hypothesis used a slot: only one stays live.
    assert len(st3.kept) + len(st3.new_finished) == 2


def test_back_restores_and_replays_identically():
    m = toy_model()
    s = BeamSearch(m, width=2, max_len=6)
    first = [s.step() for _ in range(3)]
    assert s.back() is first[1]
    assert s.beam == first[1].beam
    again = s.step()
    assert again == first[2]
    s.back(), s.back(), s.back()
    assert s.current is None and s.beam == (s.root,)
    assert s.back() is None
    assert s.run().best == BeamSearch(m, width=2, max_len=6).run().best


def test_tree_nodes_and_path():
    m = toy_model()
    s = BeamSearch(m, width=2, max_len=6)
    res = s.run()
    nodes = s.nodes()
    assert len(nodes) == 1 + sum(len(st.candidates) for st in s.history)
    path = s.path(res.best.id)
    assert [n.text for n in path] == ["<s>", "a", "small", "cat", "</s>"]
    assert math.isclose(sum(n.token_logprob for n in path), res.best.logprob)


# --- greedy vs beam ----------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_width_one_equals_greedy(seed):
    m = random_bigram(seed)
    for max_len in (1, 3, 7):
        g = Greedy(m, max_len=max_len).run()
        b = BeamSearch(m, width=1, max_len=max_len).run()
        assert g.best.tokens == b.best.tokens
        assert math.isclose(g.best.logprob, b.best.logprob)
        assert g.best.finished == b.best.finished


def test_width_one_equals_greedy_on_toy():
    m = toy_model()
    assert Greedy(m).run().best.tokens == BeamSearch(m, width=1).run().best.tokens


@pytest.mark.parametrize("seed", range(5))
def test_wide_beam_finds_exhaustive_best(seed):
    m = random_bigram(seed, n_words=4)
    max_len = 5
    want, want_lp = exhaustive_best(m, max_len)
    # Width >= number of possible sequences of max_len tokens: nothing is ever pruned.
    width = (len(m.vocab)) ** max_len
    res = BeamSearch(m, width=width, max_len=max_len).run()
    assert words(m, res.best) == want
    assert math.isclose(res.best.logprob, want_lp)


def test_exhaustive_best_on_toy_is_the_lesson_answer():
    m = toy_model()
    want, lp = exhaustive_best(m, 6)
    res = BeamSearch(m, width=1000, max_len=6).run()
    assert words(m, res.best) == want == ["a", "small", "cat", "</s>"]


def test_length_normalisation_ranks_finished_by_score():
    m = toy_model()
    alpha = 1.0
    res = BeamSearch(m, width=3, max_len=6, alpha=alpha).run()
    scores = [h.score for h in res.hypotheses]
    assert scores == sorted(scores, reverse=True)
    for h in res.hypotheses:
        assert math.isclose(h.score, h.logprob / len(h.tokens) ** alpha)
    plain = BeamSearch(m, width=3, max_len=6, alpha=0.0).run()
    assert all(h.score == h.logprob for h in plain.hypotheses)
    assert words(m, res.best) == ["a", "small", "cat", "</s>"]
    # Plain log-probability puts the one-token "</s>" above the five-token sentence; dividing
    # by the length reverses that.
    rank = {tuple(words(m, h)): i for i, h in enumerate(res.hypotheses)}
    rank0 = {tuple(words(m, h)): i for i, h in enumerate(plain.hypotheses)}
    long, short = ("a", "small", "cat", "sat", "</s>"), ("</s>",)
    assert rank0[short] < rank0[long] and rank[long] < rank[short]


def test_keep_live_variant_keeps_width_live():
    m = toy_model()
    s = BeamSearch(m, width=2, max_len=6, keep_live=True)
    st1 = s.step()
    assert len(st1.beam) == 2
    st2 = s.step()
    assert len(st2.beam) == 2  # finished ones do not use up a slot
    res = s.run()
    assert words(m, res.best) == ["a", "small", "cat", "</s>"]
    assert all(st.stop is None for st in s.history[:-1])


def test_max_length_stops_with_unfinished():
    m = toy_model()
    res = BeamSearch(m, width=2, max_len=2).run()
    # Nothing finishes within two tokens at width 2: both beams stop live, at the length limit.
    assert [(words(m, h), h.finished) for h in res.hypotheses] == [
        (["a", "small"], False),
        (["the", "dog"], False),
    ]
    assert res.best is res.hypotheses[0] and all(h.depth == 2 for h in res.hypotheses)
    g = Greedy(m, max_len=1).run()
    assert g.best.tokens == (m.index["the"],) and not g.best.finished


def test_prompt_continues_from_last_word():
    m = toy_model()
    res = Greedy(m, "a").run()
    assert words(m, res.best) == ["small", "cat", "</s>"]
    # From "the", greedy takes "dog" (0.4) but "cat </s>" (0.315) beats "dog </s>" (0.28).
    assert words(m, Greedy(m, "the").run().best) == ["dog", "</s>"]
    assert words(m, BeamSearch(m, "the", width=2).run().best) == ["cat", "</s>"]


# --- the cut-offs ------------------------------------------------------------------------------
def rand_logprobs(seed: int, V: int = 12) -> np.ndarray:
    z = np.random.default_rng(seed).normal(0, 2, V)
    return z - np.log(np.exp(z).sum())


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.9, 0.99, 1.0])
def test_nucleus_is_minimal(seed, p):
    lp = rand_logprobs(seed)
    vocab = tuple(str(i) for i in range(len(lp)))
    d = filter_distribution(lp, vocab, top_p=p)
    kept = d.in_top_p
    probs = np.exp(lp)
    assert probs[kept].sum() >= p - 1e-12
    # Minimal: dropping the least probable kept token falls below p ...
    weakest = np.flatnonzero(kept)[np.argmin(probs[kept])]
    assert probs[kept].sum() - probs[weakest] < p
    # ... and no smaller set reaches p (the top-(n-1) tokens are the best set of that size).
    n = kept.sum()
    assert np.sort(probs)[::-1][: n - 1].sum() < p
    # It is a prefix by probability: every kept token beats every dropped one.
    if (~kept).any():
        assert probs[kept].min() >= probs[~kept].max()
    assert math.isclose(d.final.sum(), 1.0)


def test_nucleus_exact_boundary_on_toy():
    m = toy_model()
    d = filter_distribution(m.logprobs([m.bos_id])[0], m.vocab, top_p=0.9)
    assert [m.vocab[i] for i in d.support] == ["the", "a"]
    assert np.allclose(d.final[[m.index["the"], m.index["a"]]], [5 / 9, 4 / 9])
    assert d.stage(m.index["</s>"]) == "top-p"
    assert d.stage(m.index["dog"]) == "impossible"


def test_top_k_then_top_p_stages():
    lp = np.log(np.array([0.4, 0.3, 0.2, 0.1]))
    d = filter_distribution(lp, ("a", "b", "c", "d"), top_k=3, top_p=0.7)
    assert d.in_top_k.tolist() == [True, True, True, False]
    # After top-k the mass is 4/9, 3/9, 2/9: "a"+"b" = 7/9 >= 0.7 is the nucleus.
    assert d.in_top_p.tolist() == [True, True, False, False]
    assert np.allclose(d.final, [4 / 7, 3 / 7, 0, 0])
    assert [r[4] for r in d.rows()] == ["kept", "kept", "top-p", "top-k"]


def test_temperature_flattens_and_sharpens():
    lp = rand_logprobs(3)
    vocab = tuple(str(i) for i in range(len(lp)))
    ent = []
    for t in (0.25, 1.0, 4.0):
        q = filter_distribution(lp, vocab, temperature=t).final
        ent.append(-(q[q > 0] * np.log(q[q > 0])).sum())
    assert ent[0] < ent[1] < ent[2]


def test_temperature_towards_zero_approaches_greedy():
    lp = rand_logprobs(5)
    vocab = tuple(str(i) for i in range(len(lp)))
    top = int(np.argmax(lp))
    masses = [filter_distribution(lp, vocab, temperature=t).final[top] for t in (1, 0.3, 0.1, 0.01)]
    assert masses == sorted(masses) and masses[-1] > 0.999
    m = toy_model()
    greedy = Greedy(m).run().best.tokens
    samples = Sampler(m, temperature=0.01, seed=1, samples=20).run().samples
    assert all(s.tokens == greedy for s in samples)
    # Even underflowing temperatures keep the argmax.
    assert filter_distribution(lp, vocab, temperature=1e-300).final[top] == 1.0


# --- sampling ----------------------------------------------------------------------------------
def test_sampling_is_seeded_and_reproducible():
    m = toy_model()
    a = Sampler(m, seed=7, samples=30).run()
    b = Sampler(m, seed=7, samples=30).run()
    c = Sampler(m, seed=8, samples=30).run()
    assert a == b
    assert [s.tokens for s in a.samples] != [s.tokens for s in c.samples]


def test_sampling_back_rewinds_the_generator():
    m = toy_model()
    s = Sampler(m, seed=3, samples=5)
    recs = [s.step() for _ in range(6)]
    s.back(), s.back()
    assert s.current is recs[3]
    again = [s.step(), s.step()]
    assert [(r.node, r.draw) for r in again] == [(r.node, r.draw) for r in recs[4:6]]


def test_sample_tree_shares_prefixes():
    m = toy_model()
    s = Sampler(m, seed=0, samples=40)
    s.run()
    nodes = s.nodes()
    # Possible distinct paths in the toy are few; 40 samples must revisit nodes.
    assert len(nodes) < 40
    visits = s.visits()
    first_layer = [n for n in nodes.values() if n.parent == 0]
    assert sum(visits[n.id] for n in first_layer) == 40


@pytest.mark.slow
@pytest.mark.parametrize(
    ("temperature", "top_k", "top_p"), [(1.0, None, None), (0.7, 3, None), (1.5, None, 0.8)]
)
def test_sampling_frequencies_match_truncated_distribution(temperature, top_k, top_p):
    lp = rand_logprobs(11, V=8)
    vocab = tuple(f"t{i}" for i in range(8))
    table = {"<s>": {**{v: float(np.exp(x)) for v, x in zip(vocab, lp, strict=True)}, "</s>": 0.0}}
    for v in vocab:
        table[v] = {"</s>": 1.0}
    # Exact sum for the validator.
    table["<s>"]["t7"] = 1.0 - math.fsum(x for k, x in table["<s>"].items() if k != "t7")
    m = BigramModel(table)
    n = 4000
    res = Sampler(
        m, temperature=temperature, top_k=top_k, top_p=top_p, seed=123, samples=n, max_len=2
    ).run()
    first = np.array([s.tokens[0] for s in res.samples])
    d = filter_distribution(m.logprobs([m.bos_id])[0], m.vocab, temperature, top_k, top_p)
    support = d.support
    counts = np.array([(first == t).sum() for t in support])
    assert counts.sum() == n  # nothing outside the truncated support
    expected = d.final[support] * n
    _, pvalue = stats.chisquare(counts, expected)
    assert pvalue > 0.001


def test_sampling_logprob_is_model_logprob():
    m = toy_model()
    for s in Sampler(m, temperature=2.0, seed=4, samples=10).run().samples:
        prev, lp = "<s>", 0.0
        for t in words(m, s):
            lp += math.log(TOY_BIGRAM[prev][t])
            prev = t
        assert math.isclose(s.logprob, lp)


# --- bad settings ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"width": 0}, "width"),
        ({"width": -3}, "width"),
        ({"max_len": 0}, "max length"),
        ({"alpha": -1.0}, "alpha"),
        ({"alpha": float("nan")}, "alpha"),
    ],
)
def test_bad_search_settings(kwargs, match):
    with pytest.raises(ValueError, match=match):
        BeamSearch(toy_model(), **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"temperature": 0.0}, "temperature"),
        ({"temperature": -1.0}, "temperature"),
        ({"top_k": 0}, "top-k"),
        ({"top_p": 0.0}, "top-p"),
        ({"top_p": 1.5}, "top-p"),
        ({"samples": 0}, "samples"),
    ],
)
def test_bad_sampling_settings(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Sampler(toy_model(), **kwargs)


def test_unknown_prompt_word():
    with pytest.raises(ValueError, match="'zebra' is not in the vocabulary"):
        Greedy(toy_model(), "the zebra")


def test_decoding_imports_no_ui_library():
    import json
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "import seqviz.decoding, seqviz.models.lm, seqviz.models.lm_train, seqviz.training\n"
        "import seqviz.tasks.grammar, seqviz.decoding.lesson, seqviz.bench.decoding\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = json.loads(out.stdout)
    ui = ("textual", "rich", "plotext", "textual_plotext", "torch")
    assert not [m for m in modules if m.split(".")[0] in ui]
    assert "seqviz.decoding.search" in modules


def test_seek_and_rankings():
    m = toy_model()
    s = BeamSearch(m, width=3, max_len=6, alpha=1.0)
    s.seek(2)
    assert len(s.history) == 2
    s.seek(0)
    assert s.current is None
    s.seek(99)
    assert s.done
    res = s.result()
    by_lp = [h.logprob for h in res.ranked("logprob")]
    by_score = [h.score for h in res.ranked("score")]
    assert by_lp == sorted(by_lp, reverse=True) and by_score == sorted(by_score, reverse=True)
    assert res.ranked("logprob") != res.ranked("score")  # alpha=1 reorders "</s>" and the long one
    sm = Sampler(m, seed=0, samples=3)
    sm.seek(4)
    assert len(sm.history) == 4
    d = sm.distribution(0)
    assert np.array_equal(d.final, sm.history[0].distribution.final)
    with pytest.raises(ValueError, match="finished hypothesis"):
        s.distribution(res.best.id)


def test_result_ranks_finished_hypotheses_before_live_ones():
    m = toy_model()
    res = BeamSearch(m, width=2, max_len=3).run()
    got = [(words(m, h), h.finished, round(h.score, 3)) for h in res.hypotheses]
    # The live "a small cat" scores higher than the finished one, yet a hypothesis that never
    # ended is not an answer: finished ones come first, and best is a finished one.
    assert got == [(["the", "dog", "</s>"], True, -1.966), (["a", "small", "cat"], False, -1.127)]
    assert res.best.finished


def _nucleus_by_hand(logprobs, temperature, p):
    """The smallest set of most probable tokens whose TEMPERED probability reaches p."""
    z = np.exp((logprobs - logprobs.max()) / temperature)
    q = z / z.sum()
    order = np.argsort(-q, kind="stable")
    keep, mass = [], 0.0
    for i in order:
        keep.append(int(i))
        mass += q[i]
        if mass >= p - 1e-12:
            break
    return set(keep), q


@pytest.mark.parametrize(("temperature", "top_p"), [(0.5, 0.6), (2.0, 0.6), (3.0, 0.8)])
def test_top_p_takes_its_mass_from_the_tempered_distribution(temperature, top_p):
    vocab = ("a", "b", "c", "d", "e")
    lp = np.log(np.array([0.5, 0.2, 0.15, 0.1, 0.05]))
    want, q = _nucleus_by_hand(lp, temperature, top_p)
    # the case must tell tempered from untempered mass apart
    assert want != _nucleus_by_hand(lp, 1.0, top_p)[0]
    d = filter_distribution(lp, vocab, temperature=temperature, top_p=top_p)
    assert set(np.flatnonzero(d.in_top_p).tolist()) == want
    np.testing.assert_allclose(d.final[sorted(want)], q[sorted(want)] / q[sorted(want)].sum())


def test_sampler_stops_at_max_len():
    m = toy_model()
    for max_len in (1, 2, 3):
        samples = Sampler(m, seed=0, samples=40, max_len=max_len).run().samples
        assert max(len(s.tokens) for s in samples) == max_len
        # those cut off by the limit are unfinished; finished ones end with </s>
        for s in samples:
            assert s.finished == (s.tokens[-1] == m.eos_id)
            assert s.finished or len(s.tokens) == max_len
        assert any(not s.finished for s in samples)
