"""Tasks with one dependency at a chosen distance: the shared batch record and the task table."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

MIN_LAG, MAX_LAG = 1, 100


@dataclass(frozen=True)
class LagBatch:
    """B sequences of equal length; the answer is asked for at the last step only."""

    x: np.ndarray  # (B, T, n_inputs) one-hot inputs
    y: np.ndarray  # (B,) index of the right class
    tokens: tuple[tuple[str, ...], ...]  # B x T: the inputs as words, for display
    key: int  # the step that holds the information the answer needs


@dataclass(frozen=True)
class LagTask:
    """A task whose answer at the last step depends on the input ``lag`` steps earlier."""

    name: str
    lag: int
    vocab: tuple[str, ...]  # input symbols, one-hot in this order
    classes: tuple[str, ...]  # answers
    make: Callable[[np.random.Generator, int], LagBatch]

    @property
    def n_inputs(self) -> int:
        return len(self.vocab)

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def chance(self) -> float:
        """Accuracy of guessing (the classes are drawn uniformly)."""
        return 1.0 / len(self.classes)

    def batch(self, rng: np.random.Generator, size: int) -> LagBatch:
        """``size`` fresh sequences drawn with ``rng`` (the same rng state gives the same batch)."""
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
            raise ValueError(f"the batch size must be an integer >= 1, not {size!r}.")
        return self.make(rng, int(size))


def one_hot(ids: np.ndarray, n: int) -> np.ndarray:
    """(B, T) integer ids -> (B, T, n) float one-hot."""
    out = np.zeros((*ids.shape, n))
    np.put_along_axis(out, ids[..., None], 1.0, axis=-1)
    return out


def check_lag(lag: object) -> int:
    if isinstance(lag, bool) or not isinstance(lag, (int, np.integer)):
        raise ValueError(
            f"the lag must be a whole number from {MIN_LAG} to {MAX_LAG}, not {lag!r}."
        )
    if not MIN_LAG <= int(lag) <= MAX_LAG:
        raise ValueError(f"the lag must be from {MIN_LAG} to {MAX_LAG} steps, not {lag}.")
    return int(lag)


# The task registry: name -> (module, factory). A new lagged task is one line here and a module
# with a factory `f(lag) -> LagTask`; the modules load only when their task is asked for.
REGISTRY: dict[str, tuple[str, str]] = {
    "copy": ("seqviz.tasks.copy", "copy_task"),
    "agreement": ("seqviz.tasks.agreement", "agreement_task"),
}
TASKS = tuple(REGISTRY)


def make_task(name: str, lag: int) -> LagTask:
    """The task called ``name`` (one of TASKS) at distance ``lag``."""
    lag = check_lag(lag)
    if name not in REGISTRY:
        raise ValueError(f"unknown task {name!r}; tasks are {', '.join(TASKS)}.")
    module, factory = REGISTRY[name]
    task: LagTask = getattr(importlib.import_module(module), factory)(lag)
    return task


def main(name: str, argv: list[str] | None = None) -> int:
    """Print a few sequences of the task ``name`` (``python -m seqviz.tasks.<name>``)."""
    parser = argparse.ArgumentParser(description=f"Print samples of the {name} task.")
    parser.add_argument("--lag", type=int, default=5, help=f"{MIN_LAG}..{MAX_LAG} (default 5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-n", type=int, default=4, help="how many sequences (default 4)")
    args = parser.parse_args(argv)
    try:
        task = make_task(name, args.lag)
        batch = task.batch(np.random.default_rng(args.seed), args.n)
    except ValueError as exc:
        parser.error(str(exc))
    for words, y in zip(batch.tokens, batch.y, strict=True):
        print(" ".join(words), "->", task.classes[int(y)])
    return 0
