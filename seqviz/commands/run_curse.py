"""`seqviz run beam-curse`: exact match, length and search errors by beam width and exact search."""

from __future__ import annotations

import argparse

from seqviz.limits import int_option

HELP = "the beam search curse: beam widths 1-64 and exact search on translation and the LM"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sentences", type=int_option(1, 1000), default=40, metavar="N",
                        help="held-out sentences per task (default 40)")  # fmt: skip
    parser.add_argument("--task", choices=("both", "translation", "lm"), default="both")
    parser.add_argument("--save", action="store_true",
                        help="also save the rows for the seq2seq scene's plot")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from seqviz.models.curse import format_rows, lm_rows, save_rows, translation_rows

    def progress(task: str, alpha: float, width: int) -> None:
        name = f"beam {width}" if width else "exact"
        sys.stderr.write(f"\r{task}, alpha {alpha:g}: {name} done   ")
        sys.stderr.flush()

    rows = []
    if args.task in ("both", "translation"):
        rows += translation_rows(args.sentences, progress=progress)
    if args.task in ("both", "lm"):
        rows += lm_rows(args.sentences, progress=progress)
    sys.stderr.write("\n")
    if args.save:
        sys.stderr.write(f"saved {save_rows(rows, sentences=args.sentences)}\n")
    if getattr(args, "json", False):
        print(json.dumps([r.to_json() for r in rows], indent=2))
    else:
        print(format_rows(rows))
    return 0
