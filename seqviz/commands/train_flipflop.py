"""`seqviz train-flipflop`: train the 3-bit flip-flop RNN with seqviz's one trainer."""

from __future__ import annotations

import argparse
from typing import Any

from seqviz.commands.options import add, add_fit_options
from seqviz.limits import MAX_HIDDEN, MAX_STEPS, MAX_UPDATES, int_option


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train-flipflop",
        help="train a tanh RNN on the 3-bit flip-flop task",
        description="Train a tanh RNN with a linear readout on the 3-bit flip-flop task (three "
        "channels of +1/-1 pulses; each output holds the sign of its channel's last pulse) by "
        "BPTT with Adam and gradient clipping. A checkpoint is written atomically after every "
        "epoch; Ctrl-C keeps the last one. Prints the held-out quality at the end.",
    )
    add(p, "--hidden", int_option(1, MAX_HIDDEN), 24, "hidden size")
    add(p, "--steps", int_option(1, MAX_STEPS), 100, "steps per sequence")
    add(p, "--batches", int_option(1, MAX_UPDATES), 40, "updates per epoch")
    add_fit_options(p, epochs=20, batch=32, per_update="sequences", clip=1.0)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from seqviz.commands.options import fit_with_lines, out_path
    from seqviz.models.flipflop import FlipFlopRNN, TrainSettings, batches_for, quality
    from seqviz.training import FitConfig

    out = out_path(args, ("hidden", "steps", "batch", "batches"))
    settings = TrainSettings(args.hidden, args.steps, args.batch, args.batches, args.seed)
    model = FlipFlopRNN.random(args.hidden, seed=args.seed)
    config = FitConfig(epochs=args.epochs, lr=args.lr, optimizer="adam", clip=args.clip,
                       seed=args.seed, checkpoint=out, dtype=args.dtype)  # fmt: skip

    def line(epoch: int, info: Any) -> str:
        mse = f"mean squared error {info.mean_loss:.4f}"
        return f"epoch {epoch}: {mse} ({info.seconds:.1f} s); saved {out}"

    if not fit_with_lines(model, batches_for(settings), config, line):
        return 130
    q = quality(model)
    print(
        f"held-out: mean squared error {q['mse']:.4f}, bits right {q['bit_accuracy']:.2%}, "
        f"{q['stable']} stable fixed points, {q['saddles']} saddles"
    )
    return 0
