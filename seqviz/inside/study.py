"""The shipped agreement models measured on held-out sentences: accuracy, number units, gates."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from seqviz import models
from seqviz.inside import AGREEMENT_MODELS  # noqa: F401  (re-exported)
from seqviz.inside.reading import Reading, read
from seqviz.inside.saturation import Saturation, saturation
from seqviz.inside.tracks import OTHER, TRACKS, held_out, parse, tracks
from seqviz.inside.units import UnitScore, rank_units
from seqviz.models.lm import RNNLM
from seqviz.models.registry import DATA_DIR

N_HELD_OUT = 500
HELD_OUT_SEED = 1


@dataclass(frozen=True)
class Study:
    """One model over the held-out sentences (each with a distractor of the other number)."""

    name: str
    cell: str
    hidden: int
    sentences: int
    accuracy: float  # the right verb more probable than the wrong one (same tense)
    margin: float  # mean log P(right verb) - log P(wrong verb), nats
    units: dict[str, list[UnitScore]]  # track -> every unit of c and h, best first
    saturation: Saturation | None  # None for the RNN

    def best(self, track: str = "number") -> UnitScore:
        return self.units[track][0]

    def to_json(self, top: int = 5) -> dict:
        return {
            "model": self.name, "cell": self.cell, "hidden": self.hidden,
            "sentences": self.sentences, "accuracy": self.accuracy, "margin": self.margin,
            "units": {k: [{"state": s.state, "unit": s.unit, "r": s.r, "steps": s.n}
                          for s in v[:top]] for k, v in self.units.items()},
        }  # fmt: skip


def training_lines() -> frozenset[str]:
    """The shipped corpus, so that no held-out sentence was seen in training."""
    path = DATA_DIR / "agreement.txt"
    return frozenset(ln.strip() for ln in path.read_text(encoding="utf-8").splitlines())


@lru_cache(maxsize=2)
def held_out_set(n: int = N_HELD_OUT, seed: int = HELD_OUT_SEED) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(s) for s in held_out(n, seed, exclude=training_lines()))


def verb_margin_at_verb(lm: RNNLM, reading: Reading, words: list[str]) -> float:
    """log P(the sentence's verb) - log P(the same tense's other number) where the verb comes:
    positive when the model agrees."""
    p = parse(words)
    assert p is not None
    right = words[p.verb]
    lp = reading.logp[p.verb]  # step p.verb reads the word before the verb
    return float(lp[lm.index[right]] - lp[lm.index[OTHER[right]]])


def study(lm: RNNLM, sentences: tuple[tuple[str, ...], ...], name: str = "") -> Study:
    """Accuracy, units by pattern for every track, and gate saturation of `lm` on `sentences`."""
    readings = [read(lm, " ".join(s)) for s in sentences]
    margins = np.array([verb_margin_at_verb(lm, r, list(s))
                        for r, s in zip(readings, sentences, strict=True)])  # fmt: skip
    states = {"h": [r.h for r in readings]}
    if lm.params.cell == "lstm":
        states = {"c": [r.c for r in readings], "h": states["h"]}  # type: ignore[misc]
    per_track = [tracks(list(s)) for s in sentences]
    units = {t: rank_units(states, [tr[t] for tr in per_track]) for t in TRACKS}
    sat = None
    if lm.params.cell in ("lstm", "gru"):
        sat = saturation(lm.params.cell, [r.gates for r in readings if r.gates is not None])
    return Study(name or lm.name, lm.params.cell, lm.params.hidden_size, len(sentences),
                 float((margins > 0).mean()), float(margins.mean()), units, sat)  # fmt: skip


@lru_cache(maxsize=4)
def shipped_study(name: str, n: int = N_HELD_OUT) -> Study:
    """The study of a shipped (or saved) model on the standard held-out set, computed once."""
    return study(models.load(name, kind="lm"), held_out_set(n), name)
