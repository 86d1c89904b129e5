"""`seqviz train-flipflop`: train the 3-bit flip-flop RNN with seqviz's one trainer."""

from __future__ import annotations

import argparse

from seqviz.limits import (
    MAX_BATCH,
    MAX_EPOCHS,
    MAX_HIDDEN,
    MAX_STEPS,
    MAX_UPDATES,
    SEED,
    int_option,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train-flipflop",
        help="train a tanh RNN on the 3-bit flip-flop task",
        description="Train a tanh RNN with a linear readout on the 3-bit flip-flop task (three "
        "channels of +1/-1 pulses; each output holds the sign of its channel's last pulse) by "
        "BPTT with Adam and gradient clipping. A checkpoint is written atomically after every "
        "epoch; Ctrl-C keeps the last one. Prints the held-out quality at the end.",
    )
    p.add_argument(
        "--hidden", type=int_option(1, MAX_HIDDEN), default=24, help="hidden size (default 24)"
    )
    p.add_argument(
        "--steps",
        type=int_option(1, MAX_STEPS),
        default=100,
        help="steps per sequence (default 100)",
    )
    p.add_argument(
        "--batch",
        type=int_option(1, MAX_BATCH),
        default=32,
        help="sequences per update (default 32)",
    )
    p.add_argument(
        "--batches",
        type=int_option(1, MAX_UPDATES),
        default=40,
        help="updates per epoch (default 40)",
    )
    p.add_argument("--epochs", type=int_option(1, MAX_EPOCHS), default=20)
    p.add_argument("--lr", type=float, default=0.01, help="Adam learning rate (default 0.01)")
    p.add_argument("--clip", type=float, default=1.0, help="max gradient norm; 0 = no clipping")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--out", required=True, metavar="MODEL.npz", help="where to save the model")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from seqviz.commands import UsageError
    from seqviz.models.flipflop import FlipFlopRNN, TrainSettings, batches_for, quality
    from seqviz.training import FitConfig, fit

    for name in ("hidden", "steps", "batch", "batches"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name} must be at least 1, got {getattr(args, name)}.")
    out = Path(args.out)
    if not out.parent.is_dir():
        raise UsageError(f"the folder of --out does not exist: {str(out.parent)!r}.")
    settings = TrainSettings(args.hidden, args.steps, args.batch, args.batches, args.seed)
    model = FlipFlopRNN.random(args.hidden, seed=args.seed)
    config = FitConfig(
        epochs=args.epochs,
        lr=args.lr,
        optimizer="adam",
        clip=args.clip,
        seed=args.seed,
        checkpoint=out,
    )

    class Report:
        def on_epoch_end(self, epoch: int, info) -> None:  # noqa: ANN001
            print(
                f"epoch {epoch}: mean squared error {info.mean_loss:.4f} "
                f"({info.seconds:.1f} s); saved {out}",
                flush=True,
            )

    result = fit(model, batches_for(settings), config, [Report()])
    if result.interrupted:
        print(f"interrupted; {out} holds the last finished epoch")
        return 130
    q = quality(model)
    print(
        f"held-out: mean squared error {q['mse']:.4f}, bits right {q['bit_accuracy']:.2%}, "
        f"{q['stable']} stable fixed points, {q['saddles']} saddles"
    )
    return 0
