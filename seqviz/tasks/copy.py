"""Copy/recall at lag L: one marked symbol among random ones; recall it L steps later at a cue."""

from __future__ import annotations

import numpy as np

from seqviz.tasks.lagged import LagBatch, LagTask, check_lag

SYMBOLS = ("a", "b", "c", "d", "e", "f", "g", "h")
CUE = "?"
PREFIX = 4  # random symbols before the marked one, so the key does not meet a zero state
# inputs: one channel per symbol, the marker channel, the cue channel
VOCAB = (*SYMBOLS, "*marker", CUE)
MARK, CUE_ID = len(SYMBOLS), len(SYMBOLS) + 1


def copy_task(lag: int) -> LagTask:
    """Sequences of PREFIX + lag + 1 steps over 8 symbols, each step one random symbol; the one at
    step PREFIX also carries the marker channel (shown in capitals), and the cue arrives lag steps
    later. The answer is the marked symbol; chance is 1/8. The symbols in between come from the
    same set, so the marked one must be stored when the marker says so and then kept."""
    lag = check_lag(lag)
    T = PREFIX + lag + 1

    def make(rng: np.random.Generator, size: int) -> LagBatch:
        ids = rng.integers(len(SYMBOLS), size=(size, T - 1))  # (B, T-1)
        y = ids[:, PREFIX].copy()
        x = np.zeros((size, T, len(VOCAB)))  # (B, T, n_inputs)
        rows = np.arange(size)[:, None]
        x[rows, np.arange(T - 1)[None, :], ids] = 1.0
        x[:, PREFIX, MARK] = 1.0
        x[:, T - 1, CUE_ID] = 1.0
        tokens = tuple(
            tuple(SYMBOLS[i].upper() if t == PREFIX else SYMBOLS[i] for t, i in enumerate(row))
            + (CUE,)
            for row in ids
        )
        return LagBatch(x, y, tokens, key=PREFIX)

    return LagTask("copy", lag, VOCAB, SYMBOLS, make)


if __name__ == "__main__":
    from seqviz.tasks.lagged import main

    raise SystemExit(main("copy"))
