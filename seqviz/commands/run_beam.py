"""`seqviz run beam`: greedy versus beam search on the toy model; the engine loads lazily."""

from __future__ import annotations

import argparse

from seqviz.limits import MAX_LEN, MAX_WIDTH, int_option

HELP = "greedy decoding versus beam search on the lesson's toy bigram model"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--widths", type=int_option(1, MAX_WIDTH), nargs="+", default=[1, 2, 3], metavar="K",
        help="beam widths to compare (default: 1 2 3)",
    )  # fmt: skip
    parser.add_argument("--max-len", type=int_option(1, MAX_LEN), default=6,
                        help=f"most tokens (default 6, at most {MAX_LEN})")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """`seqviz run beam`: print the table (or JSON with --json)."""
    import json

    from seqviz.decoding.lesson import beam_table, format_beam_table
    from seqviz.limits import check_list

    check_list(args.widths, "--widths")

    rows = beam_table(tuple(args.widths), args.max_len)
    if getattr(args, "json", False):
        data = [
            {"decoder": r.label, "tokens": list(r.tokens), "p": r.prob, "stopped": r.stop}
            for r in rows
        ]
        print(json.dumps(data, indent=2))
    else:
        print(format_beam_table(rows))
    return 0
