"""`seqviz decode`: greedy, beam search or sampling on a bigram table or a trained LM."""

from __future__ import annotations

import argparse
import math

from seqviz.limits import (
    BEAM_WIDTH,
    LENGTH_ALPHA,
    MAX_LEN,
    MAX_SAMPLES,
    MAX_WIDTH,
    SEED,
    float_option,
    int_option,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "decode",
        help="decode with greedy, beam search or sampling",
        description="Decode from a language model: the lesson's toy bigram model (default), a "
        "bigram table in JSON (--bigram) or a recurrent LM trained with `seqviz train` (--model; "
        "or a shipped model's name: `seqviz decode --list-models` lists them).",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--bigram", metavar="FILE.json", help="bigram table {prev: {next: prob}}")
    src.add_argument(
        "--model", metavar="FILE.npz|NAME", help="trained recurrent LM (.npz) or a shipped name"
    )
    p.add_argument("--list-models", action="store_true", help="list the shipped models and exit")
    p.add_argument("--prompt", default="", help="text the decoder continues (default: none)")
    p.add_argument("--strategy", choices=("greedy", "beam", "sample"), default="beam")
    p.add_argument("--width", type=int_option(1, MAX_WIDTH), default=BEAM_WIDTH,
                   help=f"beam width (default {BEAM_WIDTH}, as in the app; at most "
                   f"{MAX_WIDTH})")  # fmt: skip
    p.add_argument("--alpha", type=float_option(-100, 100), default=LENGTH_ALPHA,
                   help=f"length normalisation exponent: rank by logP / t^alpha (default "
                   f"{LENGTH_ALPHA:g}, the chapter's, as in the app; 0 is plain)")  # fmt: skip
    p.add_argument(
        "--keep-live",
        action="store_true",
        help="beam variant: keep WIDTH live hypotheses, finished ones do not use a slot",
    )
    p.add_argument("--max-len", type=int_option(1, MAX_LEN), default=20,
                   help=f"most tokens to generate (default 20, at most {MAX_LEN})")  # fmt: skip
    p.add_argument("--temperature", type=float_option(0, 1e6), default=1.0)
    p.add_argument("--top-k", type=int_option(1, 10**9), default=None)
    p.add_argument("--top-p", type=float_option(0, 1), default=None)
    p.add_argument("--seed", type=SEED, default=0, help="random seed for sampling (default 0)")
    p.add_argument("--samples", type=int_option(1, MAX_SAMPLES), default=3,
                   help=f"number of samples (default 3, at most {MAX_SAMPLES:,})")  # fmt: skip
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def load_model(args: argparse.Namespace):
    """The model the options ask for (the toy bigram when neither --bigram nor --model is set)."""
    from seqviz.decoding import load_bigram, toy_model

    if args.bigram:
        return load_bigram(args.bigram)
    if args.model:
        from seqviz import models

        return models.load(args.model, kind="lm")
    return toy_model()


def run(args: argparse.Namespace) -> int:
    import json

    from seqviz.decoding import BeamSearch, Greedy, Sampler, join_tokens
    from seqviz.decoding.search import STOP_MEANING
    from seqviz.limits import MAX_SAMPLE_TOKENS, LimitError

    if args.list_models:
        from seqviz import models

        for e in models.entries("lm"):
            print(f"{e.name:12} {e.label}  ({e.file})")
        return 0
    if args.strategy == "sample" and args.samples * args.max_len > MAX_SAMPLE_TOKENS:
        raise LimitError(
            f"--samples x --max-len is {args.samples * args.max_len:,} tokens; the limit is "
            f"{MAX_SAMPLE_TOKENS:,}."
        )
    if len(args.prompt) > 10_000:
        raise LimitError(f"--prompt has {len(args.prompt):,} characters; the limit is 10,000.")
    model = load_model(args)
    search: Greedy | BeamSearch
    if args.strategy == "sample":
        sampled = Sampler(
            model,
            args.prompt,
            temperature=args.temperature,
            top_k=args.top_k,
            top_p=args.top_p,
            seed=args.seed,
            samples=args.samples,
            max_len=args.max_len,
        ).run()
        if args.json:
            print(json.dumps(sampled.to_json(), indent=2))
            return 0
        _print_rows(
            f"{len(sampled.samples)} samples from {model.name} (temperature {args.temperature:g}, "
            f"top-k {args.top_k or 'off'}, top-p {args.top_p or 'off'}, seed {args.seed})",
            [
                (
                    join_tokens(model, [model.vocab[t] for t in s.tokens]),
                    s.logprob,
                    None,
                    s.finished,
                )
                for s in sampled.samples
            ],
            args.prompt,
        )
        return 0

    if args.strategy == "greedy":
        search = Greedy(model, args.prompt, max_len=args.max_len, alpha=args.alpha)
        title = f"greedy decoding on {model.name}"
    else:
        search = BeamSearch(
            model,
            args.prompt,
            width=args.width,
            max_len=args.max_len,
            alpha=args.alpha,
            keep_live=args.keep_live,
        )
        title = f"beam search on {model.name} (width {args.width}, alpha {args.alpha:g})"
    result = search.run()
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    best = result.best
    title += f"; best p = {math.exp(best.logprob):.3f}"
    _print_rows(
        title,
        [
            (join_tokens(model, result.words(h)), h.logprob, h.score, h.finished)
            for h in result.hypotheses
        ],
        args.prompt,
        limit=max(10, args.width),
        note=f"stopped: {result.stop} ({STOP_MEANING.get(result.stop or '', 'not run')}).",
    )
    return 0


def _print_rows(
    title: str, rows: list, prompt: str, limit: int | None = None, note: str = ""
) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column(f"continuation of {prompt!r}" if prompt else "text")
    table.add_column("log P", justify="right")
    table.add_column("P", justify="right")
    if rows and rows[0][2] is not None:
        table.add_column("score", justify="right")
    table.add_column("finished")
    # Beam search keeps every hypothesis that ever finished; past the best few they are noise
    # on a terminal (`--json` still lists them all).
    shown = rows if limit is None else rows[:limit]
    if len(shown) < len(rows):
        table.caption = (
            f"{len(rows) - len(shown)} less probable hypotheses not shown (--json lists all)"
        )
    for i, (text, lp, score, fin) in enumerate(shown, 1):
        cells = [str(i), text, f"{lp:.3f}", f"{math.exp(lp):.3g}"]
        if score is not None:
            cells.append(f"{score:.3f}")
        cells.append("yes" if fin else "no")
        table.add_row(*cells)
    console = Console()
    console.print(table)
    if note:
        console.print(note, highlight=False)
