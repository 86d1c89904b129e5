"""Agreement at distance L: the grammar's subject, L words of distractors; is the verb plural?"""

from __future__ import annotations

import numpy as np

from seqviz.tasks.grammar import ANIMATE, PREPOSITIONS, THINGS
from seqviz.tasks.lagged import LagBatch, LagTask, check_lag, one_hot

ADJECTIVES = ("old", "new", "broken")
ADVERBS = ("still", "now")  # one-word fillers, so that every distance can be reached
NOUNS = (*ANIMATE, *ANIMATE.values(), *THINGS, *THINGS.values())
VOCAB = ("the", *NOUNS, *PREPOSITIONS, *ADJECTIVES, *ADVERBS)
CLASSES = ("singular", "plural")
_INDEX = {w: i for i, w in enumerate(VOCAB)}
_PLURALS = {**ANIMATE, **THINGS}


def _noun(rng: np.random.Generator, plural: bool) -> str:
    singular = list(_PLURALS)[int(rng.integers(len(_PLURALS)))]
    return _PLURALS[singular] if plural else singular


def _filler(rng: np.random.Generator, n: int, plural: bool) -> list[str]:
    """Exactly n words of prepositional phrases (nouns mostly of the other number), adverbs."""
    words: list[str] = []
    while n - len(words) >= 3:
        other = not plural if rng.random() < 0.7 else plural
        phrase = [PREPOSITIONS[int(rng.integers(len(PREPOSITIONS)))], "the"]
        if n - len(words) >= 4 and rng.random() < 0.3:
            phrase.append(ADJECTIVES[int(rng.integers(len(ADJECTIVES)))])
        words += [*phrase, _noun(rng, other)]
    while len(words) < n:
        words.append(ADVERBS[int(rng.integers(len(ADVERBS)))])
    return words


def agreement_task(lag: int) -> LagTask:
    """Sequences of lag+2 words: "the", the subject at step 1, lag words; chance 1/2."""
    lag = check_lag(lag)

    def make(rng: np.random.Generator, size: int) -> LagBatch:
        y = rng.integers(2, size=size)
        rows = []
        for plural in y:
            rows.append(["the", _noun(rng, bool(plural)), *_filler(rng, lag, bool(plural))])
        ids = np.array([[_INDEX[w] for w in row] for row in rows], dtype=np.int64)  # (B, T)
        tokens = tuple(tuple(row) for row in rows)
        return LagBatch(one_hot(ids, len(VOCAB)), y, tokens, key=1)

    return LagTask("agreement", lag, VOCAB, CLASSES, make)


if __name__ == "__main__":
    from seqviz.tasks.lagged import main

    raise SystemExit(main("agreement"))
