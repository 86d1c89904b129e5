"""A trained LM reading one sentence: its states, gates and next-word distributions per step."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from seqviz.core.api import trace
from seqviz.inside.intervene import Intervention, forced_forward
from seqviz.inside.tracks import BE, PLURAL_NOUNS, SINGULAR_NOUNS, parse
from seqviz.models.lm import RNNLM

PAIRS = (("are", "is"), ("were", "was"))  # (plural, singular) verbs the lesson asks about


@dataclass(frozen=True)
class Reading:
    """`<s> text` read by `lm`: step t reads tokens[t] and predicts tokens[t + 1]."""

    tokens: tuple[str, ...]  # (T,) starting with <s>
    h: np.ndarray  # (T, d)
    c: np.ndarray | None  # (T, d) LSTM only
    gates: np.ndarray | None  # (T, G, d) LSTM i f g o, GRU r z n; None for the RNN
    logp: np.ndarray  # (T, V) next-token log-probabilities after each step

    @property
    def T(self) -> int:
        return len(self.tokens)


def read(lm: RNNLM, text: str, interventions: Sequence[Intervention] = ()) -> Reading:
    """The model reading `text` through its own vocabulary and embedding (ValueError naming an
    unknown word and the closest known ones), with units forced by `interventions` if any. A
    stacked model's units are numbered across its layers, the first layer's first."""
    ids, inp = lm.inputs(text)  # inp: (T, e)
    if interventions:
        if len(lm.layers) > 1:
            raise ValueError(
                f"units can be forced in a one-layer model only; {lm.name} has "
                f"{len(lm.layers)} layers."
            )
        h, c, gates = forced_forward(lm.params, inp, interventions)
        return Reading(tuple(lm.vocab[i] for i in ids), h, c, gates, lm._logp(h.copy()))
    hs, cs, gs = [], [], []
    for p in lm.layers:
        tr = trace(p, inp)
        inp = np.array(tr.h)
        hs.append(inp)
        cs.append(None if tr.c is None else np.array(tr.c))
        gs.append(None if tr.gates is None else np.array(tr.gates))
    logp = lm._logp(hs[-1].copy())  # (T, V)
    tokens = tuple(lm.vocab[i] for i in ids)

    def joined(arrs: list, axis: int) -> np.ndarray | None:
        return None if arrs[0] is None else np.concatenate(arrs, axis=axis)

    return Reading(tokens, np.concatenate(hs, axis=1), joined(cs, 1), joined(gs, 2), logp)


def right_verb(words: list[str]) -> str | None:
    """The verb the grammar asks for: the subject's number in the tense typed (present if no
    verb is typed yet); None without a subject noun."""
    p = parse(words)
    if p is None:
        nouns = [w for w in words if w in PLURAL_NOUNS | SINGULAR_NOUNS]
        if not nouns:
            return None
        return "are" if nouns[0] in PLURAL_NOUNS else "is"
    tense = "past" if words[p.verb] in ("was", "were") else "present"
    return BE[(tense, p.plural)]


@dataclass(frozen=True)
class Prediction:
    """The lesson's question asked at every step: which verb would come next?"""

    words: tuple[str, ...]  # (T,) the token read at each step, <s> first
    probs: dict[str, np.ndarray]  # verb -> (T,) P(verb next)
    right: str | None  # the verb that agrees with the subject
    rank: np.ndarray  # (T,) 1 = the right verb is the most probable next word; 0 without one
    entropy: np.ndarray  # (T,) bits of the next-word distribution


def predictions(lm: RNNLM, reading: Reading) -> Prediction:
    """P(are), P(is), P(were), P(was), the right verb's rank and the entropy at every step."""
    lp = reading.logp  # (T, V)
    p = np.exp(lp)
    probs = {
        v: (p[:, lm.index[v]] if v in lm.index else np.zeros(reading.T))
        for pair in PAIRS for v in pair
    }  # fmt: skip
    right = right_verb(list(reading.tokens[1:])) if lm.level == "word" else None
    if right is not None and right in lm.index:
        target = lp[:, lm.index[right]]
        rank = 1 + (lp > target[:, None]).sum(axis=1)
    else:
        right, rank = None, np.zeros(reading.T, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        ent = -np.where(p > 0, p * lp, 0.0).sum(axis=1) / np.log(2)
    return Prediction(reading.tokens, probs, right, rank, ent)
