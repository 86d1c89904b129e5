"""What several commands share: options whose help states their default, the train-* plumbing."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from seqviz.commands import UsageError
from seqviz.limits import MAX_BATCH, MAX_EPOCHS, SEED, int_option


def add(
    parser: argparse.ArgumentParser,
    flag: str,
    kind: Any,
    default: Any,
    what: str,
    *,
    most: bool = False,
) -> None:
    """`flag` parsed by `kind`, its help "WHAT (default D)" (with `most`, ", at most HI" from a
    limits option's bounds): the default and the bound are written only once."""
    shown = f"{default:g}" if isinstance(default, float) else str(default)
    if most:
        shown += f", at most {kind.bounds[1]:,}"
    parser.add_argument(flag, type=kind, default=default, help=f"{what} (default {shown})")


def add_seed(parser: argparse.ArgumentParser, what: str = "random seed") -> None:
    add(parser, "--seed", SEED, 0, what)


def print_json(doc: Any) -> int:
    """Print `doc` as indented JSON (the --json output of `seqviz run ...`); exit code 0."""
    import json

    print(json.dumps(doc, indent=2))
    return 0


def add_fit_options(
    parser: argparse.ArgumentParser, *, epochs: int, batch: int, per_update: str, clip: float
) -> None:
    """The options of every train-* command on `seqviz.training.fit` with Adam: --epochs,
    --batch, --lr, --clip, --seed and the required --out."""
    add(parser, "--epochs", int_option(1, MAX_EPOCHS), epochs, "passes over the data")
    add(parser, "--batch", int_option(1, MAX_BATCH), batch, f"{per_update} per update")
    add(parser, "--lr", float, 0.01, "Adam learning rate")
    parser.add_argument("--clip", type=float, default=clip,
                        help=f"max gradient norm; 0 = no clipping (default {clip:g})")  # fmt: skip
    add_seed(parser, "initial weights and data order")
    add_dtype(parser)
    parser.add_argument("--out", required=True, metavar="MODEL.npz", help="where to save the model")


def add_dtype(parser: argparse.ArgumentParser) -> None:
    """--dtype float64|float32: the arithmetic of training (the saved model is float64)."""
    parser.add_argument(
        "--dtype", choices=("float64", "float32"), default="float64",
        help="arithmetic while training: float32 is faster on the batched BLAS kernels; the "
        "saved model is float64 either way (default float64)",
    )  # fmt: skip


def out_path(args: argparse.Namespace, sizes: tuple[str, ...] = ()) -> Path:
    """--out as a Path, once the sizes named are at least 1 and --out's folder exists."""
    for name in sizes:
        if getattr(args, name) < 1:
            raise UsageError(f"--{name} must be at least 1, got {getattr(args, name)}.")
    out = Path(args.out)
    if not out.parent.is_dir():
        raise UsageError(f"the folder of --out does not exist: {str(out.parent)!r}.")
    return out


def interrupted_note(epochs: int, out: Path) -> str:
    """What Ctrl-C left behind: the checkpoint of the last finished epoch, or nothing."""
    if epochs:
        return f"interrupted; {out} holds the checkpoint of epoch {epochs}."
    return "interrupted before the first epoch ended; no model was written."


def fit_with_lines(model: Any, batches: Any, config: Any, line: Callable[[int, Any], str]) -> bool:
    """`fit(model, batches, config)` printing `line(epoch, info)` after every epoch; False after
    Ctrl-C, once it has said what the checkpoint holds."""
    from seqviz.training import Callback, EpochInfo, fit

    class Lines(Callback):
        def on_epoch_end(self, epoch: int, info: EpochInfo) -> None:
            print(line(epoch, info), flush=True)

    result = fit(model, batches, config, [Lines()])
    if result.interrupted:
        print(interrupted_note(result.epochs, Path(config.checkpoint)))
    return not result.interrupted
