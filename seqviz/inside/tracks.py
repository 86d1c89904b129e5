"""What the agreement grammar knows at each step: subject number, distractor, distance to verb."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqviz.inside import TRACK_HELP, TRACKS  # noqa: F401  (re-exported)
from seqviz.tasks.grammar import ANIMATE, BE, THINGS, corpus

PLURAL_NOUNS = frozenset(ANIMATE.values()) | frozenset(THINGS.values())
SINGULAR_NOUNS = frozenset(ANIMATE) | frozenset(THINGS)
VERBS = frozenset(BE.values())  # is are was were: the main verb, the one that must agree
# the wrong verb for each right one: the same tense, the other number
OTHER = {"is": "are", "are": "is", "was": "were", "were": "was"}


@dataclass(frozen=True)
class Parse:
    """Where a grammar sentence keeps its agreement: word indices (0 = the first word)."""

    subject: int  # the subject noun
    verb: int  # the main verb (is/are/was/were)
    plural: bool

    @property
    def right(self) -> str:
        """Not the tense: the verb actually written decides was/were versus is/are."""
        return "are" if self.plural else "is"


def parse(words: list[str]) -> Parse | None:
    """The subject noun and main verb of a sentence of the grammar, or None if it has none."""
    subject = next((i for i, w in enumerate(words) if w in PLURAL_NOUNS | SINGULAR_NOUNS), None)
    if subject is None:
        return None
    verb = next((i for i in range(subject + 1, len(words)) if words[i] in VERBS), None)
    if verb is None:
        return None
    return Parse(subject, verb, words[subject] in PLURAL_NOUNS)


def has_other_number_distractor(words: list[str]) -> bool:
    """Whether a noun of the other number stands between the subject and the verb."""
    p = parse(words)
    if p is None:
        return False
    between = words[p.subject + 1 : p.verb]
    other = SINGULAR_NOUNS if p.plural else PLURAL_NOUNS
    return any(w in other for w in between)


def tracks(words: list[str]) -> dict[str, np.ndarray]:
    """Per input step of `<s> words` (T = len(words) + 1), each track's value; nan where the
    track is undefined (no subject read yet, or past the verb)."""
    T = len(words) + 1
    out = {name: np.full(T, np.nan) for name in TRACKS}
    p = parse(words)
    if p is None:
        return out
    s, v = p.subject + 1, p.verb + 1  # input steps: step 0 reads <s>
    # number: from reading the subject until the step that predicts the verb
    out["number"][s:v] = 1.0 if p.plural else -1.0
    # distractor: defined up to the verb; 1 on the words between subject and verb
    out["distractor"][: v + 1] = 0.0
    out["distractor"][s + 1 : v] = 1.0
    out["distance"][: v + 1] = v - np.arange(v + 1)
    return out


def held_out(n: int = 500, seed: int = 1, *, exclude: frozenset[str] = frozenset(),
             distractor: bool = True) -> list[list[str]]:  # fmt: skip
    """`n` grammar sentences from `seed` (the shipped corpus uses seed 0) not in `exclude`;
    with `distractor`, only those with a noun of the other number before the verb."""
    out: list[list[str]] = []
    seen: set[str] = set()
    batch = 0
    while len(out) < n:
        for line in corpus(4 * n, seed=seed * 1000 + batch):
            words = line.split()
            if line in exclude or line in seen:
                continue
            if distractor and not has_other_number_distractor(words):
                continue
            seen.add(line)
            out.append(words)
            if len(out) == n:
                break
        batch += 1
        if batch > 50:
            raise ValueError(f"the grammar gave fewer than {n} new sentences; ask for fewer.")
    return out
