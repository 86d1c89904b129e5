"""Agreement accuracy with units forced: intact, the chosen units, and as many random units.

Accuracy here is the share of sentences where, at the step before the main verb, the verb the
sentence uses is more probable than the same tense's other number (log P(right) - log P(wrong)
> 0). Sentences are split by condition: attractors (nouns of the other number between the
subject and its verb: none, or one or more) and subject-verb distance (short: at most
SHORT_MAX words from the subject to the verb; long: more).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from seqviz.inside.intervene import Intervention, ablate, forced_forward
from seqviz.inside.tracks import OTHER, PLURAL_NOUNS, SINGULAR_NOUNS, held_out, parse
from seqviz.models.lm import RNNLM

SHORT_MAX = 4  # "the keys to the cabinet are": the verb 4 words after the subject is short
CONDITIONS = ("all", "no attractor", "attractors", "short", "long")
N_SENTENCES = 500
SEED = 2  # the ablation set: grammar sentences of any kind, none from training (seed 0)
MIN_DRAWS = 10


def check_lm(lm: RNNLM, name: str) -> None:
    """ValueError unless `lm` reads the agreement grammar's words (a word-level LM that knows
    is/are/was/were)."""
    missing = [v for v in OTHER if v not in lm.index]
    if lm.level != "word" or missing:
        raise ValueError(
            f"the model {name!r} is not a word-level LM of the agreement grammar (it lacks "
            f"{', '.join(missing) or 'words'}); use agreement, agreement-gru, agreement-rnn or "
            "a model trained on that corpus."
        )


def attractors(words: Sequence[str]) -> int:
    """Nouns of the other number between the subject and its verb (0 without a parse)."""
    p = parse(list(words))
    if p is None:
        return 0
    other = SINGULAR_NOUNS if p.plural else PLURAL_NOUNS
    return sum(w in other for w in words[p.subject + 1 : p.verb])


def distance(words: Sequence[str]) -> int:
    """Words from the subject to its verb (1: adjacent)."""
    p = parse(list(words))
    if p is None:
        raise ValueError(f"no subject and verb in {' '.join(words)!r}.")
    return p.verb - p.subject


def condition_masks(sentences: Sequence[Sequence[str]],
                    short_max: int = SHORT_MAX) -> dict[str, np.ndarray]:  # fmt: skip
    """Condition -> (N,) bool mask over the sentences."""
    att = np.array([attractors(s) for s in sentences])
    dist = np.array([distance(s) for s in sentences])
    return {
        "all": np.ones(len(sentences), dtype=bool),
        "no attractor": att == 0,
        "attractors": att >= 1,
        "short": dist <= short_max,
        "long": dist > short_max,
    }


def verb_margins(lm: RNNLM, sentences: Sequence[Sequence[str]],
                 interventions: Sequence[Intervention] = ()) -> np.ndarray:  # fmt: skip
    """(N,) log P(the sentence's verb) - log P(the other number) where the verb comes, with the
    units forced (the forward pass stops at the word before the verb)."""
    out = np.empty(len(sentences))
    for k, words in enumerate(sentences):
        p = parse(list(words))
        if p is None:
            raise ValueError(f"no subject and verb in {' '.join(words)!r}.")
        ids, x = lm.inputs(" ".join(words[: p.verb]))
        h, _, _ = forced_forward(lm.params, x, interventions)
        lp = lm._logp(h[-1:].copy())[0]
        right = words[p.verb]
        out[k] = lp[lm.index[right]] - lp[lm.index[OTHER[right]]]
    return out


def accuracy_by_condition(margins: np.ndarray, masks: dict[str, np.ndarray]) -> dict[str, float]:
    """Condition -> share of positive margins (nan for a condition with no sentences)."""
    return {k: float((margins[m] > 0).mean()) if m.any() else float("nan")
            for k, m in masks.items()}  # fmt: skip


@lru_cache(maxsize=2)
def ablation_set(n: int = N_SENTENCES, seed: int = SEED) -> tuple[tuple[str, ...], ...]:
    """Held-out grammar sentences with and without attractors, none in the shipped corpus."""
    from seqviz.inside.study import training_lines

    return tuple(tuple(s) for s in held_out(n, seed, exclude=training_lines(), distractor=False))


@dataclass(frozen=True)
class Ablation:
    """Accuracy per condition: intact, with the units forced, with random units forced."""

    model: str
    cell: str
    units: tuple[tuple[str, int], ...]
    value: float
    from_step: int
    counts: dict[str, int]  # condition -> sentences
    intact: dict[str, float]
    ablated: dict[str, float]
    random: dict[str, np.ndarray]  # condition -> (draws,) accuracy per random draw
    random_units: tuple[tuple[tuple[str, int], ...], ...]  # the units of each draw

    def random_mean(self, condition: str) -> float:
        return float(np.mean(self.random[condition]))

    def random_std(self, condition: str) -> float:
        return float(np.std(self.random[condition]))

    def to_json(self) -> dict:
        return {
            "model": self.model, "cell": self.cell,
            "units": [f"{s}{u}" for s, u in self.units], "value": self.value,
            "from_step": self.from_step, "draws": len(self.random_units),
            "short_max": SHORT_MAX,
            "conditions": {
                c: {"sentences": self.counts[c], "intact": self.intact[c],
                    "ablated": self.ablated[c], "random_mean": self.random_mean(c),
                    "random_std": self.random_std(c),
                    "random_min": float(np.min(self.random[c])),
                    "random_max": float(np.max(self.random[c]))}
                for c in CONDITIONS
            },
            "random_units": [[f"{s}{u}" for s, u in d] for d in self.random_units],
        }  # fmt: skip


def random_units(units: Sequence[tuple[str, int]], hidden: int, rng: np.random.Generator
                 ) -> tuple[tuple[str, int], ...]:  # fmt: skip
    """As many units as `units`, of the same states, none of them among `units`."""
    taken = set(units)
    out: list[tuple[str, int]] = []
    for state, _ in units:
        free = [u for u in range(hidden) if (state, u) not in taken]
        if not free:
            raise ValueError(f"every {state} unit is ablated; no random {state} unit is left.")
        pick = (state, int(rng.choice(free)))
        taken.add(pick)
        out.append(pick)
    return tuple(out)


def ablation(
    lm: RNNLM, units: Sequence[tuple[str, int]], *, value: float = 0.0, from_step: int = 0,
    draws: int = MIN_DRAWS, seed: int = 0, sentences: Sequence[Sequence[str]] | None = None,
    name: str = "",
) -> Ablation:  # fmt: skip
    """Accuracy per condition intact, with `units` forced to `value` from `from_step` on, and
    with `draws` sets of as many random units (same states) forced the same way."""
    if draws < 1:
        raise ValueError(f"draws must be at least 1, got {draws}.")
    sents = ablation_set() if sentences is None else tuple(tuple(s) for s in sentences)
    masks = condition_masks(sents)
    units = tuple(units)
    target = ablate(units, from_step, value)
    intact = accuracy_by_condition(verb_margins(lm, sents), masks)
    forced = accuracy_by_condition(verb_margins(lm, sents, target), masks)
    rng = np.random.default_rng(seed)
    picks = tuple(random_units(units, lm.params.hidden_size, rng) for _ in range(draws))
    rand = [accuracy_by_condition(verb_margins(lm, sents, ablate(p, from_step, value)), masks)
            for p in picks]  # fmt: skip
    return Ablation(
        model=name or lm.name, cell=lm.params.cell, units=units, value=value,
        from_step=from_step, counts={k: int(m.sum()) for k, m in masks.items()},
        intact=intact, ablated=forced,
        random={c: np.array([r[c] for r in rand]) for c in CONDITIONS}, random_units=picks,
    )  # fmt: skip


@dataclass(frozen=True)
class Effect:
    """Held-out agreement accuracy per condition, intact and with the interventions."""

    record: str  # the interventions as text (to_text)
    sentences: int
    intact: dict[str, float]
    forced: dict[str, float]


@lru_cache(maxsize=32)
def effect(model: str, record: str, n: int = N_SENTENCES) -> Effect:
    """The held-out accuracy of a shipped (or saved) LM with the record's units forced,
    beside the intact model's; computed once per model and record."""
    from seqviz import models
    from seqviz.inside.intervene import from_text

    lm = models.load(model, kind="lm")
    check_lm(lm, model)
    ivs = from_text(record, lm.params)
    sents = ablation_set(n)
    masks = condition_masks(sents)
    intact = accuracy_by_condition(_intact_margins(model, n), masks)
    forced = accuracy_by_condition(verb_margins(lm, sents, ivs), masks) if ivs else intact
    return Effect(record, len(sents), intact, forced)


@lru_cache(maxsize=8)
def _intact_margins(model: str, n: int) -> np.ndarray:
    from seqviz import models

    return verb_margins(models.load(model, kind="lm"), ablation_set(n))
