"""A Race run chunk by chunk, each chunk summed up as what is new since the last (live training).

`Trainer` runs in the training process (or in-process for headless use); the `Chunk`s it returns
are small (the new curve points plus the latest diagnostics), so that they cross a pipe cheaply.
`Curves` joins them back into whole curves on the side that draws them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from seqviz.tasks.lagged import LagBatch, LagTask
from seqviz.training.race import Race, RaceConfig

CHUNK_SECONDS = 0.08  # updates between two chunks while running: a few per frame
SAMPLE_SEED = 7
FIELDS = ("loss", "accuracy", "norm", "clipped", "finite")  # the per-update curves


def sample_batch(task: LagTask, seed: int) -> LagBatch:
    """The one sequence the scene shows each cell's answer for (the same for every chunk)."""
    return task.batch(np.random.default_rng([seed, SAMPLE_SEED]), 1)


@dataclass(frozen=True)
class CellChunk:
    """One cell's curve points and what its last update saw. In a `Chunk` the curves (FIELDS)
    hold the k updates new since the previous chunk; the training scene's result holds the same
    type with the whole curves so far (n updates), as views from `Curves`."""

    cell: str
    loss: np.ndarray  # (k,) batch loss of each update (nan where not finite)
    accuracy: np.ndarray  # (k,) running accuracy over the last 50 updates, after each update
    norm: np.ndarray  # (k,) global gradient norm before clipping
    clipped: np.ndarray  # (k,) bool
    finite: np.ndarray  # (k,) bool
    grad_back: np.ndarray  # (T,) batch mean of |dL/dh| k = 0..T-1 steps back
    forget: np.ndarray | None  # (d, T) LSTM forget gate per unit over time, batch mean
    probs: np.ndarray  # (C,) the current prediction on the sample sequence
    first_reached: int | None
    first_nan: int | None
    first_spike: int | None


@dataclass(frozen=True)
class Chunk:
    step: int  # updates done in all
    lr: float  # the rates in use now
    clip: float
    cells: tuple[CellChunk, ...]


class Trainer:
    """A Race and the sample it is shown on; ``run`` trains a chunk and summarises it."""

    def __init__(self, config: RaceConfig) -> None:
        self.race = Race(config)
        self.sample = sample_batch(self.race.task, config.seed)
        self.sent = 0  # updates already summarised in an earlier chunk

    def run(self, n: int, lr: float, clip: float, seconds: float = CHUNK_SECONDS) -> Chunk:
        """Up to ``n`` updates at these rates, stopping early after ``seconds``; a Chunk."""
        race = self.race
        if (lr, clip) != (race.config.lr, race.config.clip):
            race.set_rates(lr, clip)
        start = time.perf_counter()
        for _ in range(n):
            race.update()
            if time.perf_counter() - start > seconds:
                break  # the rest is asked for again
        return self.chunk()

    def chunk(self) -> Chunk:
        """What is new since the last chunk, and the current diagnostics."""
        race, sample, new = self.race, self.sample, slice(self.sent, None)
        T = sample.x.shape[1]
        cells = []
        for cell, run in race.runs.items():
            diag = run.model.last
            if diag is None:
                grad_back = np.full(T, np.nan)
                forget = None
            else:
                with np.errstate(all="ignore"):
                    grad_back = (
                        np.linalg.norm(diag.grad_h, axis=2).mean(axis=0)[::-1].astype(np.float64)
                    )
                forget = (
                    None if diag.forget is None else diag.forget.mean(axis=0).T.astype(np.float64)
                )
            if cell == "lstm" and forget is None:
                forget = np.full((race.config.hidden, T), np.nan)
            if run.model.finite():
                with np.errstate(all="ignore"):
                    probs = run.model.predict(sample.x)[0]
            else:
                probs = np.full(race.task.n_classes, np.nan)
            cells.append(CellChunk(
                cell=cell,
                loss=np.array(run.losses[new], dtype=float),
                accuracy=np.array(run.running[new], dtype=float),
                norm=np.array(run.norms[new], dtype=float),
                clipped=np.array(run.clipped[new], dtype=bool),
                finite=np.array(run.finite[new], dtype=bool),
                grad_back=grad_back,
                forget=forget,
                probs=probs,
                first_reached=run.first_reached,
                first_nan=run.first_nan,
                first_spike=run.first_spike,
            ))  # fmt: skip
        self.sent = race.step
        return Chunk(race.step, race.config.lr, race.config.clip, tuple(cells))


class Curves:
    """Whole curves grown from chunks; ``view(cell, field)`` are read-only views, never copies
    (appending only writes past their end, and a regrown buffer leaves the old one to them)."""

    def __init__(self) -> None:
        self._buffers: dict[tuple[str, str], np.ndarray] = {}
        self.n = 0

    def add(self, chunk: Chunk) -> None:
        for c in chunk.cells:
            for name in FIELDS:
                new = getattr(c, name)
                key = (c.cell, name)
                buf = self._buffers.get(key)
                if buf is None or buf.size < self.n + new.size:
                    grown = np.empty(max(256, 2 * (self.n + new.size)), dtype=new.dtype)
                    if buf is not None:
                        grown[: self.n] = buf[: self.n]
                    buf = self._buffers[key] = grown
                buf[self.n : self.n + new.size] = new
        self.n = chunk.step

    def view(self, cell: str, name: str) -> np.ndarray:
        buf = self._buffers.get((cell, name))
        if buf is None:
            return np.empty(0, dtype=bool if name in ("clipped", "finite") else float)
        out = buf[: self.n]
        out.flags.writeable = False
        return out


class LocalTrainer:
    """A Trainer behind RemoteTrainer's send/receive/close, run in this process (headless)."""

    def __init__(self, config: RaceConfig, seconds: float = CHUNK_SECONDS) -> None:
        self.trainer = Trainer(config)
        self.seconds = seconds  # a chunk's time budget
        self._asked: tuple[int, float, float] | None = None

    @property
    def busy(self) -> bool:
        return self._asked is not None

    def send(self, n: int, lr: float, clip: float) -> None:
        self._asked = (n, lr, clip)

    def receive(self, cancelled: object = None) -> Chunk:
        assert self._asked is not None, "receive without send"
        n, lr, clip = self._asked
        self._asked = None
        return self.trainer.run(n, lr, clip, self.seconds)

    def close(self) -> None:
        self._asked = None
