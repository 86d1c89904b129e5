"""Agreement across attractors (Linzen et al.): accuracy per number of nouns of the other number
between the subject and its verb, on held-out sets of the grammar, one per count."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from seqviz.inside.ablation import verb_margins
from seqviz.models.lm import RNNLM
from seqviz.tasks.grammar import MAX_ATTRACTORS, attractor_sentence

N_PER_COUNT = 200
SEED = 3
COUNTS = tuple(range(MAX_ATTRACTORS + 1))
NESTED_COUNTS = tuple(range(1, MAX_ATTRACTORS + 1))


@lru_cache(maxsize=16)
def attractor_set(count: int, n: int = N_PER_COUNT, seed: int = SEED,
                  nested: bool = False) -> tuple[tuple[str, ...], ...]:  # fmt: skip
    """`n` distinct sentences with exactly `count` attractors, none in the shipped corpus."""
    from seqviz.inside.study import training_lines

    exclude = training_lines()
    rng = np.random.default_rng([seed, count, int(nested)])
    out: dict[str, tuple[str, ...]] = {}
    for _ in range(50 * n):
        words = attractor_sentence(rng, count, nested=nested)
        line = " ".join(words)
        if line not in exclude:
            out.setdefault(line, tuple(words))
        if len(out) == n:
            return tuple(out.values())
    raise ValueError(f"the grammar gave fewer than {n} new sentences with {count} attractors.")


@dataclass(frozen=True)
class AttractorCurve:
    """One model's accuracy (and mean margin, nats) per attractor count."""

    model: str
    cell: str
    nested: bool
    sentences: int  # per count
    accuracy: dict[int, float]
    margin: dict[int, float]

    def to_json(self) -> dict:
        return {"model": self.model, "cell": self.cell, "nested": self.nested,
                "sentences_per_count": self.sentences,
                "accuracy": {str(k): v for k, v in self.accuracy.items()},
                "margin": {str(k): v for k, v in self.margin.items()}}  # fmt: skip


def attractor_curve(lm: RNNLM, n: int = N_PER_COUNT, *, nested: bool = False, interventions=(),
                    name: str = "") -> AttractorCurve:  # fmt: skip
    acc, mar = {}, {}
    for k in NESTED_COUNTS if nested else COUNTS:
        m = verb_margins(lm, attractor_set(k, n, nested=nested), interventions)
        acc[k], mar[k] = float((m > 0).mean()), float(m.mean())
    return AttractorCurve(name or lm.name, lm.params.cell, nested, n, acc, mar)


@lru_cache(maxsize=8)
def shipped_curve(name: str, n: int = N_PER_COUNT, nested: bool = False) -> AttractorCurve:
    from seqviz import models

    return attractor_curve(models.load(name, kind="lm"), n, nested=nested, name=name)
