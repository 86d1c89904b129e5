"""`seqviz train-tagger`: train a (bi)LSTM/GRU BIO tagger on the tagging corpus by seqviz's BPTT."""

from __future__ import annotations

import argparse
from typing import Any

from seqviz.commands import UsageError
from seqviz.commands.options import add, add_fit_options
from seqviz.limits import MAX_HIDDEN, MAX_SENTENCES, int_option


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
    add(p, "--hidden", int_option(1, MAX_HIDDEN), 24, "hidden size per direction")
    add(p, "--emb", int_option(1, MAX_HIDDEN), 16, "embedding size")
    add(p, "--sentences", int_option(1, MAX_SENTENCES), 2000, "training sentences")
    add_fit_options(p, epochs=4, batch=16, per_update="sentences", clip=5.0)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from seqviz.commands.options import fit_with_lines, out_path
    from seqviz.models.tagger import Tagger, batches_for
    from seqviz.tasks import tagging as task
    from seqviz.training import FitConfig

    out = out_path(args, ("hidden", "emb", "epochs", "batch"))
    try:
        train = task.training_set(args.sentences)
        config = FitConfig(epochs=args.epochs, lr=args.lr, clip=args.clip, seed=args.seed,
                           checkpoint=out, dtype=args.dtype)  # fmt: skip
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    model = Tagger.random(args.cell, args.hidden, args.emb, args.layers, args.bidirectional,
                          seed=args.seed)  # fmt: skip
    test = task.held_out(300)
    print(f"training a {model.describe()} tagger on {len(train)} sentences", flush=True)

    def line(epoch: int, info: Any) -> str:  # loss, time, held-out token accuracy
        acc = model.evaluate(test)
        return (f"epoch {epoch}: loss {info.mean_loss:.4f}, {info.seconds:.1f} s, held-out "
                f"accuracy {acc['accuracy']:.1%} (right-context words "
                f"{acc['right_context_accuracy']:.1%})")  # fmt: skip

    if not fit_with_lines(model, batches_for(model, train, args.batch), config, line):
        return 130
    final = model.evaluate(task.held_out())
    print(
        f"wrote {out}: held-out token accuracy {final['accuracy']:.1%}, on the "
        f"{final['right_context_tokens']:.0f} words whose tag depends on the next word "
        f"{final['right_context_accuracy']:.1%}"
    )
    return 0
