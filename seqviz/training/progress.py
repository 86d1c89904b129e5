"""A progress bar with the time left, for any training that runs longer than a few seconds.

`TrainingProgress` counts steps and epochs; it shows nothing for the first ``after`` seconds (a
short run stays quiet), then a Rich progress bar on stderr: the epoch, the steps done and an
estimate of the time left. Before the first epoch has ended the steps of an epoch are unknown,
so the bar then counts steps and the estimate waits for that epoch's end; from then on it is
(steps left) x (seconds per step so far). `fit` drives one when stderr is a terminal; any other
loop can call `step` and `epoch_done` the same way.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

AFTER = 3.0  # seconds of silence before the bar shows


def time_left(done: int, total: int | None, elapsed: float) -> float | None:
    """Seconds left at the pace so far: None while the total or the pace is unknown."""
    if total is None or done <= 0 or elapsed <= 0:
        return None
    return max(0.0, (total - done) * elapsed / done)


def format_seconds(seconds: float | None) -> str:
    """'1:05:03', '4:09', '0:07'; '?' for unknown, 'inf' and 'nan' as such."""
    if seconds is None:
        return "?"
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        return str(seconds)
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class TrainingProgress:
    """Steps and epochs of a training run, shown as a bar once it has run ``after`` seconds."""

    def __init__(
        self,
        epochs: int,
        *,
        after: float = AFTER,
        console: Any = None,
        clock: Callable[[], float] = time.monotonic,
        label: str = "training",
    ) -> None:
        self.epochs = epochs
        self.after = after
        self.clock = clock
        self.label = label
        self.start = clock()
        self.epoch = 1
        self.steps = 0  # steps done in all
        self.epoch_steps: int | None = None  # steps of one epoch, once the first has ended
        self._console = console
        self._progress: Any = None
        self._task: Any = None

    @property
    def total(self) -> int | None:
        return None if self.epoch_steps is None else self.epoch_steps * self.epochs

    def seconds_left(self) -> float | None:
        return time_left(self.steps, self.total, self.clock() - self.start)

    def describe(self) -> str:
        """The line beside the bar: epoch, steps, time left."""
        total = self.total
        steps = f"step {self.steps:,}" + (f" of {total:,}" if total is not None else "")
        left = format_seconds(self.seconds_left())
        return f"{self.label}: epoch {self.epoch} of {self.epochs}, {steps}, {left} left"

    def step(self) -> None:
        self.steps += 1
        self._show()

    def epoch_done(self, epoch: int) -> None:
        if self.epoch_steps is None:
            self.epoch_steps = max(self.steps, 1)
        self.epoch = min(epoch + 1, self.epochs)
        self._show()

    def _show(self) -> None:
        if self._progress is None:
            if self.clock() - self.start < self.after:
                return
            self._open()
        self._progress.update(self._task, completed=self.steps, total=self.total,
                              description=self.describe())  # fmt: skip

    def _open(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn

        console = self._console or Console(stderr=True)
        self._progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                  console=console, transient=True)  # fmt: skip
        self._progress.start()
        self._task = self._progress.add_task(self.describe(), total=self.total)

    @property
    def shown(self) -> bool:
        return self._progress is not None

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def for_terminal(epochs: int) -> TrainingProgress | None:
    """A TrainingProgress when stderr is a terminal (a person watching), else None."""
    stream = sys.stderr
    return TrainingProgress(epochs) if stream is not None and stream.isatty() else None
