"""`seqviz units`: rank a trained LM's units by how well they follow a pattern of its text."""

from __future__ import annotations

import argparse

from seqviz.limits import int_option


def register(subparsers: argparse._SubParsersAction) -> None:
    from seqviz.inside import TRACK_HELP

    p = subparsers.add_parser(
        "units",
        help="find the units of a trained LM that follow a pattern (number, string, indent, ...)",
        description="Read text with a trained LM and rank every unit of c and h by the "
        "correlation of its value with a pattern computed from the text. Word models read "
        "held-out sentences of the agreement grammar (or --text); their patterns: position, "
        + "; ".join(f"{k}: {v}" for k, v in TRACK_HELP.items())
        + ". Character models read --text; their patterns: string, comment, indent, brackets, "
        "line-position, word-position. Any model: regex:EXPR (1 inside a match).",
    )
    p.add_argument(
        "--model",
        default="agreement",
        help="a shipped or user model's name, a `seqviz train` .npz, or a PyTorch .pt with "
        "--vocab (default agreement)",
    )
    p.add_argument("--vocab", metavar="FILE", help="the vocabulary of a PyTorch --model")
    p.add_argument("--track", default="number", metavar="PATTERN",
                   help="the pattern to follow (default number)")  # fmt: skip
    p.add_argument("--text", metavar="FILE", help="the text to read (one sentence per line "
                   "for a word model)")  # fmt: skip
    p.add_argument("--chars", type=int_option(100, 2_000_000), default=20_000,
                   help="read at most this many characters of --text (default 20,000)")  # fmt: skip
    p.add_argument("--top", type=int_option(1, 10000), default=10, help="units listed (10)")
    p.add_argument(
        "--sentences",
        type=int_option(10, 5000),
        default=500,
        help="held-out grammar sentences when there is no --text (default 500)",
    )
    p.add_argument("--show", type=int_option(0, 100_000), default=0, metavar="CHARS",
                   help="then print the first CHARS characters of the text coloured by the best "
                   "unit's value (or --unit's)")  # fmt: skip
    p.add_argument("--unit", metavar="c[K]|h[K]", help="the unit --show colours by")
    p.add_argument("--json", action="store_true", help="print the ranking as JSON")
    p.set_defaults(func=run)  # fmt: skip


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from seqviz.inside import TRACKS, patterns
    from seqviz.inside.study import held_out_set, shipped_study
    from seqviz.inside.units import rank_by_pattern
    from seqviz.limits import read_text
    from seqviz.models.torch_lm import load_lm

    announce = (lambda s: print(s, file=sys.stderr)) if args.json else print
    lm = load_lm(args.model, args.vocab, announce=announce)
    patterns.check(args.track, lm.level)
    text = None
    if args.text:
        text = read_text(args.text, "text", "text")[: args.chars]
    if text is None and args.track in TRACKS and args.vocab is None:
        s = shipped_study(args.model, args.sentences)  # computed once per model and cached
        ranked, name, where = s.units[args.track], s.name, f"{s.sentences} held-out sentences"
    else:
        sents = held_out_set(args.sentences) if text is None and lm.level == "word" else ()
        found = rank_by_pattern(lm, args.track, text, sents)
        ranked, name = found.units, lm.name
        unit = "sentences" if lm.level == "word" else "pieces"
        where = f"{found.segments} {unit} of {args.text or 'the grammar'}"
        if found.skipped:
            where += f" ({found.skipped} it could not read left out)"
    ranked = ranked[: args.top]
    p = lm.params
    if args.json:
        print(json.dumps({"model": name, "cell": p.cell, "track": args.track,
                          "where": where, "layers": len(lm.layers),
                          "units": [{"state": u.state, "unit": u.unit, "r": u.r, "steps": u.n}
                                    for u in ranked]}, indent=2))  # fmt: skip
        return 0
    layers = f", {len(lm.layers)} layers numbered in turn" if len(lm.layers) > 1 else ""
    print(f"{name} ({p.cell}, hidden {p.hidden_size}{layers}): units following "
          f"'{args.track}' ({patterns.describe(args.track)}) over {where} "
          f"({ranked[0].n:,} steps), best first")  # fmt: skip
    for k, u in enumerate(ranked, 1):
        print(f"{k:>3}. {u.label():<7} r = {u.r:+.3f}")
    if args.show:
        _show(lm, args, text, ranked[0])
    return 0


def _show(lm, args: argparse.Namespace, text: str | None, best) -> None:  # noqa: ANN001
    """The text coloured by one unit (the best, or --unit)."""
    import re

    from rich.console import Console

    from seqviz.inside.cells import coloured
    from seqviz.inside.study import held_out_set
    from seqviz.inside.units import segments

    state, unit = best.state, best.unit
    if args.unit:
        m = re.fullmatch(r"([ch])\[(\d+)\]", args.unit.strip())
        if m is None:
            raise ValueError(f"--unit must look like c[12] or h[3], not {args.unit!r}.")
        state, unit = m[1], int(m[2])
    if text is None:
        text = "\n".join(" ".join(s) for s in held_out_set(args.sentences))
    shown = text[: args.show]
    pieces = segments(shown, lm.level, "\n" in lm.index)
    Console(highlight=False).print(coloured(lm, shown, state, unit, pieces))
