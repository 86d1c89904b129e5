"""`seqviz run cells`: the `code` model's held-out bits per character and its cells."""

from __future__ import annotations

import argparse

from seqviz.limits import int_option

HELP = ("the character LSTM on Python code (model code): held-out bits per character against "
        "character n-grams, and the best unit of c and h for strings, indentation, brackets and "
        "comments")  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="code",
                        help="a character LM: a shipped or user model's name or a file "
                             "(default code)")  # fmt: skip
    parser.add_argument("--text", metavar="FILE", default=None,
                        help="held-out text (default: the corpus's held-out modules, "
                             "seqviz/data/code_held_out.txt)")  # fmt: skip
    parser.add_argument("--train", metavar="FILE", default=None,
                        help="the n-grams' training text (default: the corpus's training part, "
                             "seqviz/data/code_train.txt)")  # fmt: skip
    parser.add_argument("--chars", type=int_option(100, 2_000_000), default=200_000,
                        help="read at most this many characters of the held-out text "
                             "(default 200,000)")  # fmt: skip
    parser.add_argument("--n", type=int_option(1, 12), action="append", default=None,
                        help="n-gram order; repeat for several (default: 3 and 5)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    import json

    from seqviz.inside.code_cells import HELD_OUT, PATTERNS, TRAIN, study
    from seqviz.limits import read_text
    from seqviz.models.torch_lm import load_lm

    lm = load_lm(args.model, None, announce=lambda s: None)
    where = args.text or str(HELD_OUT.name)
    text = read_text(args.text or HELD_OUT, "held-out text", "text")[: args.chars]
    train = read_text(args.train or TRAIN, "training text", "text")
    s = study(lm, text, name=args.model, where=where, train=train,
              orders=tuple(args.n or (3, 5)))  # fmt: skip
    if args.json:
        print(json.dumps(s.to_json(), indent=2))
        return 0
    print(
        f"{s.model} ({s.cell}, hidden {s.hidden}) on {s.chars:,} held-out characters of "
        f"{s.text}" + (f" ({s.skipped} pieces it could not read left out)" if s.skipped else "")
    )
    print(f"  LSTM          {s.bits_per_char:.3f} bits/char")
    for n, b in s.baselines.items():
        print(f"  {n}-gram        {b:.3f} bits/char (Witten-Bell, {s.train_chars:,} training "
              "characters)")  # fmt: skip
    print("best unit per pattern (Pearson r over every character):")
    print(f"  {'pattern':<18} {'c unit':<8} {'r':>7}   {'h unit':<8} {'r':>7}")
    for p in PATTERNS:
        by = s.best[p]
        cells = []
        for state in ("c", "h"):
            u = by.get(state)
            cells.append(f"{u.label():<8} {u.r:>+7.3f}" if u else f"{'-':<8} {'':>7}")
        print(f"  {p:<18} {cells[0]}   {cells[1]}")
    return 0
