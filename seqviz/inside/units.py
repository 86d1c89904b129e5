"""Units by pattern (LSTMVis's idea): which units' c or h follow a track of the grammar."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class UnitScore:
    """How well one unit's state follows a track: Pearson r over every step where it is defined."""

    state: str  # "c" or "h"
    unit: int
    r: float
    n: int  # steps compared

    def label(self) -> str:
        return f"{self.state}[{self.unit}]"


def correlations(states: Sequence[np.ndarray],
                 track: Sequence[np.ndarray]) -> tuple[np.ndarray, int]:  # fmt: skip
    """(d,) Pearson r of each unit with the track over all steps where the track is finite,
    pooled over sentences; a unit that never moves scores 0.
    states[k]: (T_k, d), track[k]: (T_k,)."""
    xs, ys = [], []
    for s, y in zip(states, track, strict=True):
        keep = np.isfinite(y)
        xs.append(np.asarray(s)[keep])
        ys.append(np.asarray(y)[keep])
    if not xs:
        raise ValueError("no sentences to correlate with.")
    x = np.concatenate(xs)  # (N, d)
    y = np.concatenate(ys)  # (N,)
    if len(y) < 3 or np.ptp(y) == 0:
        raise ValueError("the track is constant on these sentences, so nothing can follow it.")
    xc = x - x.mean(axis=0)
    yc = y - y.mean()
    sx = np.sqrt((xc**2).sum(axis=0))
    sy = np.sqrt((yc**2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc[:, None]).sum(axis=0) / (sx * sy)
    return np.where(np.isfinite(r), r, 0.0), len(y)


def rank_units(states: Mapping[str, Sequence[np.ndarray]], track: Sequence[np.ndarray],
               top: int | None = None) -> list[UnitScore]:  # fmt: skip
    """Every unit of every state ("c", "h") ranked by |r| with the track, best first."""
    scores: list[UnitScore] = []
    for name, seqs in states.items():
        r, n = correlations(seqs, track)
        scores += [UnitScore(name, int(u), float(r[u]), n) for u in range(len(r))]
    scores.sort(key=lambda s: (-abs(s.r), s.state, s.unit))
    return scores if top is None else scores[:top]
