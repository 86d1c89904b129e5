"""A toy translation task: English-like SVO sentences into a verb-final language with agreement.

The source is "the big dog near the boxes chased the cat" (subject, past-tense verb, object; every
noun phrase may carry adjectives and a chain of prepositional phrases). The target language drops
the article, puts adjectives after their noun, turns prepositions into postpositions, and puts the
verb last, marked for the subject's number: "hundo granda skatoloj apud kato casa". The source
verb does not show number, so the target verb's ending agrees with a noun that can be 30 tokens
back, and the alignment is far from a diagonal. Every sentence belongs to exactly one split (by a
hash of its text), so the training and the held-out pairs never share a sentence.
Run `python -m seqviz.tasks.translation --pairs N --seed S [--min-len A --max-len B] [--out FILE]`.
"""

from __future__ import annotations

import argparse
import sys
import zlib
from collections.abc import Iterator

import numpy as np

from seqviz.files import atomic_write

# English singular -> (target singular); plurals add "s"/"es" in English and "j" in the target.
NOUNS = {
    "dog": "hundo", "cat": "kato", "teacher": "majstro", "student": "lernanto",
    "bird": "birdo", "friend": "amiko", "key": "slosilo", "box": "skatolo",
    "door": "pordo", "table": "tablo", "book": "libro", "window": "fenestro",
}  # fmt: skip
PLURAL = {n: ("boxes" if n == "box" else n + "s") for n in NOUNS}
ADJECTIVES = {
    "big": "granda", "small": "eta", "old": "malnova", "new": "nova", "red": "ruga",
    "quiet": "kvieta",
}  # fmt: skip
PREPOSITIONS = {
    "near": "apud", "on": "sur", "behind": "post", "with": "kun", "under": "sub",
    "beside": "flanke", "of": "de", "from": "el",
}  # fmt: skip
# past tense: English shows no number, the target verb does (stem + "a" singular, "an" plural)
TRANSITIVE = {"saw": "vid", "chased": "cas", "liked": "sat", "knew": "kon", "found": "trov",
              "followed": "sekv"}  # fmt: skip
INTRANSITIVE = {"slept": "dorm", "ran": "kur", "waited": "atend"}
ARTICLE = "the"
MIN_LEN = 3
MAX_LEN = 40  # the longest sentence the grammar makes is 41 tokens
HELD_OUT_PERCENT = 20
SPLITS = ("train", "heldout")


def source_vocab() -> tuple[str, ...]:
    words = [ARTICLE, *NOUNS, *PLURAL.values(), *ADJECTIVES, *PREPOSITIONS]
    return tuple(words + list(TRANSITIVE) + list(INTRANSITIVE))


def target_vocab() -> tuple[str, ...]:
    nouns = [*NOUNS.values(), *(t + "j" for t in NOUNS.values())]
    adjs = [*ADJECTIVES.values(), *(a + "j" for a in ADJECTIVES.values())]
    verbs = [s + e for s in (*TRANSITIVE.values(), *INTRANSITIVE.values()) for e in ("a", "an")]
    return tuple(nouns + adjs + list(PREPOSITIONS.values()) + verbs)


def _pick(rng: np.random.Generator, options: list[str] | tuple[str, ...]) -> str:
    return options[int(rng.integers(len(options)))]


def _noun_phrase(
    rng: np.random.Generator, plural: bool, n_adj: int, n_pp: int
) -> tuple[list[str], list[str]]:
    """One noun phrase with its prepositional phrases: (source words, target words)."""
    noun = _pick(rng, list(NOUNS))
    adjs = [_pick(rng, list(ADJECTIVES)) for _ in range(n_adj)]
    src = [ARTICLE, *adjs, PLURAL[noun] if plural else noun]
    suffix = "j" if plural else ""
    tgt = [NOUNS[noun] + suffix, *(ADJECTIVES[a] + suffix for a in adjs)]
    for _ in range(n_pp):
        prep = _pick(rng, list(PREPOSITIONS))
        # distractors mostly carry the other number, so the nearest noun misleads
        other = (not plural) if rng.random() < 0.7 else plural
        s, t = _noun_phrase(rng, other, int(rng.random() < 0.3), 0)
        src += [prep, *s]
        tgt += [*t, PREPOSITIONS[prep]]
    return src, tgt


def _n_adj(rng: np.random.Generator) -> int:
    r = rng.random()
    return 0 if r < 0.5 else (1 if r < 0.85 else 2)


def pair(rng: np.random.Generator, max_pp: int = 4) -> tuple[list[str], list[str]]:
    """One sentence pair as word lists (source, target); lengths range from 3 to 41.

    Each noun phrase carries 0..max_pp prepositional phrases."""
    plural = bool(rng.random() < 0.5)
    subj_s, subj_t = _noun_phrase(rng, plural, _n_adj(rng), int(rng.integers(max_pp + 1)))
    if rng.random() < 0.8:
        verb = _pick(rng, list(TRANSITIVE))
        obj_s, obj_t = _noun_phrase(
            rng, bool(rng.random() < 0.5), _n_adj(rng), int(rng.integers(max_pp + 1))
        )
        stem = TRANSITIVE[verb]
    else:
        verb, obj_s, obj_t = _pick(rng, list(INTRANSITIVE)), [], []
        stem = INTRANSITIVE[verb]
    return subj_s + [verb] + obj_s, subj_t + obj_t + [stem + ("an" if plural else "a")]


