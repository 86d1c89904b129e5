"""Cells trained side by side on the same batches of a lag task, through the one trainer.

The engine of the Training scene and of `seqviz run training`: every update draws one batch and
gives it to each cell's `Loop`, so the cells see exactly the same data.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from seqviz.core.params import CELLS
from seqviz.models.lagged import LagClassifier
from seqviz.tasks.lagged import TASKS, LagBatch, make_task
from seqviz.training import FitConfig, Loop, Update

WINDOW = 50  # updates in the running accuracy (50 batches of 32 = 1,600 fresh sequences)
MIN_SEEN = 20  # updates before the running accuracy may count as "reached"
TARGET = 0.9
SPIKE = 5.0  # a spike: this many times the median of the previous WINDOW losses, and worse
# than guessing
EVAL_SIZE = 1000


@dataclass(frozen=True)
class RaceConfig:
    """What the cells train on and how; lr and clip may change during a race (set_rates)."""

    task: str = "copy"
    lag: int = 20
    cells: tuple[str, ...] = ("rnn", "lstm", "gru")
    hidden: int = 32
    lr: float = 0.01
    optimizer: str = "adam"
    clip: float = 1.0
    forget_bias: float = 2.0  # keeps the LSTM's cell open at the start (docs/scenes/training.md)
    seed: int = 0
    batch: int = 32

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"unknown task {self.task!r}; tasks are {', '.join(TASKS)}.")
        make_task(self.task, self.lag)  # checks the lag
        bad = [c for c in self.cells if c not in CELLS]
        if bad or not self.cells or len(set(self.cells)) != len(self.cells):
            raise ValueError(
                f"cells must be one or more different names out of {', '.join(CELLS)}, "
                f"not {' '.join(self.cells) or 'none'}."
            )
        for name in ("hidden", "batch"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 1024:
                raise ValueError(f"{name} must be a whole number from 1 to 1024, not {v!r}.")
        if not math.isfinite(self.forget_bias):
            raise ValueError(f"the forget bias must be a finite number, not {self.forget_bias}.")
        self.fit_config()  # lr, optimizer, clip

    def fit_config(self) -> FitConfig:
        return FitConfig(epochs=1, lr=self.lr, optimizer=self.optimizer, clip=self.clip,
                         seed=self.seed)  # fmt: skip


@dataclass
class CellRun:
    """One cell's model, its loop and everything its updates reported."""

    cell: str
    model: LagClassifier
    loop: Loop
    losses: list[float] = field(default_factory=list)
    accuracies: list[float] = field(default_factory=list)  # of each update's batch
    running: list[float] = field(default_factory=list)  # running accuracy after each update
    norms: list[float] = field(default_factory=list)  # global gradient norm before clipping
    clipped: list[bool] = field(default_factory=list)
    finite: list[bool] = field(default_factory=list)
    first_reached: int | None = None  # update at which the running accuracy first hit TARGET
    first_nan: int | None = None
    first_spike: int | None = None
    spike_floor: float = 0.0  # a spike must also be worse than this (guessing's loss)

    def running_accuracy(self) -> float:
        return self.running[-1] if self.running else float("nan")

    def record(self, u: Update) -> None:
        diag = self.model.last
        acc = diag.accuracy if diag is not None else float("nan")
        previous = [v for v in self.losses[-WINDOW:] if math.isfinite(v)]
        self.losses.append(u.loss)
        self.accuracies.append(acc if u.finite else float("nan"))
        self.norms.append(u.grad_norm)
        self.clipped.append(u.clipped)
        self.finite.append(u.finite)
        if not u.finite and self.first_nan is None:
            self.first_nan = u.step
        spike = len(previous) >= 3 and u.loss > max(SPIKE * float(np.median(previous)),
                                                    self.spike_floor)  # fmt: skip
        if self.first_spike is None and u.finite and spike:
            self.first_spike = u.step
        window = [a for a in self.accuracies[-WINDOW:] if math.isfinite(a)]
        self.running.append(float(np.mean(window)) if window else float("nan"))
        if (self.first_reached is None and len(self.accuracies) >= MIN_SEEN
                and self.running[-1] >= TARGET):  # fmt: skip
            self.first_reached = u.step


class Race:
    """The cells of a RaceConfig, each with its own model and Loop, fed the same batches."""

    def __init__(self, config: RaceConfig) -> None:
        self.config = config
        self.task = make_task(config.task, config.lag)
        self.rng = np.random.default_rng([config.seed, 1])
        self.runs: dict[str, CellRun] = {}
        for cell in config.cells:
            model = LagClassifier(cell, self.task.n_inputs, config.hidden, self.task.n_classes,
                                  seed=config.seed, forget_bias=config.forget_bias)  # fmt: skip
            self.runs[cell] = CellRun(cell, model, Loop(model, config.fit_config()),
                                      spike_floor=math.log(self.task.n_classes))  # fmt: skip
        self.step = 0
        self.last_batch: LagBatch | None = None

    def set_rates(self, lr: float, clip: float) -> None:
        """New learning rate and clipping threshold, used from the next update on."""
        config = dataclasses.replace(self.config, lr=lr, clip=clip)  # validates
        self.config = config
        for run in self.runs.values():
            run.loop.config = dataclasses.replace(run.loop.config, clip=config.clip)
            run.loop.optimizer.lr = config.lr

    def update(self) -> int:
        """One update of every cell on one fresh batch; returns the update count."""
        batch = self.task.batch(self.rng, self.config.batch)
        with np.errstate(all="ignore"):  # inf/nan are reported in the Update, not raised
            for run in self.runs.values():
                run.record(run.loop.update(batch))
        self.last_batch = batch
        self.step += 1
        return self.step

    def evaluate(self, size: int = EVAL_SIZE) -> dict[str, float]:
        """Accuracy of each cell on `size` held-out sequences (the same ones for every cell)."""
        batch = self.task.batch(np.random.default_rng([self.config.seed, 2]), size)
        out = {}
        for cell, run in self.runs.items():
            if not run.model.finite():
                out[cell] = float("nan")
                continue
            with np.errstate(all="ignore"):
                probs = run.model.predict(batch.x)
            out[cell] = float(np.mean(probs.argmax(axis=1) == batch.y))
        return out


def loss_summary(losses: list[float], points: int = 20) -> list[float]:
    """The loss curve as `points` means of equal stretches of updates (nan where all were)."""
    arr = np.asarray(losses, dtype=float)
    if arr.size == 0:
        return []
    out = []
    for chunk in np.array_split(arr, min(points, arr.size)):
        good = chunk[np.isfinite(chunk)]
        out.append(float(good.mean()) if good.size else float("nan"))
    return out


def summary(race: Race) -> list[dict[str, object]]:
    """Per cell: held-out accuracy, the loss summarised, when TARGET was first reached."""
    accuracy = race.evaluate()
    rows = []
    for cell, run in race.runs.items():
        finite = [v for v in run.losses if math.isfinite(v)]
        rows.append({
            "cell": cell,
            "accuracy": accuracy[cell],
            "running_accuracy": run.running_accuracy(),
            "loss_first": float(np.mean(finite[:WINDOW])) if finite else float("nan"),
            "loss_last": float(np.mean(finite[-WINDOW:])) if finite else float("nan"),
            "loss_min": min(finite) if finite else float("nan"),
            "loss_curve": loss_summary(run.losses),
            "first_reached": run.first_reached,
            "clipped_updates": int(sum(run.clipped)),
            "first_nan": run.first_nan,
            "first_spike": run.first_spike,
        })  # fmt: skip
    return rows
