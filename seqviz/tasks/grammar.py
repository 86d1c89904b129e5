"""A small English grammar with subject-verb agreement across distractors, for the shipped corpus.

Every sentence has a subject noun whose number decides the main verb ("is"/"are", "was"/"were"),
with prepositional phrases or a relative clause in between whose nouns often have the other
number: "the keys to the cabinet in the hallway are missing". Run as a script to regenerate the
shipped corpus: `python -m seqviz.tasks.grammar --sentences 5000 --seed 0 --out FILE`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from seqviz.files import atomic_write

# singular -> plural
ANIMATE = {
    "dog": "dogs",
    "cat": "cats",
    "teacher": "teachers",
    "student": "students",
    "author": "authors",
    "friend": "friends",
}
THINGS = {
    "key": "keys",
    "cabinet": "cabinets",
    "book": "books",
    "table": "tables",
    "door": "doors",
    "box": "boxes",
    "window": "windows",
    "picture": "pictures",
}
PREPOSITIONS = ("to", "near", "on", "behind", "of", "beside", "with", "under")
# transitive verbs for relative clauses: (singular, plural)
VERBS = (("likes", "like"), ("sees", "see"), ("chases", "chase"), ("knows", "know"))
BE = {
    ("present", False): "is",
    ("present", True): "are",
    ("past", False): "was",
    ("past", True): "were",
}
PLACES = ("here", "in the hallway", "by the door")
PREDICATES = {
    True: ("happy", "asleep", "gone", *PLACES),  # animate subjects
    False: ("missing", "old", "new", "broken", "on the table", *PLACES),
}


def _noun(rng: np.random.Generator, plural: bool, animate: bool | None = None) -> str:
    if animate is None:
        animate = bool(rng.random() < 0.4)
    table = ANIMATE if animate else THINGS
    singular = list(table)[int(rng.integers(len(table)))]
    return table[singular] if plural else singular


def sentence(rng: np.random.Generator) -> list[str]:
    """One sentence as words; the verb agrees with the head noun of the subject."""
    plural = bool(rng.random() < 0.5)
    kind = rng.random()
    animate = bool(kind < 0.25 or rng.random() < 0.4)
    words = ["the"]
    if kind < 0.25:
        # a relative clause: its verb agrees with the subject as well
        words.append(_noun(rng, plural, animate=True))
        verb = VERBS[int(rng.integers(len(VERBS)))][1 if plural else 0]
        words += ["that", verb, "the", _noun(rng, not plural if rng.random() < 0.7 else plural)]
    else:
        words.append(_noun(rng, plural, animate))
        n_pp = 0 if kind < 0.4 else (1 if kind < 0.8 else 2)
        for _ in range(n_pp):
            # distractors mostly carry the other number, so the nearest noun misleads
            other = not plural if rng.random() < 0.7 else plural
            words += [PREPOSITIONS[int(rng.integers(len(PREPOSITIONS)))], "the"]
            words.append(_noun(rng, other))
    tense = "past" if rng.random() < 0.3 else "present"
    words.append(BE[(tense, plural)])
    options = PREDICATES[animate]
    words += options[int(rng.integers(len(options)))].split()
    return words


def corpus(n_sentences: int, seed: int = 0) -> list[str]:
    """`n_sentences` sentences, one string each (words separated by single spaces)."""
    rng = np.random.default_rng(seed)
    return [" ".join(sentence(rng)) for _ in range(n_sentences)]


MAX_ATTRACTORS = 3


def attractor_sentence(rng: np.random.Generator, attractors: int, *, nested: bool = False
                       ) -> list[str]:  # fmt: skip
    """A sentence with exactly `attractors` nouns of the other number between the subject and
    its verb, in max(attractors, 2) prepositional phrases (the rest of the subject's number), so
    counts 0 to 2 have the same length. `nested`: the harder form, an object relative clause
    whose own subject and verb have the other number ("the key that the dogs near the cabinets
    chase is"), then the phrases; `attractors` counts the relative clause's subject as one."""
    if not 0 <= attractors <= MAX_ATTRACTORS:
        raise ValueError(f"attractors must be 0 to {MAX_ATTRACTORS}, got {attractors}.")
    plural = bool(rng.random() < 0.5)
    animate = bool(rng.random() < 0.4)
    words = ["the", _noun(rng, plural, animate)]
    left = attractors
    if nested:
        if attractors < 1:
            raise ValueError("a nested sentence has at least one attractor (its clause subject).")
        verb = VERBS[int(rng.integers(len(VERBS)))][0 if plural else 1]
        words += ["that", "the", _noun(rng, not plural, animate=True)]
        left -= 1
        if left:  # a phrase inside the clause, its noun an attractor too
            words += [PREPOSITIONS[int(rng.integers(len(PREPOSITIONS)))], "the",
                      _noun(rng, not plural)]  # fmt: skip
            left -= 1
        words.append(verb)
    n_pp = max(left, 0 if nested else 2)
    other = [True] * left + [False] * (n_pp - left)
    rng.shuffle(other)
    for is_other in other:
        words += [PREPOSITIONS[int(rng.integers(len(PREPOSITIONS)))], "the"]
        words.append(_noun(rng, plural != is_other))
    tense = "past" if rng.random() < 0.3 else "present"
    words.append(BE[(tense, plural)])
    options = PREDICATES[animate]
    words += options[int(rng.integers(len(options)))].split()
    return words


def subject_is_plural(words: list[str]) -> bool:
    """Whether the sentence's subject (the noun after the first "the") is plural."""
    noun = words[1]
    return noun in ANIMATE.values() or noun in THINGS.values()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    target = Path(args.out)
    text = "\n".join(corpus(args.sentences, args.seed)) + "\n"
    atomic_write(target, text)
    print(f"wrote {args.sentences} sentences ({len(text)} bytes) to {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
