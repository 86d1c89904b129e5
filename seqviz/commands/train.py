"""`seqviz train`: train a word- or character-level recurrent LM with seqviz's own BPTT."""

from __future__ import annotations

import argparse

from seqviz.commands.options import add_dtype
from seqviz.limits import (
    MAX_BATCH,
    MAX_EPOCHS,
    MAX_HIDDEN,
    MAX_SEQ_LEN,
    SEED,
    float_option,
    int_option,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train",
        help="train a recurrent language model on a text file",
        description="Train an embedding -> LSTM/GRU/RNN -> softmax language model on CORPUS "
        "(one sentence per line) with truncated BPTT, gradient clipping and Adam or SGD. "
        "A checkpoint is written atomically after every epoch; Ctrl-C keeps the last one.",
    )
    p.add_argument("corpus", metavar="CORPUS.txt")
    p.add_argument("--cell", choices=("lstm", "gru", "rnn"), default="lstm")
    p.add_argument(
        "--variant",
        choices=("textbook", "pytorch"),
        default="textbook",
        help="GRU only: where the reset gate acts (default textbook)",
    )
    p.add_argument("--hidden", type=int_option(1, MAX_HIDDEN), default=48,
                   help=f"hidden size (default 48, at most {MAX_HIDDEN})")  # fmt: skip
    p.add_argument("--emb", type=int_option(1, MAX_HIDDEN), default=16,
                   help=f"embedding size (default 16, at most {MAX_HIDDEN})")  # fmt: skip
    p.add_argument("--level", choices=("word", "char"), default="word")
    p.add_argument("--seq-len", type=int_option(1, MAX_SEQ_LEN), default=32,
                   help=f"truncated BPTT length (default 32, at most {MAX_SEQ_LEN})")  # fmt: skip
    p.add_argument("--optimizer", choices=("adam", "sgd"), default="adam")
    p.add_argument("--lr", type=float_option(0, 1e300), default=None,
                   help="learning rate (Adam 0.01, SGD 0.5)")  # fmt: skip
    p.add_argument("--epochs", type=int_option(1, MAX_EPOCHS), default=10,
                   help=f"passes over the corpus (default 10, at most {MAX_EPOCHS:,})")  # fmt: skip
    p.add_argument("--batch", type=int_option(1, MAX_BATCH), default=16,
                   help=f"sentences per update (default 16, at most {MAX_BATCH})")  # fmt: skip
    p.add_argument("--clip", type=float_option(0, 1e300), default=5.0,
                   help="max gradient norm; 0 = no clipping")  # fmt: skip
    p.add_argument("--min-count", type=int_option(1, 10**9), default=1,
                   help="words seen fewer times become <unk> (default 1: none)")  # fmt: skip
    p.add_argument("--seed", type=SEED, default=0)
    add_dtype(p)
    p.add_argument("--out", required=True, metavar="MODEL.npz", help="where to save the model")
    p.set_defaults(func=run)


class _RichProgress:
    """The `fit` callback of the CLI: a Rich progress bar and one line per saved epoch."""

    def __init__(self, progress, task, epochs: int) -> None:  # noqa: ANN001
        import time

        self.progress, self.task, self.epochs = progress, task, epochs
        self.clock = time.perf_counter
        self.t0, self.total, self.n, self.epoch = self.clock(), 0.0, 0, 1
        self.tokens = 0  # counted as batches are handed to the loop

    def batches(self, model):  # noqa: ANN001, ANN201
        """The model's batches, counting their tokens for the tokens/s column."""

        def epoch_batches(epoch, rng):  # noqa: ANN001, ANN202
            for batch in model.batches(epoch, rng):
                self.tokens += sum(len(ids) - 1 for ids in batch)
                yield batch

        return epoch_batches

    def on_update(self, update) -> None:  # noqa: ANN001
        self.total, self.n = self.total + update.loss, self.n + 1
        speed = self.tokens / max(self.clock() - self.t0, 1e-9)
        self.progress.update(
            self.task, advance=1, epoch=self.epoch, loss=self.total / self.n, speed=speed
        )

    def on_epoch_end(self, epoch: int, info) -> None:  # noqa: ANN001
        self.progress.console.print(
            f"epoch {epoch}: mean loss {info.mean_loss:.4f} nats/token; saved {info.checkpoint}"
        )
        self.t0, self.total, self.n = self.clock(), 0.0, 0
        self.tokens, self.epoch = 0, min(epoch + 1, self.epochs)


