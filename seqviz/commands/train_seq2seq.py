"""`seqviz train-seq2seq`: train an encoder-decoder on the translation task with `fit`."""

from __future__ import annotations

import argparse
from typing import Any

from seqviz.commands.options import add_dtype


def _ratio(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number from 0 to 1") from None
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"the teacher-forcing ratio must be from 0 to 1, got {v}")
    return v


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train-seq2seq",
        help="train an encoder-decoder (with or without attention) on the translation task",
        description="Train a seq2seq model on the toy translation task (python -m "
        "seqviz.tasks.translation), with fresh training-split pairs every epoch. A checkpoint "
        "is written atomically after every epoch; Ctrl-C keeps the last one.",
    )
    p.add_argument("--attention", action=argparse.BooleanOptionalAction, default=True,
                   help="Luong attention over the encoder states (default on)")  # fmt: skip
    p.add_argument("--reverse-source", action="store_true",
                   help="the encoder reads the source backwards (Sutskever 2014)")  # fmt: skip
    p.add_argument("--cell", choices=("lstm", "gru", "rnn"), default="gru")
    p.add_argument("--hidden", type=int, default=48, help="hidden size (default 48)")
    p.add_argument("--emb", type=int, default=24, help="embedding size (default 24)")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--pairs", type=int, default=4000, help="training pairs per epoch")
    p.add_argument("--batch", type=int, default=16, help="pairs per update (default 16)")
    p.add_argument("--lr", type=float, default=0.01, help="Adam learning rate (default 0.01)")
    p.add_argument("--clip", type=float, default=5.0, help="max gradient norm; 0 = no clipping")
    p.add_argument("--seed", type=int, default=0)
    add_dtype(p)
    p.add_argument("--teacher-forcing", type=_ratio, default=1.0, metavar="RATIO",
                   help="1 = always feed the reference; below 1 = scheduled sampling, the ratio "
                   "falling linearly from 1 to RATIO over the epochs")  # fmt: skip
    p.add_argument("--max-len", type=int, default=32, help="longest training source (words)")
    p.add_argument("--out", required=True, metavar="MODEL.npz", help="where to save the model")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from seqviz.commands.options import interrupted_note
    from seqviz.models.seq2seq import Seq2SeqConfig
    from seqviz.models.seq2seq_train import Seq2SeqTrainConfig, make_batches, new_model, ratio_at
    from seqviz.training import Callback, EpochInfo, FitConfig, Update, fit

    arch = Seq2SeqConfig(cell=args.cell, hidden=args.hidden, emb=args.emb,
                         attention=args.attention, reverse=args.reverse_source)  # fmt: skip
    config = Seq2SeqTrainConfig(
        model=arch, teacher_forcing=args.teacher_forcing, pairs=args.pairs, batch=args.batch,
        max_len=args.max_len, seed=args.seed,
    )  # fmt: skip
    out = Path(args.out)
    if not out.parent.is_dir():
        raise ValueError(f"the output directory {str(out.parent)!r} does not exist.")
    fit_config = FitConfig(epochs=args.epochs, lr=args.lr, clip=args.clip, seed=args.seed,
                           checkpoint=out, dtype=args.dtype)  # fmt: skip
    model = new_model(config, name=out.stem)
    console = Console(stderr=True)
    n_params = sum(v.size for v in model.weights.values())
    console.print(
        f"seq2seq {'with' if arch.attention else 'without'} attention"
        f"{', source read backwards' if arch.reverse else ''}: {arch.cell} hidden "
        f"{arch.hidden}, embedding {arch.emb}, {n_params:,} weights; {config.pairs} pairs "
        f"per epoch, lr {args.lr:g}, clip {args.clip:g}, teacher forcing {config.teacher_forcing:g}"
    )
    steps = -(-config.pairs // config.batch)
    progress = Progress(
        TextColumn("epoch {task.fields[epoch]}/{task.fields[epochs]}"), BarColumn(),
        TextColumn("loss {task.fields[loss]:.4f}"), TextColumn("tf {task.fields[tf]:.2f}"),
        TimeRemainingColumn(), console=console,
    )  # fmt: skip
    t0, c0 = time.perf_counter(), time.process_time()

    class Show(Callback):
        def __init__(self, task_id: Any) -> None:
            self.task_id, self.recent = task_id, []  # type: ignore[var-annotated]

        def on_update(self, update: Update) -> None:
            self.recent = [*self.recent[-49:], update.loss]
            progress.update(self.task_id, advance=1, loss=sum(self.recent) / len(self.recent),
                            tf=model.teacher_forcing)  # fmt: skip

        def on_epoch_end(self, epoch: int, info: EpochInfo) -> None:
            progress.update(self.task_id, epoch=min(epoch + 1, args.epochs))
            progress.console.print(
                f"epoch {epoch}: mean loss {info.mean_loss:.4f} nats/token "
                f"(teacher forcing {ratio_at(config, epoch, args.epochs):.2f}); saved {out}"
            )

    with progress:
        task_id = progress.add_task("train", total=args.epochs * steps, epoch=1,
                                    epochs=args.epochs, loss=float("nan"), tf=1.0)  # fmt: skip
        result = fit(model, make_batches(model, config, args.epochs), fit_config, [Show(task_id)])
    cpu = time.process_time() - c0
    if result.interrupted:
        console.print(interrupted_note(result.epochs, out))
        return 130
    console.print(f"done in {time.perf_counter() - t0:.0f} s ({cpu:.0f} s of CPU); saved {out}")
    return 0
