"""Scene: watch it learn. RNN, LSTM and GRU train side by side on a task at a chosen lag."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from seqviz.scenes import title_of
from seqviz.scenes.base import ParamSpec, Scene

if TYPE_CHECKING:
    from seqviz.training.live import CellChunk

_RUNS = itertools.count(1)  # numbers the training runs of this process (see TrainingResult.run)

CELL_SETS = ("rnn lstm", "rnn lstm gru", "rnn gru", "lstm gru", "rnn", "lstm", "gru")

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
class TrainingResult:
    values: Any
    step: int  # updates done
    done: bool  # the last result of the stream (steps reached)
    cells: tuple[CellChunk, ...]  # each holding its whole curves so far
    sample: tuple[str, ...]  # the sample sequence's inputs as words
    target: int  # its right answer
    classes: tuple[str, ...]
    key: int  # step of the sample that holds what the answer needs
    chance: float
    clip: float  # the threshold in use now
    lr: float
    run: int = 0  # the training run it belongs to: each start or restart is a new one
    overflow: Any = None

    @property
    def T(self) -> int:
        return len(self.sample)

    def cell(self, name: str) -> CellChunk | None:
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


def _result(chunk: Any, curves: Any, values: Any, task: Any, sample: Any, run: int,
            ) -> TrainingResult:  # fmt: skip
    """What the scene shows after ``chunk``: the whole curves and the chunk's diagnostics."""
    from seqviz.training.live import FIELDS

    cells = tuple(replace(c, **{f: curves.view(c.cell, f) for f in FIELDS}) for c in chunk.cells)
    return TrainingResult(
        values=values, step=chunk.step, done=chunk.step >= values.steps, cells=cells,
        sample=sample.tokens[0], target=int(sample.y[0]), classes=task.classes, key=sample.key,
        chance=task.chance, clip=chunk.clip, lr=chunk.lr, run=run,
    )  # fmt: skip


def _steer(trainer: Any, values: Any, control: Any) -> Iterator[TrainingResult]:
    """Ask ``trainer`` for chunks as ``control`` allows and yield a result after each; while
    running, the next chunk is asked for before a result is handed on, so that the trainer
    keeps training while the result is drawn."""
    from seqviz.tasks.lagged import make_task
    from seqviz.training.live import Curves, sample_batch

    task = make_task(values.task, values.lag)
    sample = sample_batch(task, values.seed)
    curves = Curves()
    run = next(_RUNS)
    trainer.send(0, values.lr, values.clip)  # the state before the first update
    owed_from, step = 0, 0  # steps granted while paused (chunk on its way), updates before it
    while True:
        chunk = trainer.receive(lambda: control.cancelled)
        if chunk is None:
            return
        curves.add(chunk)
        live = control.values
        left = values.steps - chunk.step
        # A chunk stops after its time budget. While running, the rest is simply asked for
        # again (or not, once paused); steps granted while paused are owed until all are done.
        owed, step = min(owed_from - (chunk.step - step), left), chunk.step
        n = owed if owed > 0 else (control.try_take(left) if left > 0 else 0)
        if n:
            trainer.send(n, live.lr, live.clip)
        owed_from = n if n and (owed > 0 or not control.running) else 0
        yield _result(chunk, curves, live, task, sample, run)
        if left <= 0:
            return
        if not trainer.busy:
            n = control.take(left)  # blocks while paused
            if n == 0:
                return
            live = control.values
            trainer.send(n, live.lr, live.clip)
            owed_from = 0 if control.running else n


def stream(values: Any, control: Any) -> Iterator[TrainingResult]:
    """Train in a child process in chunks of about CHUNK_SECONDS (seqviz.training.remote),
    yielding a result after each chunk; the process ends with the stream."""
    from seqviz.training.remote import RemoteTrainer

    trainer = RemoteTrainer(_config(values))  # a bad knob raises here, in this process
    try:
        yield from _steer(trainer, values, control)
    finally:
        trainer.close()


def compute(values: Any) -> TrainingResult:
    """The whole run at once, in this process (headless use): the stream's last result."""
    from seqviz.scenes.stream import StreamControl
    from seqviz.training.live import LocalTrainer

    last = None
    for last in _steer(LocalTrainer(_config(values)), values, StreamControl(values)):  # noqa: B007
        pass
    assert last is not None
    return last


def frames(result: TrainingResult) -> int:
    return 0  # no animation cursor: the stream itself moves


SCENE = Scene(
    name="training",
    title=title_of("training"),
    summary="Cells learn a task with a dependency `lag` steps back: the LSTM bridges it, the "
    "RNN's gradient fades first.",
    specs=SPECS,
    compute=compute,
    frames=frames,
    view="seqviz.ui.views.training:TrainingView",
    stream=stream,
    steered=True,
)
