"""Character n-gram baselines: the bits per character a recurrent LM has to beat.

Interpolated Witten-Bell smoothing: the estimate after a context h mixes what followed h in
training with the estimate after h's shorter context, trusting h more the more often it was
seen and the fewer different characters followed it,

    P(c | h) = (C(h c) + T(h) P(c | h')) / (C(h) + T(h)),

where T(h) is the number of different characters seen after h and h' drops h's first character.
The recursion ends in a uniform distribution over the training characters plus one slot for
any character never seen, so every held-out character has a probability above zero.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

UNSEEN = "\x00unseen"  # the one slot every character missing from training shares


@dataclass
class CharNGram:
    """An order-n character model (n = 1: unigram) trained on one text."""

    n: int
    counts: list[dict[str, Counter[str]]] = field(default_factory=list, repr=False)
    totals: list[dict[str, tuple[int, int]]] = field(default_factory=list, repr=False)
    alphabet: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, int) or not 1 <= self.n <= 12:
            raise ValueError(f"n must be a whole number from 1 to 12, got {self.n!r}.")

    @classmethod
    def train(cls, text: str, n: int) -> CharNGram:
        if not text:
            raise ValueError("the training text is empty.")
        model = cls(n)
        # counts[k][h][c]: how often c followed the k characters h
        model.counts = [defaultdict(Counter) for _ in range(n)]
        for i, c in enumerate(text):
            for k in range(n):
                if i - k < 0:
                    break
                model.counts[k][text[i - k : i]][c] += 1
        model.alphabet = frozenset(text)
        model.totals = [{h: (sum(c.values()), len(c)) for h, c in level.items()}
                        for level in model.counts]  # fmt: skip
        return model

    @property
    def size(self) -> int:
        """Outcomes: the training characters and the unseen slot."""
        return len(self.alphabet) + 1

    def prob(self, history: str, c: str) -> float:
        """P(c | the last n-1 characters of `history`)."""
        key = c if c in self.alphabet else UNSEEN  # never counted: its mass is the floor's share
        p = 1.0 / self.size
        for k in range(min(self.n, len(history) + 1)):
            h = history[len(history) - k :] if k else ""
            seen = self.counts[k].get(h)
            if seen is None:
                continue  # a context never seen: the shorter context's estimate stands
            total, types = self.totals[k][h]
            p = (seen.get(key, 0) + types * p) / (total + types)
        return p

    def bits_per_char(self, text: str) -> float:
        """Mean -log2 P(character | the ones before it) over `text` (the first characters use
        the shorter history they have)."""
        if not text:
            raise ValueError("the held-out text is empty.")
        total = 0.0
        for i, c in enumerate(text):
            total -= math.log2(self.prob(text[max(0, i - self.n + 1) : i], c))
        return total / len(text)
