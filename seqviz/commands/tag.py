"""`seqviz tag "SENTENCE"`: BIO tags of a typed sentence with their probabilities."""

from __future__ import annotations

import argparse

from seqviz.commands import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "tag",
        help="tag each word of a sentence (BIO: people, places, organisations)",
        description="Tag every word of SENTENCE with a shipped tagger (tagger-bi, tagger-uni) or "
        "a file written by `seqviz train-tagger`; prints each word, its tag and probability.",
    )
    p.add_argument("sentence", metavar="SENTENCE")
    p.add_argument("--model", default="tagger-bi", help="tagger-bi, tagger-uni or a FILE.npz")
    p.add_argument(
        "--json", action="store_true", help='{"tokens": [...], "tags": [...], "probs": [...]}'
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from seqviz.models.tagger import load_tagger

    try:
        tagger = load_tagger(args.model)
        result = tagger.tag(args.sentence)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    probs = [round(float(p), 4) for p in result.confidence]
    if args.json:
        unknown = [w for w, u in zip(result.words, result.unknown, strict=True) if u]
        print(json.dumps({"tokens": list(result.words), "tags": list(result.tags), "probs": probs,
                          "unknown": unknown}))  # fmt: skip
        return 0
    width = max(len(w) for w in result.words)
    for word, tag, p, unk in zip(result.words, result.tags, probs, result.unknown, strict=True):
        mark = "  (unknown word: tagged by its shape and context)" if unk else ""
        print(f"{word:<{width}}  {tag:<6}  {p:.3f}{mark}")
    return 0
