"""`seqviz export-torch`: a seqviz language model as a PyTorch state_dict and its vocabulary."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "export-torch",
        help="write a seqviz language model as a PyTorch state_dict with its vocabulary",
        description="Write MODEL (a shipped or user model's name, or a `seqviz train` .npz) as a "
        "state_dict in the layout of PyTorch's word-language-model example (encoder.weight, "
        "rnn.*, decoder.weight, decoder.bias; float64) and its vocabulary, one token per line "
        "in index order (a JSON list when a token holds a space).",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument("out", metavar="OUT.pt")
    p.add_argument(
        "--vocab", metavar="FILE", default=None,
        help="where the vocabulary goes (default: OUT with .vocab.txt, or .vocab.json)",
    )  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from seqviz import models
    from seqviz.limits import check_output
    from seqviz.models.torch_lm import export

    out = check_output(args.out, "OUT")
    lm = models.load(args.model, kind="lm")
    if args.vocab:
        vocab = check_output(args.vocab, "--vocab")
    else:
        spaced = any(t != t.strip() or not t for t in lm.vocab)
        vocab = Path(out).with_name(Path(out).stem + (".vocab.json" if spaced else ".vocab.txt"))
    line = export(lm, out, vocab)
    print(f"wrote {out} and {vocab}: {line}")
    return 0
