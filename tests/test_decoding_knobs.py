"""The decoder knobs (logit processors, diverse beam search) against a plain reference."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqviz.decoding import BeamSearch, BigramModel, Greedy, toy_model
from seqviz.decoding.diverse import DiverseBeamSearch
from seqviz.decoding.processors import Processors, for_model


def random_bigram(seed: int, n_words: int) -> BigramModel:
    rng = np.random.default_rng(seed)
    names = [f"w{i}" for i in range(n_words)]
    table = {}
    for prev in ["<s>", *names]:
        p = rng.dirichlet(np.ones(n_words + 1))
        row = {t: float(x) for t, x in zip([*names, "</s>"], p, strict=True)}
        row["</s>"] = max(0.0, 1.0 - math.fsum(v for k, v in row.items() if k != "</s>"))
        table[prev] = row
    return BigramModel(table, name=f"r{seed}")


def processed(model, seq, min_len, ngram, rep):
    """Reference: the processed log P of every next token after `seq` (generated ids), by rule."""
    prev = model.vocab[seq[-1]] if seq else "<s>"
    out = {}
    for tok, word in enumerate(model.vocab):
        p = model.table[prev].get(word, 0.0) if word != "<s>" else 0.0
        if p <= 0:
            continue
        lp, why = math.log(p), ""
        if word == "</s>" and len(seq) < min_len:
            continue
        if ngram:
            grams = {tuple(seq[i : i + ngram]) for i in range(len(seq) - ngram + 1)}
            if tuple([*seq, tok][-ngram:]) in grams and len(seq) + 1 >= ngram:
                continue
        if rep != 1.0 and tok in seq:
            lp, why = lp * rep, "rep"
        out[tok] = (lp, why)
    return out


def reference_beam(model, width, max_len, min_len=0, ngram=0, rep=1.0, groups=1, div=0.0):
    """A plain diverse beam search (groups=1: the lesson's beam) over dictionaries."""
    gw = width // groups
    beams = [[((), 0.0)] for _ in range(groups)]  # per group: (tokens, logprob)
    finished = []
    for _ in range(max_len):
        chosen: dict[int, int] = {}
        new_beams = []
        for g in range(groups):
            cands = []
            for b, (seq, lp) in enumerate(beams[g]):
                for tok, (tlp, _) in processed(model, list(seq), min_len, ngram, rep).items():
                    tlp -= div * chosen.get(tok, 0)
                    cands.append((lp + tlp, b, tok, seq))
            cands.sort(key=lambda c: (-c[0], c[1], c[2]))
            kept, slots = [], 0
            for total, _, tok, seq in cands:
                if slots >= gw:
                    break
                slots += 1
                chosen[tok] = chosen.get(tok, 0) + 1
                if tok == model.eos_id:
                    finished.append(((*seq, tok), total))
                else:
                    kept.append(((*seq, tok), total))
            new_beams.append(kept)
        beams = new_beams
        if not any(beams):
            break
    live = [h for grp in beams for h in grp] if any(beams) else []
    return sorted(finished, key=lambda h: -h[1]), live


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_words=st.integers(1, 4),
    width=st.integers(1, 4),
    max_len=st.integers(1, 6),
    min_len=st.integers(0, 3),
    ngram=st.integers(0, 3),
    rep=st.sampled_from([1.0, 1.5, 3.0]),
)
def test_processors_equal_the_reference(seed, n_words, width, max_len, min_len, ngram, rep):
    model = random_bigram(seed, n_words)
    knobs = for_model(model, min_len=min_len, no_repeat_ngram=ngram, repetition_penalty=rep)
    search = BeamSearch(model, width=width, max_len=max_len, processors=knobs)
    res = search.run()
    want_done, want_live = reference_beam(model, width, max_len, min_len, ngram, rep)
    got_done = [(tuple(h.tokens), h.logprob) for h in res.hypotheses if h.finished]
    assert [t for t, _ in got_done] == [t for t, _ in want_done]
    assert np.allclose([x for _, x in got_done], [x for _, x in want_done])
    got_live = sorted(
        (tuple(h.tokens), h.logprob) for h in res.hypotheses if not h.finished and h.depth
    )
    assert [t for t, _ in got_live] == sorted(t for t, _ in want_live)
    # every finished output obeys the rules it was decoded under
    for toks, _ in got_done:
        assert len(toks) - 1 >= min_len
        if ngram:
            grams = [tuple(toks[i : i + ngram]) for i in range(len(toks) - ngram + 1)]
            assert len(grams) == len(set(grams))


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_words=st.integers(1, 4),
    groups=st.integers(1, 3),
    group_width=st.integers(1, 2),
    max_len=st.integers(1, 5),
    div=st.sampled_from([0.0, 0.5, 3.0]),
)
def test_diverse_beam_equals_the_reference(seed, n_words, groups, group_width, max_len, div):
    model = random_bigram(seed, n_words)
    width = groups * group_width
    search = DiverseBeamSearch(model, width=width, groups=groups, diversity=div, max_len=max_len)
    res = search.run()
    want_done, want_live = reference_beam(model, width, max_len, groups=groups, div=div)
    got_done = [(tuple(h.tokens), h.logprob) for h in res.hypotheses if h.finished]
    assert sorted(got_done) == pytest.approx(sorted(want_done)) or (
        [t for t, _ in sorted(got_done)] == [t for t, _ in sorted(want_done)]
        and np.allclose([x for _, x in sorted(got_done)], [x for _, x in sorted(want_done)])
    )
    got_live = sorted(tuple(h.tokens) for h in res.hypotheses if not h.finished and h.depth)
    assert got_live == sorted(t for t, _ in want_live)


def test_diverse_groups_of_one_equal_plain_beam():
    m = random_bigram(7, 4)
    a = DiverseBeamSearch(m, width=3, groups=1, diversity=2.0, max_len=5).run()
    b = BeamSearch(m, width=3, max_len=5).run()
    assert [tuple(h.tokens) for h in a.hypotheses] == [tuple(h.tokens) for h in b.hypotheses]


def test_blocked_and_penalised_branches_are_marked_with_why():
    m = toy_model()
    s = BeamSearch(m, width=2, max_len=6, processors=for_model(m, min_len=2))
    st1 = s.step()
    (blocked,) = st1.blocked
    assert blocked.text == "</s>" and "min length" in blocked.note and blocked.status == "blocked"
    d = DiverseBeamSearch(m, width=2, groups=2, diversity=5.0, max_len=6)
    first = d.step()
    marked = [c for c in first.candidates if "diversity" in c.note]
    assert [c.text for c in marked] == ["the"]  # group 2 sees group 1's 'the' penalised
    assert [c.text for c in first.kept] == ["the", "a"]
    g = Greedy(m, max_len=6, processors=for_model(m, repetition_penalty=2.0))
    assert g.run().best.finished


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(min_len=-1), "min length"),
        (dict(no_repeat_ngram=11), "n-gram"),
        (dict(repetition_penalty=0.5), "repetition penalty"),
        (dict(repetition_penalty=float("nan")), "repetition penalty"),
    ],
)
def test_bad_knobs_one_sentence(kw, match):
    with pytest.raises(ValueError, match=match):
        Processors(**kw)


def test_diverse_width_must_split_into_groups():
    with pytest.raises(ValueError, match="multiple of the diverse groups"):
        DiverseBeamSearch(toy_model(), width=3, groups=2)
