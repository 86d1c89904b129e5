"""`seqviz translate`: translate sentences of the toy task with a shipped or trained seq2seq."""

from __future__ import annotations

import argparse

from seqviz.limits import FILE_CAPS, MAX_LEN, MAX_WIDTH, MiB, int_option


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "translate",
        help="translate a sentence of the toy task with a seq2seq model",
        description="Translate SOURCE (or every line of --input) into the task's verb-final "
        "language with the attention or bottleneck model, or a `seqviz train-seq2seq` file.",
    )
    p.add_argument("source", nargs="?", metavar="SOURCE", help="the sentence to translate")
    p.add_argument("--input", metavar="FILE",
                   help=f"translate one source per line of FILE (a text file of at most "
                        f"{FILE_CAPS['text'] // MiB} MB)")  # fmt: skip
    p.add_argument("--model", default="attention", metavar="attention|bottleneck|FILE.npz")
    p.add_argument("--strategy", choices=("greedy", "beam"), default="greedy")
    p.add_argument("--width", type=int_option(1, MAX_WIDTH), default=4,
                   help=f"beam width (default 4, at most {MAX_WIDTH})")  # fmt: skip
    p.add_argument("--alpha", type=float, default=0.0, help="beam length normalisation")
    p.add_argument("--max-len", type=int_option(1, MAX_LEN), default=60,
                   help=f"most target tokens (default 60, at most {MAX_LEN:,})")  # fmt: skip
    p.add_argument("--json", action="store_true", help="JSON, one object per source line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json
    import math
    import sys

    from seqviz.limits import read_text
    from seqviz.models.translate import load_seq2seq, translate

    if (args.source is None) == (args.input is None):
        raise ValueError("give either one SOURCE sentence or --input FILE, not both or neither.")
    if args.input is not None:
        # a regular file within the text cap, as `train` reads its corpus: a FIFO or device is
        # refused before it is opened
        lines = read_text(args.input, "input file", "text").splitlines()
        sources = [ln for ln in lines if ln.strip()]
        if not sources:
            raise ValueError(f"{args.input!r} has no sentences; put one source per line.")
    else:
        sources = [args.source]
    model = load_seq2seq(args.model)
    # check every line first, so a bad line 40 does not leave 39 translations half-printed
    results = []
    for i, src in enumerate(sources, 1):
        try:
            results.append(translate(model, src, args.max_len, args.strategy, args.width,
                                     args.alpha))  # fmt: skip
        except ValueError as exc:
            where = f"line {i} of {args.input}: " if args.input else ""
            raise ValueError(f"{where}{exc}") from None
    for r in results:
        if args.json:
            lp = r.logprob if math.isfinite(r.logprob) else str(r.logprob)
            obj = {
                "source": " ".join(r.source),
                "best": {"tokens": list(r.tokens), "logprob": lp, "finished": r.finished},
                "attention": None if r.attention is None else r.attention.round(6).tolist(),
            }
            sys.stdout.write(json.dumps(obj) + "\n")
        else:
            tail = "" if r.finished else "  (cut at --max-len)"
            sys.stdout.write(f"{' '.join(r.tokens)}  [log p = {r.logprob:.3f}]{tail}\n")
    return 0
