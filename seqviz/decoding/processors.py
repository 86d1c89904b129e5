"""Logit processors, the knobs of real decoders, applied to a beam's (B, V) log-probs in one order.

1. `min_len` N: </s> is blocked while a hypothesis has fewer than N tokens (so every finished
   output has at least N tokens before its </s>).
2. `no_repeat_ngram` N: a token that would complete an N-gram already present in the prompt and
   the hypothesis is blocked (n-gram blocking).
3. `repetition_penalty` R (CTRL, Keskar et al. 2019): the log-probability of every token already
   in the prompt or the hypothesis is multiplied by R (log-probs are <= 0, so R > 1 lowers
   them). Not renormalised, as in the common libraries' beam search.

A blocked token's log-prob becomes -inf; every changed entry gets a note code naming why
(`NOTE_NAMES[code - 1]`), which the search keeps so the tree can mark the branch.
Diverse beam search is the fourth knob; it needs the groups, so it lives in `DiverseBeamSearch`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MIN_LEN_NOTE, NGRAM_NOTE, REPEAT_NOTE, DIVERSITY_NOTE = 1, 2, 3, 4
MAX_NGRAM = 10
MAX_MIN_LEN = 1000


@dataclass(frozen=True)
class Processors:
    """The processors to apply; the defaults change nothing."""

    min_len: int = 0
    no_repeat_ngram: int = 0
    repetition_penalty: float = 1.0
    eos_id: int = -1  # the model's </s> (set by `for_model`)

    def __post_init__(self) -> None:
        for name, value, hi in (
            ("min length", self.min_len, MAX_MIN_LEN),
            ("no-repeat n-gram size", self.no_repeat_ngram, MAX_NGRAM),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"the {name} must be a whole number from 0 to {hi}, got {value}.")
            if not 0 <= value <= hi:
                raise ValueError(f"the {name} must be a whole number from 0 to {hi}, got {value}.")
        r = self.repetition_penalty
        if not isinstance(r, (int, float)) or not math.isfinite(r) or not 1.0 <= r <= 100.0:
            raise ValueError(f"the repetition penalty must be a number from 1 to 100, got {r}.")

    @property
    def active(self) -> bool:
        return bool(self.min_len or self.no_repeat_ngram or self.repetition_penalty != 1.0)

    @property
    def note_names(self) -> tuple[str, ...]:
        return (
            f"blocked: min length {self.min_len}",
            f"blocked: repeats a {self.no_repeat_ngram}-gram",
            f"penalised: repeat, log P x{self.repetition_penalty:g}",
            "penalised: diversity",
        )

    def apply(
        self, logprobs: np.ndarray, beam: Sequence, prompt_ids: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """(processed (B, V) log-probs, (B, V) int8 note codes, 0 where unchanged)."""
        lp = np.array(logprobs, dtype=np.float64)  # a copy: the model's array stays intact
        notes = np.zeros(lp.shape, dtype=np.int8)
        for b, node in enumerate(beam):
            seq = [*prompt_ids, *node.tokens]
            if self.min_len and node.depth < self.min_len and np.isfinite(lp[b, self.eos_id]):
                lp[b, self.eos_id] = -np.inf
                notes[b, self.eos_id] = MIN_LEN_NOTE
            n = self.no_repeat_ngram
            if n and len(seq) >= n - 1:
                head = tuple(seq[len(seq) - n + 1 :]) if n > 1 else ()
                for i in range(len(seq) - n + 1):
                    if tuple(seq[i : i + n - 1]) == head:
                        tok = seq[i + n - 1]
                        if np.isfinite(lp[b, tok]):
                            lp[b, tok] = -np.inf
                            notes[b, tok] = NGRAM_NOTE
            if self.repetition_penalty != 1.0 and seq:
                seen = np.unique(np.asarray(seq, dtype=np.intp))
                hit = seen[np.isfinite(lp[b, seen]) & (notes[b, seen] == 0)]
                lp[b, hit] *= self.repetition_penalty
                notes[b, hit[lp[b, hit] != 0]] = REPEAT_NOTE
        return lp, notes


def for_model(model, **knobs) -> Processors | None:
    """Processors for `model` with the given knobs, or None when none is set."""
    p = Processors(eos_id=model.eos_id, **knobs)
    return p if p.active else None
