"""One training loop for every model kind: steps, epochs, divergence, checkpoints, Ctrl-C."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from seqviz.core.blas import DTYPES
from seqviz.training.optim import OPTIMIZERS, Optimizer, clip_global_norm, make_optimizer


@runtime_checkable
class Trainable(Protocol):
    """What `fit` and `Loop` need from a model."""

    def parameters(self) -> dict[str, np.ndarray]:
        """Name -> array; the optimizer updates these arrays IN PLACE."""
        ...

    def loss_and_grads(self, batch: Any) -> tuple[float, dict[str, np.ndarray]]:
        """Mean loss over `batch` and its gradient for every parameter name."""
        ...

    # Optional: `set_dtype(dtype)` ("float32" or "float64"), called by Loop before training;
    # a model without it trains in float64 only. Saved files are float64 either way.

    def save(self, path: str | os.PathLike[str]) -> Any:
        """Write the model atomically (readers never see a half-written file)."""
        ...


@dataclass(frozen=True)
class FitConfig:
    """Settings of the loop itself; model and data settings belong to the model."""

    epochs: int = 10
    lr: float = 0.01
    optimizer: str = "adam"  # or "sgd"
    clip: float = 5.0  # max global gradient norm; 0 disables clipping
    seed: int = 0  # the rng handed to the batches callable (shuffling)
    checkpoint: Path | None = None  # saved atomically after every epoch
    dtype: str = "float64"  # or "float32": the model's arrays and arithmetic while training

    def __post_init__(self) -> None:
        e = self.epochs
        if isinstance(e, bool) or not isinstance(e, int) or e < 1:
            raise ValueError(f"epochs must be a whole number >= 1, got {e}.")
        if not (isinstance(self.lr, (int, float)) and math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"the learning rate must be a finite number > 0, got {self.lr}.")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(
                f"unknown optimizer {self.optimizer!r}; allowed: {', '.join(OPTIMIZERS)}."
            )
        if not (isinstance(self.clip, (int, float)) and math.isfinite(self.clip)
                and self.clip >= 0):  # fmt: skip
            raise ValueError(f"clip must be a finite number >= 0 (0 disables), got {self.clip}.")
        if self.dtype not in DTYPES:
            raise ValueError(f"unknown dtype {self.dtype!r}; allowed: {', '.join(DTYPES)}.")


@dataclass(frozen=True)
class Update:
    """What one optimizer step did."""

    step: int  # 1-based count of steps taken by the loop
    loss: float  # mean loss of the batch, before the step
    grad_norm: float  # global gradient norm before clipping
    clipped: bool  # whether clipping scaled the gradient down
    finite: bool  # False: loss or gradient was inf/nan and the weights were left unchanged


class Diverged(ValueError):
    """The loss or the gradient became inf or nan."""

    def __init__(self, update: Update, epoch: int) -> None:
        what = "loss" if not math.isfinite(update.loss) else "gradient"
        super().__init__(
            f"training diverged in epoch {epoch} at step {update.step} (the {what} became inf "
            "or nan); try a smaller learning rate or gradient clipping."
        )
        self.update, self.epoch = update, epoch


class Loop:
    """Step-by-step training of one model: the streaming-friendly core of `fit`.

    A live scene calls `update(batch)` between frames; `fit` calls it for whole epochs."""

    def __init__(self, model: Trainable, config: FitConfig) -> None:
        set_dtype = getattr(model, "set_dtype", None)
        if set_dtype is not None:
            set_dtype(config.dtype)  # before the optimizer keeps moments of the arrays
        elif config.dtype != "float64":
            raise ValueError(
                f"a {type(model).__name__} trains in float64 only, not {config.dtype}."
            )
        self.model = model
        self.config = config
        self.optimizer: Optimizer = make_optimizer(config.optimizer, float(config.lr))
        self.step = 0

    def update(self, batch: Any) -> Update:
        """One step on `batch`: loss and gradients, clipping, the optimizer. A non-finite loss
        or gradient leaves the weights unchanged and reports finite=False."""
        loss, grads = self.model.loss_and_grads(batch)
        norm, scale = clip_global_norm(grads, self.config.clip)
        finite = math.isfinite(loss) and math.isfinite(norm)
        self.step += 1
        if finite:
            self.optimizer.step(self.model.parameters(), grads)
        return Update(self.step, float(loss), norm, scale < 1.0, finite)


@dataclass(frozen=True)
class EpochInfo:
    """Summary of one finished epoch, handed to `on_epoch_end`."""

    epoch: int
    mean_loss: float  # mean of the batch losses
    steps: int  # steps in this epoch
    seconds: float
    checkpoint: Path | None  # where the model was saved, if anywhere


class Callback:
    """Base class for progress callbacks; override what you need."""

    def on_update(self, update: Update) -> None:
        """After every step."""

    def on_epoch_end(self, epoch: int, info: EpochInfo) -> None:
        """After every epoch, once the checkpoint (if any) is written."""


@dataclass(frozen=True)
class FitResult:
    """How training ended."""

    epochs: int  # epochs completed
    steps: int
    losses: tuple[float, ...]  # mean loss per completed epoch
    interrupted: bool  # Ctrl-C: the checkpoint holds the last completed epoch
    checkpoint: Path | None = None
    history: tuple[Update, ...] = field(default=(), repr=False)


Batches = Callable[[int, np.random.Generator], Iterable[Any]]


def fit(
    model: Trainable,
    batches: Batches,
    config: FitConfig,
    callbacks: Sequence[Any] = (),
) -> FitResult:
    """Train `model` for `config.epochs` epochs; `batches(epoch, rng)` yields one epoch's batches.

    Raises `Diverged` (a ValueError) when the loss or gradient becomes inf/nan. Ctrl-C ends the
    run between or inside steps and returns interrupted=True; the checkpoint then holds the last
    completed epoch (it is written atomically, so it is never half-written)."""
    loop = Loop(model, config)
    rng = np.random.default_rng(config.seed)
    losses: list[float] = []
    history: list[Update] = []
    saved: Path | None = None
    epoch = 0
    try:
        for epoch in range(1, config.epochs + 1):
            t0, total, n = time.perf_counter(), 0.0, 0
            for batch in batches(epoch, rng):
                u = loop.update(batch)
                if not u.finite:
                    raise Diverged(u, epoch)
                history.append(u)
                total, n = total + u.loss, n + 1
                for cb in callbacks:
                    if hasattr(cb, "on_update"):
                        cb.on_update(u)
            if config.checkpoint is not None:
                model.save(config.checkpoint)
                saved = Path(config.checkpoint)
            mean = total / n if n else float("nan")
            losses.append(mean)
            info = EpochInfo(epoch, mean, n, time.perf_counter() - t0, saved)
            for cb in callbacks:
                if hasattr(cb, "on_epoch_end"):
                    cb.on_epoch_end(epoch, info)
    except KeyboardInterrupt:
        return FitResult(len(losses), loop.step, tuple(losses), True, saved, tuple(history))
    return FitResult(len(losses), loop.step, tuple(losses), False, saved, tuple(history))
