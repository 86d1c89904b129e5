"""BIO tagging corpus: the agreement grammar's world with people, places and organisations.

Some names are ambiguous: "Morgan" starts a person ("Morgan Reed"), a place ("Morgan Street")
or an organisation ("Morgan Labs"), and only the word to its RIGHT decides which. A left-to-right
tagger must guess at "Morgan"; a bidirectional one has already read "Street". Run
`python -m seqviz.tasks.tagging` to print a few tagged sentences, or with `--out FILE` to write a
corpus (one sentence per line, word/TAG pairs).
"""

from __future__ import annotations

import argparse
import difflib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from seqviz.files import atomic_write

TAGS = ("O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG")
TYPES = ("PER", "LOC", "ORG")
# Capitalised words that start a name of any type: the next word decides which.
AMBIGUOUS = ("Morgan", "Jordan", "Austin", "Lincoln", "Chester", "Florence", "Kent", "Sydney")
FIRST_NAMES = ("Alice", "Bruno", "Clara", "Dmitri", "Esther", "Farid")  # always a person
SURNAMES = ("Reed", "Hale", "Price", "Stone", "Okafor", "Lund")
PLACES = ("Oslo", "Lima", "Quito", "Perth")  # always a place
ORGS = ("Acme", "Globex", "Initech", "Umbrella")  # always an organisation
SUFFIX = {
    "PER": SURNAMES,
    "LOC": ("Street", "Park", "Bridge", "Hill"),
    "ORG": ("Labs", "Bank", "Group", "Press"),
}
NOUNS = ("dog", "cat", "teacher", "student", "key", "cabinet", "book", "box", "window", "door")
PREPOSITIONS = ("near", "with", "beside", "from", "behind", "to")
TRAIN_SEED, TEST_SEED = 0, 1  # training sentences come from one seed, held-out ones from another
MAX_TRAIN = 5000  # training uses at most the first MAX_TRAIN sentences of TRAIN_SEED
VERBS = ("likes", "sees", "knows", "visits", "calls", "visited", "hosted", "hired")
# verbs that choose their names' types: a person visited a place, a place hosted an
# organisation, an organisation hired a person (each type as often before as after, so the
# left-to-right tagger's guess at a name's first word stays a guess)
SELECT = {"visited": ("PER", "LOC"), "hosted": ("LOC", "ORG"), "hired": ("ORG", "PER")}
UNK = "<unk>"  # what a tagger with it reads an unknown word as (its shape still seen)
PREDICATES = ("missing", "old", "new", "happy", "here", "gone")


@dataclass(frozen=True)
class Tagged:
    """One sentence: words, BIO tags, and which tags need a word to their right."""

    words: tuple[str, ...]
    tags: tuple[str, ...]
    right: tuple[bool, ...]  # True: the word is ambiguous, its tag is decided by what follows

    def line(self) -> str:
        return " ".join(f"{w}/{t}" for w, t in zip(self.words, self.tags, strict=True))


def _pick(rng: np.random.Generator, options: tuple[str, ...]) -> str:
    return options[int(rng.integers(len(options)))]


def _entity(rng: np.random.Generator, kind: str) -> list[tuple[str, str]]:
    """A name of `kind` as (word, tag) pairs; half of them start with an ambiguous word."""
    if rng.random() < 0.55:
        words = [_pick(rng, AMBIGUOUS), _pick(rng, SUFFIX[kind])]
    else:
        single = {"PER": FIRST_NAMES, "LOC": PLACES, "ORG": ORGS}[kind]
        words = [_pick(rng, single)]
        if kind == "PER" and rng.random() < 0.5:
            words.append(_pick(rng, SURNAMES))
        elif kind != "PER" and rng.random() < 0.3:
            words.append(_pick(rng, SUFFIX[kind]))
    return [(w, ("B-" if i == 0 else "I-") + kind) for i, w in enumerate(words)]


def _noun_phrase(rng: np.random.Generator) -> list[tuple[str, str]]:
    """ "the NOUN" or a name, optionally followed by "PREPOSITION name"."""
    if rng.random() < 0.5:
        out = [("the", "O"), (_pick(rng, NOUNS), "O")]
    else:
        out = _entity(rng, _pick(rng, TYPES))
    if rng.random() < 0.6:
        # The preposition is shared by all three types, so it gives no hint of the type.
        out += [(_pick(rng, PREPOSITIONS), "O"), *_entity(rng, _pick(rng, TYPES))]
    return out