def run(args: argparse.Namespace) -> int:

    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from seqviz.commands.options import interrupted_note
    from seqviz.models.lm_train import LMConfig, TrainableLM, default_lr, read_corpus
    from seqviz.training import Diverged, FitConfig, fit

    config = LMConfig(
        cell=args.cell,
        hidden=args.hidden,
        emb=args.emb,
        level=args.level,
        seq_len=args.seq_len,
        batch=args.batch,
        seed=args.seed,
        variant=args.variant if args.cell == "gru" else "textbook",
    )
    from seqviz.limits import check_model_size, check_output, check_vocab, shown
    from seqviz.models.lm_train import build_vocab

    out = check_output(args.out)  # before training: a bad --out must not cost an epoch
    fit_config = FitConfig(
        epochs=args.epochs,
        lr=default_lr(args.optimizer) if args.lr is None else args.lr,
        optimizer=args.optimizer,
        clip=args.clip,
        seed=args.seed,
        checkpoint=out,
        dtype=args.dtype,
    )
    sentences = read_corpus(args.corpus, config.level)
    if config.level == "word":
        from seqviz.models.lm_train import replace_rare

        sentences = replace_rare(sentences, args.min_count)
    vocab = len(build_vocab(sentences))
    check_vocab(vocab, f"the corpus {shown(args.corpus)}")
    g = {"lstm": 4, "gru": 3, "rnn": 1}[config.cell]
    h, e = config.hidden, config.emb
    check_model_size(vocab * (e + h + 1) + g * h * (e + h + 2), "the model")
    model = TrainableLM(sentences, config)
    console = Console(stderr=True)
    console.print(
        f"{len(sentences)} sentences, {model.n_tokens} tokens, vocabulary {len(model.vocab)}; "
        f"{config.cell} hidden {config.hidden}, embedding {config.emb}, {fit_config.optimizer} "
        f"lr {fit_config.lr:g}, clip {fit_config.clip:g}"
    )
    n_batches = model.n_batches()
    if len(model.data) < config.batch:  # one short batch a step: training barely moves
        console.print(
            f"warning: the corpus makes {len(model.data)} sequence(s), fewer than one batch of "
            f"{config.batch}: each epoch is a single update. Use a smaller --batch, a shorter "
            "--seq-len or more text.", style="bold yellow", markup=False,
        )  # fmt: skip
    progress = Progress(
        TextColumn("epoch {task.fields[epoch]}/{task.fields[epochs]}"),
        BarColumn(),
        TextColumn("loss {task.fields[loss]:.3f}"),
        TextColumn("{task.fields[speed]:,.0f} tokens/s"),
        TimeRemainingColumn(),
        console=console,
    )
    with progress:
        task = progress.add_task(
            "train", total=fit_config.epochs * n_batches, epoch=1, epochs=fit_config.epochs,
            loss=float("nan"), speed=0.0,
        )  # fmt: skip
        callback = _RichProgress(progress, task, fit_config.epochs)
        try:
            result = fit(model, callback.batches(model), fit_config, [callback], progress=False)
        except Diverged as exc:
            raise ValueError(
                f"training diverged in epoch {exc.epoch} (the gradient became inf or nan); "
                "try a smaller --lr or a --clip value."
            ) from None
    if result.interrupted:
        console.print(interrupted_note(result.epochs, out))
        return 130
    return 0
