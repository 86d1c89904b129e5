"""Line plots (log or linear y) and an eigenvalue scatter, each owning its plotext instance."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from rich.text import Text
from textual.widgets import Static
from textual_plotext import PlotextPlot

CIRCLE_COLOR = (120, 120, 120)
EIGEN_COLOR = (255, 196, 0)


@dataclass(frozen=True)
class Series:
    """One curve: x and y values (same length), its legend label and RGB colour."""

    label: str
    x: np.ndarray
    y: np.ndarray
    color: tuple[int, int, int]
    marker: str = "hd"


def _int_ticks(lo: float, hi: float, count: int) -> list[float]:
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / max(1, count)
    step = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 5, 10):
        if raw <= step * mult:
            step *= mult
            break
    start = math.ceil(lo / step) * step
    return [float(v) for v in np.arange(start, hi + step * 0.01, step)]


RENDER_CACHE_SIZE = 64


def _array_key(a: np.ndarray) -> Hashable:
    """A hashable stand-in for an array's contents (shape, dtype and bytes)."""
    a = np.ascontiguousarray(a)
    return (a.shape, a.dtype.str, a.tobytes())


class SafePlot(PlotextPlot):
    """A PlotextPlot whose drawing errors become a one-line message instead of a crash.

    Building a plotext figure and parsing its ANSI output is most of a frame's cost, so the
    finished Text is kept in a small LRU keyed by what is shown (``_content_key``), the size and
    the theme: stepping back, looping an animation or toggling a parameter back reuses it, and
    the plotext calls run only on a miss (``_draw``), never in the setters.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._renders: OrderedDict[Hashable, Any] = OrderedDict()

    def _content_key(self) -> Hashable:
        raise NotImplementedError

    def _draw(self) -> None:
        """Issue the plotext calls for the current content (on a cache miss)."""
        raise NotImplementedError

    def render(self) -> Any:
        try:
            key = (self._content_key(), self.size.width, self.size.height, self.app.theme)
        except Exception as exc:
            return Text(f"(plot unavailable: {type(exc).__name__})", style="dim")
        cached = self._renders.get(key)
        if cached is not None:
            self._renders.move_to_end(key)
            return cached
        try:
            self.plt.clear_data()
            self.plt.clear_figure()
            self._draw()
            text = super().render()
        except Exception as exc:  # plotext can fail on degenerate data; the app must not
            text = Text(f"(plot unavailable: {type(exc).__name__})", style="dim")
        self._renders[key] = text
        if len(self._renders) > RENDER_CACHE_SIZE:
            self._renders.popitem(last=False)
        return text


class SeriesPlot(SafePlot):
    """Curves drawn up to an animation cursor, on a log y axis (non-positive/inf points skipped).

    The axis limits come from the full data so they stay still while the curves grow.
    """

    DEFAULT_CSS = """
    SeriesPlot {
        width: 1fr;
        height: 1fr;
        min-height: 5;
    }
    """

    def __init__(self, *, log_y: bool = True, xlabel: str = "", id: str | None = None) -> None:
        super().__init__(id=id)
        self.log_y = log_y
        self.xlabel = xlabel
        self._series: tuple[Series, ...] = ()
        self._upto: int | None = None
        self._ylim: tuple[float, float] | None = None
        self._xlim: tuple[float, float] = (0.0, 1.0)
        self._series_key: Hashable = ()

    def set_series(self, series: Sequence[Series], *, xlim: tuple[float, float] | None = None,
                   ylim: tuple[float, float] | None = None) -> None:  # fmt: skip
        """Replace the curves; limits default to the data's finite (positive, if log) range."""
        self._series = tuple(series)
        xs = [s.x for s in self._series if len(s.x)]
        if xlim is None and xs:
            all_x = np.concatenate(xs)
            xlim = (float(np.min(all_x)), float(np.max(all_x)))
        self._xlim = xlim or (0.0, 1.0)
        self._ylim = ylim or self._auto_ylim()
        self._series_key = tuple(
            (s.label, s.color, s.marker, _array_key(s.x), _array_key(s.y)) for s in self._series
        )
        self._upto = None
        self.refresh()

    def set_upto(self, count: int | None) -> None:
        """Draw only the first ``count`` points of each curve (None: all)."""
        if count != self._upto:
            self._upto = count
            self.refresh()

    def _auto_ylim(self) -> tuple[float, float] | None:
        ys = [np.asarray(s.y, dtype=float) for s in self._series]
        if not ys:
            return None
        y = np.concatenate(ys)
        good = np.isfinite(y) & ((y > 0) if self.log_y else True)
        if not good.any():
            return None
        lo, hi = float(np.min(y[good])), float(np.max(y[good]))
        if self.log_y:
            return (10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi)))
        pad = 0.05 * ((hi - lo) or 1.0)
        return (lo - pad, hi + pad)

    def _content_key(self) -> Hashable:
        n = max((len(s.x) for s in self._series), default=0)
        upto = None if self._upto is None or self._upto >= n else self._upto
        return (self._series_key, upto, self._xlim, self._ylim, self.log_y, self.xlabel)

    def _draw(self) -> None:
        plt = self.plt
        drawn = False
        for s in self._series:
            x = np.asarray(s.x, dtype=float)
            y = np.asarray(s.y, dtype=float)
            if self._upto is not None:
                x, y = x[: self._upto], y[: self._upto]
            good = np.isfinite(y) & ((y > 0) if self.log_y else True)
            if good.any():
                plt.plot(x[good].tolist(), y[good].tolist(), color=s.color, marker=s.marker)
                drawn = True
        if not drawn and self._ylim is not None:
            # An invisible point keeps the axes in place before any curve has points.
            plt.plot([self._xlim[0]], [self._ylim[1]], marker=" ", color=(0, 0, 0))
        self._axes()

    def _axes(self) -> None:
        plt = self.plt
        lo_x, hi_x = self._xlim
        plt.xlim(lo_x, hi_x if hi_x > lo_x else lo_x + 1)
        ticks = _int_ticks(lo_x, hi_x, 5)
        plt.xticks(ticks, [f"{t:g}" for t in ticks])
        if self.xlabel:
            plt.xlabel(self.xlabel)
        if self._ylim is None:
            return
        lo, hi = self._ylim
        if self.log_y:
            plt.yscale("log")
            lo_e, hi_e = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
            if hi_e <= lo_e:
                hi_e = lo_e + 1
            # plotext wants log-scale limits as exponents but ticks as values.
            plt.ylim(lo_e, hi_e)
            stride = max(1, math.ceil((hi_e - lo_e) / max(2, self.size.height // 3)))
            exps = list(range(hi_e, lo_e - 1, -stride))
            plt.yticks([10.0**e for e in exps], [f"1e{e}" for e in exps])
        else:
            plt.ylim(lo, hi)
            ticks = _int_ticks(lo, hi, max(2, self.size.height // 4))
            plt.yticks(ticks, [f"{t:g}" for t in ticks])


class EigenPlot(SafePlot):
    """Eigenvalues of a matrix in the complex plane, with the unit circle for reference."""

    DEFAULT_CSS = """
    EigenPlot {
        width: 1fr;
        height: 1fr;
        min-height: 6;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._eig = np.zeros(0, dtype=complex)

    def set_eigenvalues(self, eigenvalues: np.ndarray) -> None:
        self._eig = np.asarray(eigenvalues, dtype=complex)
        self.refresh()

    def _content_key(self) -> Hashable:
        return _array_key(self._eig)

    def _draw(self) -> None:
        plt = self.plt
        theta = np.linspace(0, 2 * np.pi, 120)
        plt.plot(np.cos(theta).tolist(), np.sin(theta).tolist(), color=CIRCLE_COLOR, marker="hd")
        eig = self._eig[np.isfinite(self._eig)]
        if eig.size:
            plt.scatter(eig.real.tolist(), eig.imag.tolist(), color=EIGEN_COLOR, marker="dot")
        radius = max(1.25, float(np.max(np.abs(eig))) * 1.1 if eig.size else 1.25)
        plt.xlim(-radius, radius)
        plt.ylim(-radius, radius)
        ticks = [-math.floor(radius), 0.0, math.floor(radius)] if radius >= 2 else [-1.0, 0.0, 1.0]
        plt.xticks(ticks, [f"{t:g}" for t in ticks])
        plt.yticks(ticks, [f"{t:g}" for t in ticks])


class PlotLegend(Static):
    """One line of coloured keys for the curves of a plot (kept off the plot area)."""

    DEFAULT_CSS = """
    PlotLegend {
        height: auto;
        width: 1fr;
    }
    """

    def show_keys(self, keys: Sequence[tuple[str, tuple[int, int, int]]]) -> None:
        text = Text()
        for i, (label, color) in enumerate(keys):
            if i:
                text.append("   ")
            text.append("━━ ", style="bold rgb({},{},{})".format(*color))
            text.append(label)
        self.update(text)

    def show_series(self, series: Sequence[Series]) -> None:
        self.show_keys([(s.label, s.color) for s in series])
