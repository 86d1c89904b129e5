"""`seqviz run bottleneck`: accuracy by source length, attention versus bottleneck model."""

from __future__ import annotations

import argparse

HELP = "exact match by source length for the attention and the bottleneck seq2seq models"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pairs", type=int, default=100,
                        help="held-out pairs per length bucket (default 100)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=2026, help="seed of the held-out pairs")
    parser.add_argument("--save", action="store_true",
                        help="also write the table to seqviz/data/seq2seq_curve.json, which the "
                        "seq2seq scene plots")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Print the table (or JSON with --json)."""
    import json

    from seqviz.files import atomic_write
    from seqviz.models.translate import curve_file, curve_to_json, length_curve

    if args.pairs < 1:
        raise ValueError(f"--pairs must be a whole number >= 1, got {args.pairs}.")
    rows = length_curve(per_bucket=args.pairs, seed=args.seed)
    if args.save:
        atomic_write(curve_file(), curve_to_json(rows, args.pairs, args.seed))
    if getattr(args, "json", False):
        data = [
            {"lengths": [r.lo, r.hi], "pairs": r.n, "exact": r.exact, "token_accuracy": r.token}
            for r in rows
        ]
        print(json.dumps(data, indent=2))
        return 0
    print(f"held-out pairs (seed {args.seed}), greedy decoding; exact match / token accuracy")
    print(f"{'source words':>12}  {'pairs':>5}  {'attention':>17}  {'bottleneck':>17}")
    for r in rows:
        cells = [f"{100 * r.exact[m]:5.1f}% / {100 * r.token[m]:5.1f}%"
                 for m in ("attention", "bottleneck")]  # fmt: skip
        print(f"{f'{r.lo}-{r.hi}':>12}  {r.n:>5}  {cells[0]:>17}  {cells[1]:>17}")
    return 0
