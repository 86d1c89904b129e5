"""`seqviz ngram`: held-out bits per character of smoothed character n-gram models."""

from __future__ import annotations

import argparse

from seqviz.limits import float_option, int_option


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "ngram",
        help="held-out bits per character of character n-gram baselines (n = 3 and 5)",
        description="Train character n-gram models (interpolated Witten-Bell smoothing) on TEXT "
        "and report their held-out bits per character: the baseline a character LM must beat. "
        "The held-out text is --held-out FILE, else the last part of TEXT (--split).",
    )
    p.add_argument("text", metavar="TEXT")
    p.add_argument("--held-out", metavar="FILE", help="held-out text (default: the end of TEXT)")
    p.add_argument("--split", type=float_option(0.05, 0.95), default=0.9,
                   help="share of TEXT to train on when there is no --held-out (0.9)")  # fmt: skip
    p.add_argument("--n", type=int_option(1, 12), action="append", default=None,
                   help="order; repeat for several (default: 3 and 5)")  # fmt: skip
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from seqviz.limits import read_text
    from seqviz.models.ngram import CharNGram

    text = read_text(args.text, "text", "text")
    if args.held_out:
        train, test = text, read_text(args.held_out, "held-out text", "text")
    else:
        cut = int(len(text) * args.split)
        train, test = text[:cut], text[cut:]
    if not train or not test:
        raise ValueError(f"{args.text} is too short to split into training and held-out text.")
    rows = []
    for n in args.n or [3, 5]:
        bpc = CharNGram.train(train, n).bits_per_char(test)
        rows.append({"n": n, "bits_per_char": bpc})
    if args.json:
        print(json.dumps({"train_chars": len(train), "held_out_chars": len(test),
                          "models": rows}, indent=2))  # fmt: skip
        return 0
    print(f"character n-grams (Witten-Bell) trained on {len(train):,} characters, "
          f"held out {len(test):,}:")  # fmt: skip
    for r in rows:
        print(f"  n = {r['n']:<2} {r['bits_per_char']:.3f} bits/char")
    return 0
