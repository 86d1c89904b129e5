"""One trainer for every model kind: `fit(model, batches, config, callbacks)` and `Loop`.

A model is `Trainable`: it hands out its parameters (updated in place), the mean loss and
gradients of a batch (through the core's BPTT), and saves itself atomically.

    >>> from seqviz.training import FitConfig, fit
    >>> result = fit(model, lambda epoch, rng: model.batches(rng), FitConfig(epochs=5))
"""

from __future__ import annotations

from seqviz.training.loop import (
    Callback,
    Diverged,
    EpochInfo,
    FitConfig,
    FitResult,
    Loop,
    Trainable,
    Update,
    fit,
)
from seqviz.training.optim import SGD, Adam, Optimizer, clip_global_norm, global_norm

__all__ = [
    "SGD",
    "Adam",
    "Callback",
    "Diverged",
    "EpochInfo",
    "FitConfig",
    "FitResult",
    "Loop",
    "Optimizer",
    "Trainable",
    "Update",
    "clip_global_norm",
    "fit",
    "global_norm",
]
