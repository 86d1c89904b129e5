"""`seqviz decode`: greedy, beam search or sampling on a bigram table or a trained LM."""

from __future__ import annotations

import argparse
import math
from typing import Any

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
    p.add_argument("--vocab", metavar="VOCAB", help="the vocabulary of a PyTorch --model (.pt)")
    p.add_argument("--list-models", action="store_true", help="list the shipped models and exit")
    p.add_argument("--prompt", default="", help="text the decoder continues (default: none)")
    p.add_argument("--strategy", choices=("greedy", "beam", "sample", "exact"), default="beam",
                   help="exact: the most probable finished sequence")  # fmt: skip
    p.add_argument("--node-budget", type=int_option(1, 1_000_000), default=20_000,
                   help="exact search: most prefixes expanded (default 20,000)")  # fmt: skip
    p.add_argument("--penalty", choices=("plain", "google"), default="plain",
                   help="logP/|y|^alpha or Google's ((5+|y|)/6)^alpha")  # fmt: skip
    p.add_argument("--width", type=int_option(1, MAX_WIDTH), default=BEAM_WIDTH,
                   help=f"beam width (default {BEAM_WIDTH}, as in the app; at most "
                   f"{MAX_WIDTH})")  # fmt: skip
    p.add_argument("--alpha", type=float_option(0, 100), default=LENGTH_ALPHA,
                   help=f"length normalisation exponent: rank by logP / t^alpha (default "
                   f"{LENGTH_ALPHA:g}, the chapter's, as in the app; 0 is plain)")  # fmt: skip
    p.add_argument(
        "--keep-live",
        action="store_true",
        help="beam variant: keep WIDTH live hypotheses, finished ones do not use a slot",
    )
    p.add_argument("--no-repeat-ngram", type=int_option(0, 10), default=0, metavar="N",
                   help="block any token that would repeat an N-gram (0: off)")  # fmt: skip
    p.add_argument("--repetition-penalty", type=float_option(1, 100), default=1.0, metavar="R",
                   help="multiply the log P of tokens already seen by R (1: off)")  # fmt: skip
    p.add_argument("--min-len", type=int_option(0, MAX_LEN), default=0, metavar="N",
                   help="mask </s> until N tokens are generated (0: off)")  # fmt: skip
    p.add_argument("--diverse-groups", type=int_option(1, 16), default=1, metavar="G",
                   help="diverse beam search: G groups of width/G (1: plain beam)")  # fmt: skip
    p.add_argument("--diversity", type=float_option(0, 100), default=0.5, metavar="D",
                   help="diverse beam: cost per earlier group's pick (default 0.5)")  # fmt: skip
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
        import sys

        from seqviz.models.torch_lm import load_lm

        return load_lm(args.model, args.vocab, announce=lambda s: print(s, file=sys.stderr))
    if args.vocab:
        raise ValueError("--vocab is the vocabulary of a PyTorch --model; give --model FILE.pt.")
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
    unknown = getattr(model, "unknown", None)
    if callable(unknown) and unknown(args.prompt):
        import sys

        print(f"read as <unk>: {', '.join(unknown(args.prompt))}", file=sys.stderr)
    search: Any
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
        if args.samples >= 20:  # many samples: the histogram beside the beam's winner
            return _print_histogram(args, model, sampled)
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

    if args.strategy == "exact":
        return _run_exact(args, model)
    from seqviz.decoding.processors import for_model

    knobs = for_model(
        model,
        min_len=args.min_len,
        no_repeat_ngram=args.no_repeat_ngram,
        repetition_penalty=args.repetition_penalty,
    )
    if args.strategy == "greedy":
        search = Greedy(
            model, args.prompt, max_len=args.max_len, alpha=args.alpha, processors=knobs
        )
        title = f"greedy decoding on {model.name}"
    elif args.diverse_groups > 1:
        from seqviz.decoding.diverse import DiverseBeamSearch

        search = DiverseBeamSearch(
            model,
            args.prompt,
            width=args.width,
            groups=args.diverse_groups,
            diversity=args.diversity,
            max_len=args.max_len,
            alpha=args.alpha,
            penalty=args.penalty,
            processors=knobs,
        )
        title = (
            f"diverse beam search on {model.name} (width {args.width}, "
            f"{args.diverse_groups} groups, diversity {args.diversity:g})"
        )
    else:
        search = BeamSearch(
            model,
            args.prompt,
            width=args.width,
            max_len=args.max_len,
            alpha=args.alpha,
            keep_live=args.keep_live,
            penalty=args.penalty,
            processors=knobs,
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


def _print_histogram(args: argparse.Namespace, model, sampled) -> int:
    import json

    from seqviz.decoding import BeamSearch, join_tokens
    from seqviz.decoding.histogram import histogram

    best = BeamSearch(model, args.prompt, width=args.width, max_len=args.max_len).run().best
    h = histogram(sampled, best)

    def text(tokens) -> str:
        return join_tokens(model, [model.vocab[t] for t in tokens])

    if args.json:
        out = sampled.to_json()
        out["histogram"] = {
            "distinct_sentences": len(h.sentences),
            "repeats": h.repeats,
            "distinct_n": {str(k): v for k, v in h.distinct.items()},
            "sentences": [
                {"tokens": text(r.tokens), "count": r.count, "frequency": r.frequency, "p": r.prob}
                for r in h.sentences
            ],
            "beam": {"tokens": text(best.tokens), "p": math.exp(best.logprob),
                     "sampled": h.beam_count},
        }  # fmt: skip
        print(json.dumps(out, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"{h.samples:,} samples from {model.name}: {len(h.sentences):,} distinct sentences, "
        f"{h.repeats:.0%} repeats, distinct-1/2/3 "
        + " / ".join("nan" if math.isnan(v) else f"{v:.2f}" for v in h.distinct.values()),
        title_justify="left",
    )
    table.add_column("count", justify="right")
    table.add_column("frequency", justify="right")
    table.add_column("model P", justify="right")
    table.add_column("", no_wrap=True)
    table.add_column("sentence")
    top = max(r.frequency for r in h.sentences)
    for r in h.sentences[:20]:
        bar = "█" * max(1, round(20 * r.frequency / top))
        table.add_row(str(r.count), f"{r.frequency:.3f}", f"{r.prob:.3g}", bar, text(r.tokens))
    if len(h.sentences) > 20:
        table.caption = f"{len(h.sentences) - 20:,} rarer sentences not shown (--json lists all)"
    console = Console()
    console.print(table)
    console.print(
        f"beam (width {args.width}) winner: '{text(best.tokens)}', model P "
        f"{math.exp(best.logprob):.3g}, drawn {h.beam_count} times in {h.samples:,} samples.",
        highlight=False,
    )
    return 0


def _run_exact(args: argparse.Namespace, model) -> int:
    import json

    from seqviz.decoding import join_tokens
    from seqviz.decoding.exact import BUDGET, EXACT_MEANING, ExactSearch, budget_message

    search = ExactSearch(
        model,
        args.prompt,
        max_len=args.max_len,
        alpha=args.alpha,
        penalty=args.penalty,
        node_budget=args.node_budget,
    )
    result = search.run()
    if args.json:
        out = result.to_json()
        out["expanded"], out["proved_optimal"] = len(search.history), search.proved
        print(json.dumps(out, indent=2))
        return 0
    note = f"stopped: {result.stop} ({EXACT_MEANING.get(result.stop or '', 'not run')})"
    note += f" after {len(search.history):,} expansions."
    if result.stop == BUDGET:
        note = budget_message(args.node_budget)
    _print_rows(
        f"exact search on {model.name} (alpha {args.alpha:g}, {args.penalty} penalty)",
        [
            (join_tokens(model, result.words(h)), h.logprob, h.score, h.finished)
            for h in result.hypotheses
        ],
        args.prompt,
        limit=10,
        note=note,
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
