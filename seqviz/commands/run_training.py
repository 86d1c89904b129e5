"""`seqviz run training`: RNN, LSTM and GRU trained side by side on a task at a chosen lag."""

from __future__ import annotations

import argparse
import math
import sys
import time

from seqviz.commands.options import add, add_seed
from seqviz.limits import MAX_BATCH, MAX_HIDDEN, MAX_UPDATES, int_option

HELP = "train RNN/LSTM/GRU side by side on copy or agreement at a lag; who reaches 90%?"
SPARK = "▁▂▃▄▅▆▇█"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add(parser, "--task", str, "copy", "copy or agreement")
    add(parser, "--lag", int, 20, "distance in steps, 1..100")
    parser.add_argument("--cell", nargs="+", default=["rnn", "lstm", "gru"], metavar="CELL",
                        help="cells to train side by side (default: rnn lstm gru)")  # fmt: skip
    add(parser, "--steps", int_option(1, MAX_UPDATES), 2000, "updates per cell")
    add(parser, "--clip", float, 1.0, "max global gradient norm, 0 = off")
    add(parser, "--lr", float, 0.01, "learning rate")
    add(parser, "--optimizer", str, "adam", "adam or sgd")
    add(parser, "--hidden", int_option(1, MAX_HIDDEN), 32, "hidden size")
    add(parser, "--forget-bias", float, 2.0, "LSTM forget gate bias at init")
    add(parser, "--batch", int_option(1, MAX_BATCH), 32, "sequences per update")
    add_seed(parser, "weights and data")


def run(args: argparse.Namespace) -> int:
    import json

    from seqviz.commands import UsageError
    from seqviz.training.race import Race, RaceConfig, summary

    if not 1 <= args.steps <= 1_000_000:
        raise UsageError(f"--steps must be a whole number from 1 to 1000000, not {args.steps}.")
    config = RaceConfig(task=args.task, lag=args.lag, cells=tuple(args.cell), hidden=args.hidden,
                        lr=args.lr, optimizer=args.optimizer, clip=args.clip,
                        forget_bias=args.forget_bias, seed=args.seed, batch=args.batch)  # fmt: skip
    race = Race(config)
    show = not args.json and sys.stderr.isatty()
    t0 = time.perf_counter()
    while race.step < args.steps:
        race.update()
        if show and (race.step % 50 == 0 or race.step == args.steps):
            print(f"\rupdate {race.step}/{args.steps}", end="", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - t0
    if show:
        print("\r" + " " * 30 + "\r", end="", file=sys.stderr)
    rows = summary(race)
    data = {
        "task": config.task, "lag": config.lag, "steps": args.steps, "hidden": config.hidden,
        "lr": config.lr, "optimizer": config.optimizer, "clip": config.clip,
        "forget_bias": config.forget_bias, "batch": config.batch, "seed": config.seed,
        "chance": race.task.chance, "seconds": seconds, "cells": rows,
    }  # fmt: skip
    if args.json:
        print(json.dumps(data, indent=2, allow_nan=True))
        return 0
    print(format_table(data))
    return 0


def sparkline(values: list[float]) -> str:
    good = [v for v in values if math.isfinite(v)]
    if not good:
        return "nan"
    lo, hi = min(good), max(good)
    span = hi - lo or 1.0
    return "".join(SPARK[round((v - lo) / span * 7)] if math.isfinite(v) else "!" for v in values)


def _num(v: object, fmt: str) -> str:
    return "nan" if not isinstance(v, (int, float)) or not math.isfinite(v) else format(v, fmt)


def format_table(data: dict) -> str:
    from seqviz.training.race import EVAL_SIZE, TARGET, WINDOW

    clip = "off" if data["clip"] == 0 else f"{data['clip']:g}"
    lines = [
        f"{data['task']} at lag {data['lag']}: {data['steps']} updates of {data['batch']} "
        f"sequences, hidden {data['hidden']}, {data['optimizer']} lr {data['lr']:g}, clip {clip}, "
        f"seed {data['seed']} (chance {data['chance']:.0%}, {data['seconds']:.0f} s)",
        f"{'cell':<5} {'held-out':>8} {'running':>8}  {'loss first→last (min)':<24} "
        f"{'loss curve':<20}  running first ≥{TARGET:.0%}",
    ]
    for r in data["cells"]:
        loss = (f"{_num(r['loss_first'], '.3f')}→{_num(r['loss_last'], '.3f')} "
                f"({_num(r['loss_min'], '.3f')})")  # fmt: skip
        reached = "never" if r["first_reached"] is None else f"update {r['first_reached']}"
        lines.append(f"{r['cell'].upper():<5} {_num(r['accuracy'], '8.1%'):>8} "
                     f"{_num(r.get('running_accuracy'), '8.1%'):>8}  {loss:<24} "
                     f"{sparkline(r['loss_curve']):<20}  {reached}")  # fmt: skip
        for key, what in (("first_nan", "nan/inf"), ("first_spike", "loss spike")):
            if r[key] is not None:
                lines.append(f"      {r['cell'].upper()}: {what} at update {r[key]}")
    lines.append(f"held-out: final accuracy, after the last update, on {EVAL_SIZE:,} new sequences")
    lines.append(f"running: accuracy on the last {WINDOW} updates' training batches as it trains; "
                 f"running first ≥{TARGET:.0%}: the update where it first reached "
                 f"{TARGET:.0%}")  # fmt: skip
    return "\n".join(lines)
