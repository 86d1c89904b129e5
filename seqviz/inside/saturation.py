"""Gate saturation (Karpathy et al.): how often each unit's gates sit near 0 or near 1."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

SIGMOID_GATES = {"lstm": {"i": 0, "f": 1, "o": 3}, "gru": {"r": 0, "z": 1}}
LOW, HIGH = 0.1, 0.9


@dataclass(frozen=True)
class Saturation:
    """Per sigmoid gate, per unit: the fraction of steps below LOW (left) and above HIGH (right)."""

    left: dict[str, np.ndarray]  # gate -> (d,)
    right: dict[str, np.ndarray]  # gate -> (d,)
    steps: int


def saturation(cell: str, gates: Sequence[np.ndarray]) -> Saturation:
    """`gates`: per sentence (T_k, G, d). An RNN has no gates: ValueError saying so."""
    if cell not in SIGMOID_GATES:
        raise ValueError(f"an {cell} cell has no gates; gate saturation needs an lstm or gru.")
    g = np.concatenate([np.asarray(a) for a in gates])  # (N, G, d)
    left = {n: (g[:, k, :] < LOW).mean(axis=0) for n, k in SIGMOID_GATES[cell].items()}
    right = {n: (g[:, k, :] > HIGH).mean(axis=0) for n, k in SIGMOID_GATES[cell].items()}
    return Saturation(left, right, int(g.shape[0]))
