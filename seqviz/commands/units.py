"""`seqviz units`: rank a trained LM's units by how well they follow a track of the grammar."""

from __future__ import annotations

import argparse

from seqviz.limits import int_option


def register(subparsers: argparse._SubParsersAction) -> None:
    from seqviz.inside import TRACK_HELP, TRACKS

    p = subparsers.add_parser(
        "units",
        help="find the units of a trained LM that track subject number, distractors or distance",
        description="Read held-out sentences of the agreement grammar with a trained word-level "
        "LM and rank every unit of c and h by the correlation of its value with a track: "
        + "; ".join(f"{k}: {v}" for k, v in TRACK_HELP.items())
        + ".",
    )
    p.add_argument(
        "--model",
        default="agreement",
        help="a shipped model name or a `seqviz train` .npz (default agreement)",
    )
    p.add_argument("--track", choices=TRACKS, default="number")
    p.add_argument("--top", type=int_option(1, 10000), default=10, help="units listed (10)")
    p.add_argument(
        "--sentences",
        type=int_option(10, 5000),
        default=500,
        help="held-out sentences (default 500)",
    )
    p.add_argument("--json", action="store_true", help="print the ranking as JSON")
    p.set_defaults(func=run)  # fmt: skip


def run(args: argparse.Namespace) -> int:
    import json

    from seqviz.inside.study import shipped_study

    s = shipped_study(args.model, args.sentences)
    ranked = s.units[args.track][: args.top]
    if args.json:
        print(json.dumps({"model": s.name, "cell": s.cell, "track": args.track,
                          "sentences": s.sentences,
                          "units": [{"state": u.state, "unit": u.unit, "r": u.r, "steps": u.n}
                                    for u in ranked]}, indent=2))  # fmt: skip
        return 0
    print(f"{s.name} ({s.cell}, hidden {s.hidden}): units following '{args.track}' over "
          f"{s.sentences} held-out sentences ({ranked[0].n:,} steps), best first")  # fmt: skip
    for k, u in enumerate(ranked, 1):
        print(f"{k:>3}. {u.label():<7} r = {u.r:+.3f}")
    return 0