_SINGULAR = {pl: sg for sg, pl in PLURAL.items()}


def reference(source: str) -> str | None:
    """The task's own translation of a source sentence, or None if the grammar cannot make it.

    A small parser of the grammar above: noun phrase, verb, and (for a transitive verb) a second
    noun phrase; the verb's ending follows the subject's number."""
    words = source.split()
    pos = 0

    def peek() -> str | None:
        return words[pos] if pos < len(words) else None

    def simple_np() -> tuple[list[str], bool] | None:
        nonlocal pos
        if peek() != ARTICLE:
            return None
        pos += 1
        adjs = []
        while peek() in ADJECTIVES:
            adjs.append(words[pos])
            pos += 1
        w = peek()
        if w in NOUNS or w in _SINGULAR:
            pos += 1
            plural = w in _SINGULAR
            sfx = "j" if plural else ""
            noun = NOUNS[_SINGULAR[w] if plural else w]
            return [noun + sfx, *(ADJECTIVES[a] + sfx for a in adjs)], plural
        return None

    def noun_phrase() -> tuple[list[str], bool] | None:
        nonlocal pos
        head = simple_np()
        if head is None:
            return None
        out, plural = head
        while peek() in PREPOSITIONS:
            prep = words[pos]
            pos += 1
            pp = simple_np()
            if pp is None:
                return None
            out += [*pp[0], PREPOSITIONS[prep]]
        return out, plural

    subj = noun_phrase()
    verb = peek()
    if subj is None or verb is None:
        return None
    pos += 1
    obj: list[str] = []
    if verb in TRANSITIVE:
        o = noun_phrase()
        if o is None:
            return None
        obj, stem = o[0], TRANSITIVE[verb]
    elif verb in INTRANSITIVE:
        stem = INTRANSITIVE[verb]
    else:
        return None
    if pos != len(words):
        return None
    return " ".join([*subj[0], *obj, stem + ("an" if subj[1] else "a")])


def split_of(source: str) -> str:
    """The split a source sentence belongs to, fixed by its text (never both)."""
    return "heldout" if zlib.crc32(source.encode()) % 100 < HELD_OUT_PERCENT else "train"


def check_lengths(min_len: int, max_len: int) -> None:
    """Raise ValueError (one sentence) unless MIN_LEN <= min_len <= max_len <= MAX_LEN."""
    for name, v in (("min-len", min_len), ("max-len", max_len)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise ValueError(f"{name} must be a whole number, got {v!r}.")
    if not MIN_LEN <= min_len <= max_len <= MAX_LEN:
        raise ValueError(
            f"source lengths must satisfy {MIN_LEN} <= min-len <= max-len <= {MAX_LEN}, "
            f"got min-len {min_len} and max-len {max_len}."
        )


def iter_pairs(
    rng: np.random.Generator, min_len: int = MIN_LEN, max_len: int = 32, split: str = "train"
) -> Iterator[tuple[str, str]]:
    """Endless (source, target) strings of one split with min_len <= source words <= max_len."""
    check_lengths(min_len, max_len)
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; allowed: {', '.join(SPLITS)}.")
    # Aim at a length drawn uniformly, so long sentences are as common as short ones; pairs of
    # other lengths made on the way wait in a small pool per length instead of being thrown away.
    pool: dict[int, list[tuple[str, str]]] = {n: [] for n in range(min_len, max_len + 1)}
    max_pp = min(4, max(1, (max_len - 3) // 3))  # short ranges need no long chains
    while True:
        want = int(rng.integers(min_len, max_len + 1))
        for _ in range(300):
            if pool[want]:
                break
            s, t = pair(rng, max_pp)
            src = " ".join(s)
            if len(s) in pool and len(pool[len(s)]) < 64 and split_of(src) == split:
                pool[len(s)].append((src, " ".join(t)))
        else:
            # a rare length (the longest ones): take the nearest length on hand
            have = [n for n in pool if pool[n]]
            if not have:
                continue
            want = min(have, key=lambda n: (abs(n - want), n))
        yield pool[want].pop(0)


def pairs(
    n: int, seed: int = 0, min_len: int = MIN_LEN, max_len: int = 32, split: str = "train"
) -> list[tuple[str, str]]:
    """`n` pairs of one split, deterministic for `seed`."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"the number of pairs must be a whole number >= 0, got {n!r}.")
    it = iter_pairs(np.random.default_rng(seed), min_len, max_len, split)
    return [next(it) for _ in range(n)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-len", type=int, default=MIN_LEN)
    parser.add_argument("--max-len", type=int, default=32)
    parser.add_argument("--split", choices=SPLITS, default="train")
    parser.add_argument("--out", help="file to write (default: standard output)")
    args = parser.parse_args(argv)
    try:
        data = pairs(args.pairs, args.seed, args.min_len, args.max_len, args.split)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = "".join(f"{s}\t{t}\n" for s, t in data)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        atomic_write(args.out, text)
    except OSError as exc:
        print(f"error: cannot write {args.out}: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(data)} {args.split} pairs to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
