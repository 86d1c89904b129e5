"""Many samples at once: the distinct sentences, their frequency against their model
probability, the share of repeats and distinct-n, beside the beam's single winner."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SentenceCount:
    tokens: tuple[int, ...]
    count: int
    frequency: float  # count / samples
    prob: float  # the model's probability of the whole sentence (temperature 1)


@dataclass(frozen=True)
class SampleHistogram:
    samples: int
    sentences: tuple[SentenceCount, ...]  # most frequent first
    repeats: float  # share of samples that repeat a sentence drawn before
    distinct: dict[int, float]  # n -> distinct n-grams / all n-grams over the samples
    beam: Any  # the beam's winner (a Node)
    beam_count: int  # how often sampling drew the beam's winner


def distinct_n(sentences: list[tuple[int, ...]], n: int) -> float:
    """Distinct n-grams over all n-grams of the sentences (nan when there are none)."""
    grams = [tuple(s[i : i + n]) for s in sentences for i in range(len(s) - n + 1)]
    return len(set(grams)) / len(grams) if grams else math.nan


def histogram(sampled: Any, beam_best: Any) -> SampleHistogram:
    """Count a `SampleResult`'s samples; `beam_best` is the beam's winning Node."""
    toks = [tuple(s.tokens) for s in sampled.samples]
    probs = {tuple(s.tokens): math.exp(s.logprob) for s in sampled.samples}
    counts = Counter(toks)
    n = len(toks)
    rows = tuple(
        SentenceCount(t, c, c / n, probs[t])
        for t, c in sorted(counts.items(), key=lambda kv: (-kv[1], -probs[kv[0]], kv[0]))
    )
    return SampleHistogram(
        samples=n,
        sentences=rows,
        repeats=1 - len(counts) / n if n else math.nan,
        distinct={k: distinct_n(toks, k) for k in (1, 2, 3)},
        beam=beam_best,
        beam_count=counts.get(tuple(beam_best.tokens), 0),
    )
