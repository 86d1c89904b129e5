"""Scene: watch it learn. RNN, LSTM and GRU train side by side on a task at a chosen lag."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from seqviz.scenes.base import ParamSpec, Scene

CELL_SETS = ("rnn lstm", "rnn lstm gru", "rnn gru", "lstm gru", "rnn", "lstm", "gru")
CHUNK_SECONDS = 0.08  # updates between two results while running: a few per frame
SAMPLE_SEED = 7

SPECS = (
    ParamSpec("task", "task", "choice", "copy", choices=("copy", "agreement"),
              help="copy: recall the marked symbol; agreement: the subject's number"),
    ParamSpec("lag", "lag", "int", 20, 1, 100, 1, help="steps between the key and the question"),
    ParamSpec("cells", "cells", "choice", "rnn lstm", choices=CELL_SETS,
              help="cells trained side by side on the same batches"),
    ParamSpec("hidden", "hidden size", "int", 32, 4, 128, 4, help="units of each cell"),
    ParamSpec("lr", "learning rate", "float", 0.01, 0.001, 2.0, 0.001, recompute=False,
              help="applies from the next update"),
    ParamSpec("optimizer", "optimizer", "choice", "adam", choices=("adam", "sgd"),
              help="Adam or plain SGD (restarts training)"),
    ParamSpec("clip", "clip", "float", 1.0, 0.0, 100.0, 0.5, recompute=False,
              help="max global gradient norm, 0 = off; applies from the next update"),
    ParamSpec("forget_bias", "forget bias", "float", 2.0, -5.0, 10.0, 0.5,
              help="LSTM forget gate bias at initialisation"),
    ParamSpec("seed", "seed", "int", 0, 0, 9999, 1, help="weights and data"),
    ParamSpec("steps", "updates", "int", 2000, 10, 20000, 10, help="training stops after these"),
)  # fmt: skip


@dataclass(frozen=True)
class CellState:
    """One cell's curves so far and what its last update saw."""

    cell: str
    loss: np.ndarray  # (n,) batch loss per update (nan where not finite)
    accuracy: np.ndarray  # (n,) running accuracy over the last 50 updates
    norm: np.ndarray  # (n,) global gradient norm before clipping
    clipped: np.ndarray  # (n,) bool
    finite: np.ndarray  # (n,) bool
    grad_back: np.ndarray  # (T,) mean over the batch of |dL/dh| k = 0..T-1 steps back
    forget: np.ndarray | None  # (d, T) LSTM forget gate per unit over time, batch mean
    probs: np.ndarray  # (C,) the current prediction on the sample sequence
    first_reached: int | None
    first_nan: int | None
    first_spike: int | None


@dataclass(frozen=True)
class TrainingResult:
    values: Any
    step: int  # updates done
    done: bool  # the last result of the stream (steps reached)
    cells: tuple[CellState, ...]
    sample: tuple[str, ...]  # the sample sequence's inputs as words
    target: int  # its right answer
    classes: tuple[str, ...]
    key: int  # step of the sample that holds what the answer needs
    chance: float
    clip: float  # the threshold in use now
    lr: float
    overflow: Any = None

    @property
    def T(self) -> int:
        return len(self.sample)

    def cell(self, name: str) -> CellState | None:
        return next((c for c in self.cells if c.cell == name), None)

    def events(self) -> list[str]:
        """The first nan and the first loss spike of each cell, with their update numbers."""
        out = []
        for c in self.cells:
            if c.first_nan is not None:
                out.append(f"{c.cell.upper()} nan/inf at update {c.first_nan}")
            if c.first_spike is not None:
                out.append(f"{c.cell.upper()} loss spike at update {c.first_spike}")
        return out


def _config(v: Any) -> Any:
    from seqviz.training.race import RaceConfig

    return RaceConfig(task=v.task, lag=v.lag, cells=tuple(v.cells.split()), hidden=v.hidden,
                      lr=v.lr, optimizer=v.optimizer, clip=v.clip, forget_bias=v.forget_bias,
                      seed=v.seed)  # fmt: skip


def snapshot(race: Any, values: Any, sample: Any, done: bool) -> TrainingResult:
    """An immutable picture of the race now (copies: the race goes on in the worker)."""
    cells = []
    for cell, run in race.runs.items():
        diag = run.model.last
        T = sample.x.shape[1]
        if diag is None:
            grad_back = np.full(T, np.nan)
            forget = None
        else:
            with np.errstate(all="ignore"):
                grad_back = np.linalg.norm(diag.grad_h, axis=2).mean(axis=0)[::-1].copy()
            forget = None if diag.forget is None else diag.forget.mean(axis=0).T.copy()
        if cell == "lstm" and forget is None:
            forget = np.full((race.config.hidden, T), np.nan)
        if run.model.finite():
            with np.errstate(all="ignore"):
                probs = run.model.predict(sample.x)[0]
        else:
            probs = np.full(race.task.n_classes, np.nan)
        cells.append(CellState(
            cell=cell,
            loss=np.array(run.losses, dtype=float),
            accuracy=np.array(run.running, dtype=float),
            norm=np.array(run.norms, dtype=float),
            clipped=np.array(run.clipped, dtype=bool),
            finite=np.array(run.finite, dtype=bool),
            grad_back=grad_back,
            forget=forget,
            probs=probs,
            first_reached=run.first_reached,
            first_nan=run.first_nan,
            first_spike=run.first_spike,
        ))  # fmt: skip
    return TrainingResult(
        values=values, step=race.step, done=done, cells=tuple(cells), sample=sample.tokens[0],
        target=int(sample.y[0]), classes=race.task.classes, key=sample.key,
        chance=race.task.chance, clip=race.config.clip, lr=race.config.lr,
    )  # fmt: skip


def stream(values: Any, control: Any) -> Iterator[TrainingResult]:
    """Train in chunks of about CHUNK_SECONDS, yielding a snapshot after each chunk."""
    from seqviz.training.race import Race

    race = Race(_config(values))
    sample = race.task.batch(np.random.default_rng([values.seed, SAMPLE_SEED]), 1)
    yield snapshot(race, values, sample, done=False)
    while race.step < values.steps:
        allowed = control.take(values.steps - race.step)
        if allowed == 0:
            return
        live = control.values
        if (live.lr, live.clip) != (race.config.lr, race.config.clip):
            race.set_rates(live.lr, live.clip)
        start = time.perf_counter()
        for _ in range(allowed):
            race.update()
            time.sleep(0.0005)  # hands the interpreter to the UI thread between updates
            if time.perf_counter() - start > CHUNK_SECONDS or control.cancelled:
                break  # the rest of a running budget is asked for again
        yield snapshot(race, live, sample, done=race.step >= values.steps)


def compute(values: Any) -> TrainingResult:
    """The whole run at once (headless use): the stream's last result."""
    from seqviz.scenes.stream import StreamControl

    last = None
    for last in stream(values, StreamControl(values)):  # noqa: B007 (the last one is kept)
        pass
    assert last is not None
    return last


def frames(result: TrainingResult) -> int:
    return 0  # no animation cursor: the stream itself moves


SCENE = Scene(
    name="training",
    title="Training",
    summary="Cells learn a task with a dependency `lag` steps back: the LSTM bridges it, the "
    "RNN's gradient fades first.",
    specs=SPECS,
    compute=compute,
    frames=frames,
    view="seqviz.ui.views.training:TrainingView",
    stream=stream,
    steered=True,
)
