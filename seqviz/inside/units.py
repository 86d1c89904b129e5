"""Units by pattern (LSTMVis's idea): which units' c or h follow a track of the grammar."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True)
class PatternUnits:
    """Every unit of a model ranked against a pattern over the text it read."""

    units: list[UnitScore]
    segments: int  # sequences read (sentences, lines or chunks)
    skipped: int  # segments the model could not read (a character or word it does not know)
    steps: int  # input steps compared


def segments(text: str, level: str, newline: bool, most: int = 2000) -> list[tuple[int, str]]:
    """(offset, piece) of `text` for a model to read one at a time: for a word model each
    non-empty line; for a character model that knows newlines, runs of whole lines of up to
    `most` characters (a longer line alone); else each non-empty line without its newline."""
    out: list[tuple[int, str]] = []
    if level == "char" and newline:
        start, chunk = 0, ""
        for line in text.splitlines(keepends=True):
            if chunk and len(chunk) + len(line) > most:
                out.append((start, chunk))
                start, chunk = start + len(chunk), ""
            chunk += line
        if chunk:
            out.append((start, chunk))
        return out
    start = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if body.strip():
            out.append((start, body))
        start += len(line)
    return out


def rank_by_pattern(lm: Any, pattern: str, text: str | None = None,
                    sentences: Sequence[Sequence[str]] = ()) -> PatternUnits:  # fmt: skip
    """Every unit of c and h of `lm` ranked by |r| with `pattern` on `text` (or, for a word
    model, on `sentences`); the pattern is computed on the whole text, so a string or a bracket
    opened on one line counts on the next."""
    from seqviz.inside import patterns
    from seqviz.inside.reading import read

    patterns.check(pattern, lm.level)
    if text is None:
        if lm.level == "char":
            raise ValueError("a character model needs a text to read: give --text FILE.")
        text = "\n".join(" ".join(s) for s in sentences)
    states: dict[str, list[np.ndarray]] = {"c": [], "h": []}
    track: list[np.ndarray] = []
    skipped = 0
    whole = patterns.char_values(pattern, text) if lm.level == "char" else None
    for offset, piece in segments(text, lm.level, "\n" in lm.index):
        try:
            r = read(lm, piece)
        except ValueError:
            skipped += 1
            continue
        if whole is not None:
            track.append(np.concatenate([[np.nan], whole[offset : offset + len(piece)]]))
        else:
            track.append(patterns.word_values(pattern, piece.split()))
        states["h"].append(r.h)
        if r.c is not None:
            states["c"].append(r.c)
    if not track:
        raise ValueError(
            f"the model {lm.name!r} could read none of the text: every line holds a "
            f"{'character' if lm.level == 'char' else 'word'} outside its vocabulary."
        )
    ranked = rank_units({k: v for k, v in states.items() if v}, track)
    return PatternUnits(ranked, len(track), skipped, ranked[0].n)
