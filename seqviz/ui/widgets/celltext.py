"""CellText: the cell's view, text whose every character is coloured by one unit's value.

Karpathy, Johnson and Fei-Fei's figure: each character's background on a diverging scale
(blue negative, white 0, red positive) by the value a unit holds after reading it, and a legend
below. It shows the characters read so far and scrolls with them: the last lines that fit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from seqviz.inside.cells import colour


def wrap(chars: Sequence[str], width: int) -> list[list[int]]:
    """Indices of `chars` by screen line: a line ends after a newline or at `width` cells."""
    lines: list[list[int]] = [[]]
    for k, ch in enumerate(chars):
        if len(lines[-1]) >= width:
            lines.append([])
        lines[-1].append(k)
        if ch == "\n":
            lines.append([])
    return lines


def pack(parts: Sequence[str], width: int) -> list[str]:
    """`parts` joined by two spaces into lines of at most `width` cells, never splitting one
    (a part longer than the line is cut when drawn)."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 2 + len(part) <= width:
            lines[-1] += "  " + part
        else:
            lines.append(part)
    return lines


class CellText(Widget):
    """Characters read so far, each on the colour of the unit's value after it (see module)."""

    DEFAULT_CSS = """
    CellText {
        height: 1fr;
        width: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.chars: tuple[str, ...] = ()
        self.values = np.zeros(0)
        self.label = ""
        self.upto = 0  # characters shown
        self.scale = 0.0
        self.note = ""

    def set_data(self, chars: Sequence[str], values: np.ndarray, label: str,
                 note: str = "") -> None:  # fmt: skip
        """The text and the unit's value after each of its characters; `label` names the unit,
        `note` is a line under the legend."""
        self.note = note
        self.chars = tuple(chars)
        self.values = np.asarray(values, dtype=float)
        finite = np.abs(self.values[np.isfinite(self.values)])
        self.scale = float(finite.max()) if finite.size else 0.0
        self.label = label
        self.upto = min(self.upto, len(self.chars))
        self.refresh()

    def set_upto(self, upto: int) -> None:
        upto = max(0, min(int(upto), len(self.chars)))
        if upto != self.upto:
            self.upto = upto
            self.refresh()

    def legend(self) -> Text:
        out = Text(f"{self.label} ")
        for k in range(-2, 3):
            out.append(" ", style=Style(bgcolor=colour(k / 2 * self.scale, self.scale)))
        out.append(f" {-self.scale:+.2f}..{self.scale:+.2f}")
        return out

    def render(self) -> Text:
        width, height = max(self.size.width, 1), max(self.size.height, 1)
        shown = self.chars[: self.upto]
        notes = pack(self.note.split("  "), width) if self.note else []
        foot = [self.legend(), *(Text(n) for n in notes)]
        foot = foot[: max(height - 2, 0)]  # at least two lines of text, then the legend
        lines = wrap(shown, width)
        keep = lines[-max(height - len(foot), 1) :]  # the last lines: it scrolls as it is read
        out = Text(no_wrap=True, overflow="crop")
        for n, line in enumerate(keep):
            if n:
                out.append("\n")
            for k in line:
                ch, x = shown[k], float(self.values[k])
                big = math.isfinite(x) and abs(x) >= 0.6 * self.scale > 0
                style = Style(color="white" if big else "black",
                              bgcolor=colour(x, self.scale))  # fmt: skip
                out.append("⏎" if ch == "\n" else ch, style=style)
        for extra in foot:
            extra.truncate(width)
            out.append("\n")
            out.append_text(extra)
        return out
