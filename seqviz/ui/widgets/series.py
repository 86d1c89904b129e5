"""What every plot of curves shares, with nothing drawn by plotext: the curves (Series), their
axes and limits, and the legend that names them (the vanishing scene's first frame needs no
plotext, whose import is a tenth of a launch)."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from seqviz.ui.compat_textual import DirectLines, static_height, update_static
from seqviz.ui.widgets.kept import KeptLines


@dataclass(frozen=True)
class Series:
    """One curve: x and y values (same length), its legend label and RGB colour."""

    label: str
    x: np.ndarray
    y: np.ndarray
    color: tuple[int, int, int]
    marker: str = "hd"


class SeriesAxes:
    """What every plot of ``Series`` holds, whatever draws it (plotext pictures, braille cells):
    the curves, their limits, the y scale and the x label. Put it first among the bases; a
    plot's CSS is ``"Name {" + SeriesAxes.BOX_CSS + "}"``."""

    BOX_CSS = "width: 1fr; height: 1fr; min-height: 5;"  # fills its panel, never under 5 rows

    def __init__(self, *, log_y: bool = True, xlabel: str = "", id: str | None = None) -> None:
        super().__init__(id=id)  # type: ignore[call-arg]  # the widget class after this one
        self.log_y = log_y
        self.xlabel = xlabel
        self._series: tuple[Series, ...] = ()
        self._xlim: tuple[float, float] = (0.0, 1.0)
        self._ylim: tuple[float, float] | None = None


def int_ticks(lo: float, hi: float, count: int) -> list[float]:
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / max(1, count)
    # round steps 1, 2, 5 x 10^k from fine to coarse; the first one not finer than raw
    base = 10.0 ** (math.floor(math.log10(raw)) - 1)
    steps = [base * m * 10.0**k for k in range(3) for m in (1, 2, 5)]
    at = next(i for i, s in enumerate(steps) if s >= raw * (1 - 1e-9))
    ticks = _ticks_at(lo, hi, steps[at])
    while len(ticks) < 2 and at > 0:  # a range of less than two steps: finer until two labels
        at -= 1
        ticks = _ticks_at(lo, hi, steps[at])
    return ticks


def _ticks_at(lo: float, hi: float, step: float) -> list[float]:
    start = math.ceil(lo / step) * step
    return [float(v) for v in np.arange(start, hi + step * 0.01, step)]


def data_limits(series: Sequence[Series], log_y: bool,
                ) -> tuple[tuple[float, float], tuple[float, float] | None]:  # fmt: skip
    """The x limits of the data (0..1 without any) and its y limits: the finite (positive, if
    log) range, widened to whole decades on a log axis; None when no point is drawable."""
    xs = [s.x for s in series if len(s.x)]
    xlim = (0.0, 1.0)
    if xs:
        all_x = np.concatenate(xs)
        xlim = (float(np.min(all_x)), float(np.max(all_x)))
    ys = [np.asarray(s.y, dtype=float) for s in series]
    if not ys:
        return xlim, None
    y = np.concatenate(ys)
    good = np.isfinite(y) & ((y > 0) if log_y else True)
    if not good.any():
        return xlim, None
    lo, hi = float(np.min(y[good])), float(np.max(y[good]))
    if log_y:
        return xlim, (10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi)))
    pad = 0.05 * ((hi - lo) or 1.0)
    # Data that never goes below 0 starts at 0 (no pad): values near 0 then sit on the 0
    # tick's row instead of a row below it.
    return xlim, (0.0 if lo >= 0 else lo - pad, 0.0 if hi <= 0 else hi + pad)


Keys = tuple[tuple[str, tuple[int, ...]], ...]  # (label, RGB colour) of each curve


def _one_line_len(keys: Keys) -> int:
    """Cells the keys take in one line: "━━ label" each, three spaces between."""
    return sum(3 + cell_len(label) for label, _ in keys) + 3 * max(len(keys) - 1, 0)


class PlotLegend(KeptLines, DirectLines, Static):
    """The coloured keys for the curves of a plot (kept off the plot area): one line, or where
    that does not fit, lines broken between keys. Its drawn lines and heights are kept per keys
    (a view switching between two models shows two sets); they skip Textual's StylesCache pass
    (DirectLines)."""

    DEFAULT_CSS = """
    PlotLegend {
        height: auto;
        width: 1fr;
    }
    """

    _shown: Keys | None = None
    _packed_for = 0  # the width the keys were last broken into lines for

    def kept_key(self) -> Hashable:
        if self._shown is None:
            return None
        return self._shown, self._packed_for  # the keys, and where their lines break

    def kept_text(self) -> Text | None:
        """Keys of a known shape (a label naming a value walked with +) respell a kept line."""
        if self._shown is None:
            return None
        return self._text(self._shown, self._packed_for)

    def _text(self, keys: Keys, width: int = 0) -> Text:
        """The keys in one line; where that is wider than ``width`` (> 0), a line break goes
        between keys, never between a key's colour and its label (a colour ending one line
        would read as the key of the label starting the next)."""
        text = Text()
        room = width if width > 0 and _one_line_len(keys) > width else None
        used = 0
        for i, (label, color) in enumerate(keys):
            size = 3 + cell_len(label)
            if i and room is not None and used + 3 + size > room:
                text.append("\n")
                used = 0
            elif i:
                text.append("   ")
                used += 3
            text.append("━━ ", style="bold rgb({},{},{})".format(*color))
            text.append(label)
            used += size
        return text

    def _height(self, keys: Keys, width: int) -> int:
        heights: dict[Hashable, int] = self.__dict__.setdefault("_heights", {})
        height = heights.get((keys, width))
        if height is None:
            if len(heights) > 64:
                heights.clear()
            # One line that fits takes one line (no newlines in keys): no measuring pass (a
            # label naming a parameter's value is new at every step of a walk).
            fits = _one_line_len(keys) <= width and not any("\n" in k for k, _ in keys)
            height = heights[keys, width] = (
                1 if fits else static_height(self, self._text(keys, width), width)
            )
        return height

    def show_keys(self, keys: Sequence[tuple[str, tuple[int, int, int]]]) -> None:
        new: Keys = tuple((label, tuple(color)) for label, color in keys)
        shown = self._shown
        if new == shown:
            return
        # New keys that take as many lines at this width are repainted in place: a layout pass
        # would reflow the whole screen (e.g. a model switch: i f o -> r z).
        width = self.content_size.width
        steady = shown is not None and width > 0 and self.display
        steady = steady and self._height(new, width) == self._height(shown, width)  # type: ignore[arg-type]
        self._shown = new
        self._packed_for = width
        if steady:
            update_static(self, self._text(new, width))
        else:
            self.update(self._text(new, width))

    def on_resize(self) -> None:
        """A new width may break the keys elsewhere: they are set again for it."""
        width = self.content_size.width
        if self._shown is None or width == self._packed_for:
            return
        old, new = self._text(self._shown, self._packed_for), self._text(self._shown, width)
        self._packed_for = width
        if new.plain != old.plain:
            self.update(new)

    def show_series(self, series: Sequence[Series]) -> None:
        self.show_keys([(s.label, s.color) for s in series])
