"""The cell's view: text coloured by one unit's value at each character (or word)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

NEG, MID, POS = (33, 102, 172), (247, 247, 247), (178, 24, 43)  # diverging: blue, white, red


def colour(value: float, scale: float) -> str:
    """A hex colour for `value` on a diverging scale from -scale (blue) to +scale (red)."""
    if not math.isfinite(value):
        return "#808080"  # nan (no value at this step) is grey
    t = max(-1.0, min(1.0, value / scale)) if scale > 0 else 0.0
    end = POS if t > 0 else NEG
    rgb = [round(m + abs(t) * (e - m)) for m, e in zip(MID, end, strict=True)]
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def unit_values(lm: Any, piece: str, state: str, unit: int) -> np.ndarray:
    """The unit's value after each token of `piece` (the <s> step left out)."""
    from seqviz.inside.reading import read

    r = read(lm, piece)
    arr = r.c if state == "c" else r.h
    if arr is None:
        raise ValueError(f"the model {lm.name!r} has no cell state c; use an h unit.")
    if not 0 <= unit < arr.shape[1]:
        raise ValueError(f"unit {unit} does not exist; this model has units 0-{arr.shape[1] - 1}.")
    return np.asarray(arr[1:, unit])


def coloured(lm: Any, text: str, state: str, unit: int, pieces: list[tuple[int, str]]) -> Any:
    """A Rich Text of `text` pieces, each token's background the unit's value, and a legend."""
    from rich.text import Text

    values: list[tuple[str, float]] = []
    for _, piece in pieces:
        try:
            v = unit_values(lm, piece, state, unit)
        except ValueError as exc:
            if "unit" in str(exc) or "cell state" in str(exc):
                raise
            continue  # a piece the model cannot read is left out
        tokens = list(piece) if lm.level == "char" else piece.split()
        sep = "" if lm.level == "char" else " "
        values += [(tok + sep, float(x)) for tok, x in zip(tokens, v, strict=True)]
        if lm.level == "word":
            values.append(("\n", float("nan")))
    finite = [abs(x) for _, x in values if math.isfinite(x)]
    scale = max(finite, default=0.0)
    out = Text()
    for tok, x in values:
        if tok == "\n":
            out.append("\n")
            continue
        shown = tok.replace("\n", "⏎\n")
        ink = "black" if not math.isfinite(x) or abs(x) < 0.6 * scale else "white"
        out.append(shown, style=f"{ink} on {colour(x, scale)}")
    out.append(f"\n{state}[{unit}]: ")
    for k in range(-4, 5):
        out.append("  ", style=f"on {colour(k / 4 * scale, scale)}")
    out.append(f"  from {-scale:+.3f} (blue) through 0 (white) to {scale:+.3f} (red)")
    return out