def sentence(rng: np.random.Generator) -> Tagged:
    """One sentence: "SUBJECT is PREDICATE" or "SUBJECT VERB OBJECT" (see SELECT)."""
    if rng.random() < 0.4:
        pairs = [*_noun_phrase(rng), ("is", "O"), (_pick(rng, PREDICATES), "O")]
    else:
        verb = _pick(rng, VERBS)
        if verb in SELECT:
            subject, obj = SELECT[verb]
            pairs = [*_entity(rng, subject), (verb, "O"), *_entity(rng, obj)]
        else:
            pairs = [*_noun_phrase(rng), (verb, "O"), *_noun_phrase(rng)]
    words = tuple(w for w, _ in pairs)
    # an ambiguous word right after a SELECT verb: the word to its LEFT decides its type
    right = tuple(
        w in AMBIGUOUS and not (i and words[i - 1] in SELECT) for i, w in enumerate(words)
    )
    return Tagged(words, tuple(t for _, t in pairs), right)


def corpus(n_sentences: int, seed: int = 0) -> list[Tagged]:
    """`n_sentences` tagged sentences, the same for the same seed."""
    if isinstance(n_sentences, bool) or not isinstance(n_sentences, int) or n_sentences < 1:
        raise ValueError(f"the number of sentences must be an integer >= 1, got {n_sentences!r}.")
    rng = np.random.default_rng(seed)
    return [sentence(rng) for _ in range(n_sentences)]


def training_set(n_sentences: int) -> list[Tagged]:
    """The first n sentences of the training seed (at most MAX_TRAIN)."""
    if isinstance(n_sentences, bool) or not isinstance(n_sentences, int):
        raise ValueError(f"the number of sentences must be an integer, got {n_sentences!r}.")
    if not 1 <= n_sentences <= MAX_TRAIN:
        raise ValueError(f"train on 1 to {MAX_TRAIN} sentences, got {n_sentences}.")
    return corpus(n_sentences, TRAIN_SEED)


def held_out(n_sentences: int = 1000) -> list[Tagged]:
    """n sentences of the test seed that never occur among the MAX_TRAIN training sentences."""
    seen = {s.words for s in corpus(MAX_TRAIN, TRAIN_SEED)}
    rng = np.random.default_rng(TEST_SEED)
    out: list[Tagged] = []
    while len(out) < n_sentences:
        s = sentence(rng)
        if s.words not in seen:
            out.append(s)
    return out


def vocabulary() -> tuple[str, ...]:
    """Every word the grammar can produce, sorted (the tagger's input vocabulary)."""
    words = {"the", "is", *AMBIGUOUS, *FIRST_NAMES, *SURNAMES, *PLACES, *ORGS, *NOUNS,
             *PREPOSITIONS, *VERBS, *PREDICATES}  # fmt: skip
    for suffixes in SUFFIX.values():
        words.update(suffixes)
    return tuple(sorted(words))


def tokenize(text: str, vocab: tuple[str, ...] | list[str]) -> list[str]:
    """Words of `text`; an unknown word is kept for a tagger that knows <unk> (it reads it as
    <unk> and its shape), else a ValueError naming it and the closest known ones."""
    known = set(vocab)
    unk = UNK in known
    words = []
    for raw in text.split():
        word = raw.strip(".,;:!?\"'")
        if not word:
            continue
        if word not in known and word.lower() in known:
            word = word.lower()  # "The dog ..." at the start of a sentence
        if word not in known and not unk:
            close = difflib.get_close_matches(word, list(vocab), n=3, cutoff=0.5)
            hint = f"closest known: {', '.join(close)}" if close else "no known word is close"
            raise ValueError(
                f"unknown word {word!r} ({hint}); the tagger knows {len(vocab)} words."
            )
        words.append(word)
    if not words:
        raise ValueError("the sentence is empty; type some words, e.g. 'Morgan Street is old'.")
    return words


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="write the corpus here instead of printing it")
    args = parser.parse_args(argv)
    data = corpus(args.sentences, args.seed)
    text = "\n".join(s.line() for s in data) + "\n"
    if args.out:
        atomic_write(Path(args.out), text)
        print(f"wrote {len(data)} tagged sentences to {args.out}")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
