"""`seqviz train`: train a word- or character-level recurrent LM with seqviz's own BPTT."""

from __future__ import annotations

import argparse


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
    p.add_argument("--hidden", type=int, default=48, help="hidden size (default 48)")
    p.add_argument("--emb", type=int, default=16, help="embedding size (default 16)")
    p.add_argument("--level", choices=("word", "char"), default="word")
    p.add_argument("--seq-len", type=int, default=32, help="truncated BPTT length (default 32)")
    p.add_argument("--optimizer", choices=("adam", "sgd"), default="adam")
    p.add_argument("--lr", type=float, default=None, help="learning rate (Adam 0.01, SGD 0.5)")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch", type=int, default=16, help="sentences per update (default 16)")
    p.add_argument("--clip", type=float, default=5.0, help="max gradient norm; 0 = no clipping")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, metavar="MODEL.npz", help="where to save the model")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from seqviz.decoding.training import TrainConfig, Trainer, read_corpus

    config = TrainConfig(
        cell=args.cell,
        hidden=args.hidden,
        emb=args.emb,
        level=args.level,
        seq_len=args.seq_len,
        lr=args.lr,
        epochs=args.epochs,
        clip=args.clip,
        batch=args.batch,
        optimizer=args.optimizer,
        seed=args.seed,
        variant=args.variant if args.cell == "gru" else "textbook",
    )
    out = Path(args.out)
    if not out.parent.is_dir():
        raise ValueError(f"the output directory {str(out.parent)!r} does not exist.")
    sentences = read_corpus(args.corpus, config.level)
    trainer = Trainer(sentences, config)
    console = Console(stderr=True)
    console.print(
        f"{len(sentences)} sentences, {trainer.n_tokens} tokens, vocabulary {len(trainer.vocab)}; "
        f"{config.cell} hidden {config.hidden}, embedding {config.emb}, {config.optimizer} "
        f"lr {config.learning_rate:g}, clip {config.clip:g}"
    )
    n_batches = -(-len(trainer.data) // config.batch)
    saved_epoch = 0
    progress = Progress(
        TextColumn("epoch {task.fields[epoch]}/{task.fields[epochs]}"),
        BarColumn(),
        TextColumn("loss {task.fields[loss]:.3f}"),
        TextColumn("{task.fields[speed]:,.0f} tokens/s"),
        TimeRemainingColumn(),
        console=console,
    )
    try:
        with progress:
            task = progress.add_task(
                "train", total=config.epochs * n_batches, epoch=1, epochs=config.epochs,
                loss=float("nan"), speed=0.0,
            )  # fmt: skip
            for epoch in range(1, config.epochs + 1):
                total, tokens, t0 = 0.0, 0, time.perf_counter()
                for batch in trainer.batches():
                    try:
                        loss, n = trainer.train_batch(batch)
                    except FloatingPointError:
                        raise ValueError(
                            f"training diverged in epoch {epoch} (the gradient became inf or "
                            "nan); try a smaller --lr or a --clip value."
                        ) from None
                    total += loss
                    tokens += n
                    elapsed = time.perf_counter() - t0
                    progress.update(
                        task, advance=1, epoch=epoch, loss=total / tokens,
                        speed=tokens / max(elapsed, 1e-9),
                    )  # fmt: skip
                trainer.model(out.stem).save(out)
                saved_epoch = epoch
                progress.console.print(
                    f"epoch {epoch}: mean loss {total / tokens:.4f} nats/token; saved {out}"
                )
    except KeyboardInterrupt:
        if saved_epoch:
            console.print(f"interrupted; {out} holds the checkpoint of epoch {saved_epoch}.")
        else:
            console.print("interrupted before the first epoch ended; no model was written.")
        return 130
    return 0
