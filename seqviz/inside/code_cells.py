"""The cells of a character LM on code: held-out bits per character against character n-gram
baselines, and the best unit of c and of h for each code pattern (`seqviz run cells`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seqviz.inside.units import UnitScore, rank_units, segments
from seqviz.models.registry import DATA_DIR

PATTERNS = ("string", "indent", "brackets", "comment", "string-or-comment")
TRAIN = DATA_DIR / "code_train.txt"
HELD_OUT = DATA_DIR / "code_held_out.txt"


@dataclass(frozen=True)
class CellsStudy:
    """What `seqviz run cells` prints: the model's quality and its cells on held-out text."""

    model: str
    cell: str
    hidden: int
    text: str  # where the held-out text came from
    chars: int  # characters read and predicted
    skipped: int  # pieces the model could not read (a character outside its vocabulary)
    bits_per_char: float  # the LM's held-out cross-entropy
    baselines: dict[int, float] = field(default_factory=dict)  # n -> n-gram bits/char
    train_chars: int = 0  # the n-grams' training characters
    best: dict[str, dict[str, UnitScore]] = field(default_factory=dict)  # pattern -> state -> unit

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model, "cell": self.cell, "hidden": self.hidden, "text": self.text,
            "chars": self.chars, "skipped": self.skipped,
            "bits_per_char": _finite(self.bits_per_char),
            "ngram": [{"n": n, "bits_per_char": _finite(b), "train_chars": self.train_chars}
                      for n, b in self.baselines.items()],
            "cells": {p: {s: {"unit": u.label(), "r": _finite(u.r), "steps": u.n}
                          for s, u in by.items()} for p, by in self.best.items()},
        }  # fmt: skip


def _finite(x: float) -> float | str:
    """A number for JSON: inf and nan as the strings "inf", "-inf", "nan"."""
    return x if math.isfinite(x) else str(x)


def study(lm: Any, text: str, name: str = "", where: str = "", train: str | None = None,
          orders: tuple[int, ...] = (3, 5), patterns: tuple[str, ...] = PATTERNS,
          most: int = 2000) -> CellsStudy:  # fmt: skip
    """`lm` reads `text` in pieces of whole lines (as `seqviz units` does); its bits per
    character, the n-gram baselines trained on `train` (none without it), and each pattern's
    best unit in c and in h (Pearson r over every character, as `rank_by_pattern`)."""
    from seqviz.inside import patterns as pat
    from seqviz.inside.reading import read

    if lm.level != "char":
        raise ValueError(f"the model {lm.name!r} reads words; the cells study needs a character "
                         "model.")  # fmt: skip
    for p in patterns:
        pat.check(p, "char")
    whole = {p: pat.char_values(p, text) for p in patterns}
    states: dict[str, list[np.ndarray]] = {"c": [], "h": []}
    tracks: dict[str, list[np.ndarray]] = {p: [] for p in patterns}
    nats, chars, skipped = 0.0, 0, 0
    read_text: list[str] = []
    for offset, piece in segments(text, "char", "\n" in lm.index, most):
        try:
            r = read(lm, piece)
        except ValueError:
            skipped += 1
            continue
        ids = [lm.index[ch] for ch in piece]
        # step t reads tokens[t] (<s> first) and predicts piece[t]
        nats -= float(r.logp[np.arange(len(piece)), ids].sum())
        chars += len(piece)
        read_text.append(piece)
        states["h"].append(r.h)
        if r.c is not None:
            states["c"].append(r.c)
        for p in patterns:
            tracks[p].append(np.concatenate([[np.nan], whole[p][offset : offset + len(piece)]]))
    if not chars:
        raise ValueError(f"the model {lm.name!r} could read none of the text: every line holds "
                         "a character outside its vocabulary.")  # fmt: skip
    best: dict[str, dict[str, UnitScore]] = {}
    for p in patterns:
        by: dict[str, UnitScore] = {}
        for s, seqs in states.items():
            if seqs:
                by[s] = rank_units({s: seqs}, tracks[p])[0]
        best[p] = by
    baselines: dict[int, float] = {}
    if train is not None:
        from seqviz.models.ngram import CharNGram

        held = "".join(read_text)
        for n in orders:
            baselines[n] = CharNGram.train(train, n).bits_per_char(held)
    p0 = lm.params
    return CellsStudy(
        model=name or lm.name, cell=p0.cell, hidden=p0.hidden_size, text=where, chars=chars,
        skipped=skipped, bits_per_char=nats / chars / math.log(2), baselines=baselines,
        train_chars=len(train or ""), best=best,
    )  # fmt: skip
