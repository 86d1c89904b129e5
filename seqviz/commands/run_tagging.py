"""`seqviz run tagging`: the shipped bidirectional and left-to-right taggers on held-out text."""

from __future__ import annotations

import argparse

from seqviz.limits import MAX_SENTENCES, int_option

HELP = "bidirectional versus left-to-right tagger: token accuracy on held-out sentences"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sentences",
        type=int_option(1, MAX_SENTENCES),
        default=1000,
        help="held-out sentences (default 1000)",
    )


def run(args: argparse.Namespace) -> int:
    import json

    from seqviz.commands import UsageError
    from seqviz.models.tagger import measure

    if args.sentences < 1:
        raise UsageError(f"--sentences must be at least 1, got {args.sentences}.")
    rows = measure(args.sentences)
    if getattr(args, "json", False):
        print(json.dumps(rows, indent=2))
        return 0
    print(f"held-out sentences: {args.sentences} (none of them in the training set)")
    width = max(len(r["network"]) for r in rows)
    head = f"{'model':<11} {'network':<{width}} {'all words':>9} {'right-context':>13}"
    print(f"{head} {'other':>7}")
    for r in rows:
        print(f"{r['model']:<11} {r['network']:<{width}} {r['accuracy']:>9.1%} "
              f"{r['right_context_accuracy']:>13.1%} {r['other_accuracy']:>7.1%}")  # fmt: skip
    gap = rows[0]["right_context_accuracy"] - rows[1]["right_context_accuracy"]
    print(f"right-context words ({rows[0]['right_context_tokens']:.0f}: an ambiguous name whose "
          f"type the NEXT word decides): bi beats uni by {100 * gap:.1f} points")  # fmt: skip
    return 0
