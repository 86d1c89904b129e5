"""Training that runs longer than a few seconds shows a bar with the time left."""

from __future__ import annotations

import io

import numpy as np
import pytest
from rich.console import Console

from seqviz.training import FitConfig, fit
from seqviz.training.progress import TrainingProgress, format_seconds, time_left


def test_time_left_is_the_pace_so_far_times_the_steps_left():
    assert time_left(10, 40, 5.0) == pytest.approx(15.0)  # 0.5 s a step, 30 steps left
    assert time_left(40, 40, 5.0) == 0.0
    assert time_left(0, 40, 5.0) is None and time_left(10, None, 5.0) is None
    assert [format_seconds(s) for s in (7, 249, 3903, None, float("inf"), float("nan"))] == [
        "0:07", "4:09", "1:05:03", "?", "inf", "nan"]  # fmt: skip


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_bar_shows_after_a_few_seconds_with_epochs_steps_and_time_left():
    clock = Clock()
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120)
    bar = TrainingProgress(3, after=3.0, console=console, clock=clock)
    for _ in range(5):  # one epoch of 5 steps, 0.5 s each: quiet so far
        clock.now += 0.5
        bar.step()
    assert not bar.shown and out.getvalue() == ""
    bar.epoch_done(1)
    assert bar.total == 15 and "epoch 2 of 3" in bar.describe()
    for _ in range(5):
        clock.now += 0.5
        bar.step()
    assert bar.shown  # 5 s in
    # 10 of 15 steps in 5 s: 5 steps left at 0.5 s each
    assert bar.describe() == "training: epoch 2 of 3, step 10 of 15, 0:02 left"
    bar.close()
    assert not bar.shown and "left" in out.getvalue()


def test_before_the_first_epoch_ends_the_steps_count_and_the_time_left_is_unknown():
    clock = Clock()
    bar = TrainingProgress(2, after=0.0, console=Console(file=io.StringIO()), clock=clock)
    clock.now += 1
    bar.step()
    assert bar.describe() == "training: epoch 1 of 2, step 1, ? left"
    bar.close()


class Tiny:
    """A least-squares model: the smallest Trainable."""

    def __init__(self) -> None:
        self.w = {"w": np.zeros(3)}

    def parameters(self):
        return self.w

    def loss_and_grads(self, batch):
        x, y = batch
        err = x @ self.w["w"] - y
        return float(np.mean(err**2)), {"w": 2 * x.T @ err / len(y)}

    def save(self, path):
        return path


def _batches(epoch, rng):
    for _ in range(4):
        x = rng.normal(size=(8, 3))
        yield x, x @ np.array([1.0, -2.0, 0.5])


def test_fit_drives_the_bar_it_is_given():
    clock = Clock()
    bar = TrainingProgress(3, after=0.0, console=Console(file=io.StringIO()), clock=clock)
    result = fit(Tiny(), _batches, FitConfig(epochs=3, lr=0.05), progress=bar)
    assert result.steps == 12
    assert bar.steps == 12 and bar.epoch_steps == 4 and bar.total == 12
    assert not bar.shown  # closed when the run ended


def test_fit_shows_no_bar_when_stderr_is_not_a_terminal(capsys):
    fit(Tiny(), _batches, FitConfig(epochs=2, lr=0.05))
    assert capsys.readouterr().err == ""
