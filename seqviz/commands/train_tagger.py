"""`seqviz train-tagger`: train a (bi)LSTM/GRU BIO tagger on the tagging corpus by seqviz's BPTT."""

from __future__ import annotations

import argparse

from seqviz.commands import UsageError
from seqviz.limits import MAX_BATCH, MAX_EPOCHS, MAX_HIDDEN, MAX_SENTENCES, SEED, int_option


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train-tagger",
        help="train a BIO tagger (embedding -> (bi)LSTM/GRU -> softmax per word)",
        description="Train a tagger on sentences of the tagging corpus (seqviz.tasks.tagging) with "
        "the one trainer (Adam, global-norm clipping), then report its accuracy on held-out "
        "sentences. A checkpoint is written atomically after every epoch; Ctrl-C keeps it.",
    )
    p.add_argument("--cell", choices=("lstm", "gru"), default="lstm")
    p.add_argument("--layers", type=int, choices=(1, 2), default=1, help="stacked layers")
    p.add_argument(
        "--bidirectional", action="store_true", help="read both ways (default: left to right)"
    )
    p.add_argument(
        "--hidden",
        type=int_option(1, MAX_HIDDEN),
        default=24,
        help="hidden size per direction (default 24)",
    )
    p.add_argument(
        "--emb", type=int_option(1, MAX_HIDDEN), default=16, help="embedding size (default 16)"
    )
    p.add_argument(
        "--sentences",
        type=int_option(1, MAX_SENTENCES),
        default=2000,
        help="training sentences (default 2000)",
    )
    p.add_argument("--epochs", type=int_option(1, MAX_EPOCHS), default=4)
    p.add_argument(
        "--batch",
        type=int_option(1, MAX_BATCH),
        default=16,
        help="sentences per update (default 16)",
    )
    p.add_argument("--lr", type=float, default=0.01, help="Adam learning rate (default 0.01)")
    p.add_argument("--clip", type=float, default=5.0, help="max gradient norm; 0 = no clipping")
    p.add_argument("--seed", type=SEED, default=0, help="initial weights and shuffling")
    p.add_argument("--out", required=True, metavar="MODEL.npz", help="where to save the model")
    p.set_defaults(func=run)


class _Progress:
    """One line per epoch: loss, time, held-out token accuracy."""

    def __init__(self, model, test) -> None:  # noqa: ANN001
        self.model, self.test = model, test

    def on_epoch_end(self, epoch: int, info) -> None:  # noqa: ANN001
        acc = self.model.evaluate(self.test)
        print(
            f"epoch {epoch}: loss {info.mean_loss:.4f}, {info.seconds:.1f} s, held-out accuracy "
            f"{acc['accuracy']:.1%} (right-context words {acc['right_context_accuracy']:.1%})",
            flush=True,
        )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from seqviz.models.tagger import Tagger, batches_for
    from seqviz.tasks import tagging as task
    from seqviz.training import FitConfig, fit

    for name in ("hidden", "emb", "epochs", "batch"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name} must be at least 1, got {getattr(args, name)}.")
    out = Path(args.out)
    if not out.parent.is_dir():
        raise UsageError(f"cannot write {out}: the folder {out.parent} does not exist.")
    try:
        train = task.training_set(args.sentences)
        config = FitConfig(epochs=args.epochs, lr=args.lr, clip=args.clip, seed=args.seed,
                           checkpoint=out)  # fmt: skip
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    model = Tagger.random(args.cell, args.hidden, args.emb, args.layers, args.bidirectional,
                          seed=args.seed)  # fmt: skip
    test = task.held_out(300)
    print(f"training a {model.describe()} tagger on {len(train)} sentences", flush=True)
    result = fit(model, batches_for(model, train, args.batch), config, [_Progress(model, test)])
    if result.interrupted:
        print(f"interrupted; {out} holds epoch {result.epochs}")
        return 130
    final = model.evaluate(task.held_out())
    print(
        f"wrote {out}: held-out token accuracy {final['accuracy']:.1%}, on the "
        f"{final['right_context_tokens']:.0f} words whose tag depends on the next word "
        f"{final['right_context_accuracy']:.1%}"
    )
    return 0
