"""Line plots (log or linear y) drawn by plotext, each owning its plotext instance."""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual_plotext import PlotextPlot

from seqviz.ui.compat_plotext import build_grid, colors_to_ansi, set_size, theme_name
from seqviz.ui.compat_textual import (
    DirectLines,
    content_size,
    refresh_lines,
)
from seqviz.ui.widgets.runs import RunLine, joined
from seqviz.ui.widgets.series import Series, SeriesAxes, data_limits, int_ticks

RENDER_CACHE_SIZE = 64
CUT_CACHE_SIZE = 256  # a growing plot's frames kept as strips (picture pair, cut, width)
HD_MARKERS = ("hd", "fhd", "braille")  # plotext markers with two sub-columns per cell


def _array_key(a: np.ndarray) -> Hashable:
    """A hashable stand-in for an array's contents (shape, dtype and bytes)."""
    a = np.ascontiguousarray(a)
    return (a.shape, a.dtype.str, a.tobytes())


@lru_cache(maxsize=512)
def _cell_style(colors: tuple[Any, Any, Any]) -> Style | None:
    """The Rich style of a plotext cell's (foreground, style, background), read from the very
    ANSI codes plotext would print for it."""
    codes = colors_to_ansi(*colors)
    if not codes:
        return None
    spans = Text.from_ansi(codes + "x").spans
    return spans[0].style if spans else None  # type: ignore[return-value]


@dataclass(frozen=True)
class Picture:
    """A built plotext figure as cell runs, plus where its data canvas starts and how wide it is."""

    lines: tuple[RunLine, ...]
    canvas: tuple[int, int]  # first column and width of the data area

    @classmethod
    def message(cls, text: str) -> Picture:
        return cls((RunLine([Segment(text, Style(dim=True))], [len(text)]),), (0, 0))


def _cells(line: RunLine) -> list[tuple[str, Any]]:
    """(character, style) of each cell of a line of one-cell characters."""
    return [(ch, segment.style) for segment in line.cells(0, line.length) for ch in segment.text]


def _differing_cells(full: RunLine, empty: RunLine) -> list[int]:
    """The columns where two lines of one-cell characters show different cells (a column past
    one line's end differs if the other has a cell there)."""
    a, b = _cells(full), _cells(empty)
    if len(a) < len(b):
        a, b = b, a
    return [x for x, cell in enumerate(a) if x >= len(b) or cell != b[x]]


def _any_in(columns: list[int], lo: int, hi: int) -> bool:
    """Whether the sorted ``columns`` hold one in [lo, hi)."""
    i = bisect_left(columns, lo)
    return i < len(columns) and columns[i] < hi


class CutLines(Sequence[Strip]):
    """A frame of a growing plot: each line the full picture's cells left of ``cut`` and the
    empty picture's from there, drawn when first asked for (a frame repaints only the lines
    where a curve reaches the new columns)."""

    def __init__(self, full: Picture, empty: Picture, cut: int, width: int) -> None:
        self._full, self._empty, self._cut, self._width = full, empty, cut, width
        self._strips: list[Strip | None] = [None] * len(full.lines)

    def __len__(self) -> int:
        return len(self._strips)

    def __getitem__(self, y: Any) -> Any:
        if isinstance(y, slice):
            return [self[i] for i in range(*y.indices(len(self)))]
        strip = self._strips[y]
        if strip is None:
            cut, width = self._cut, self._width
            full, empty = self._full.lines[y], self._empty.lines[y]
            cells = joined(full.cells(0, cut), empty.cells(cut, width))
            length = min(cut, full.length) + max(0, min(width, empty.length) - cut)
            strip = self._strips[y] = Strip(cells, length).extend_cell_length(width)
        return strip

    def cells(self, y: int, start: int, stop: int) -> Strip:
        """Cells ``start`` to ``stop`` of line y, drawn without the rest of the line."""
        cut, width = self._cut, self._width
        full, empty = self._full.lines[y], self._empty.lines[y]
        if self._strips[y] is not None or full.length < cut:
            return self[y].crop(start, stop)  # drawn already, or the empty part moves left
        segments = full.cells(start, min(stop, cut))
        segments += empty.cells(max(start, cut), min(stop, width))
        shown = max(min(stop, cut, full.length), min(stop, width, empty.length))
        if shown < stop:
            segments.append(Segment(" " * (stop - max(start, shown))))
        return Strip(segments, stop - start)


class SafePlot(DirectLines, PlotextPlot):
    """A PlotextPlot drawn with Textual's line API; drawing errors become a one-line message.

    Building a plotext figure is most of a plot's cost, and its ANSI text is not needed: the
    figure's character and colour grids are read directly into cell runs (``Picture``) with cached
    styles. Pictures are kept in a small LRU keyed by what is shown (``_content_key``), the size
    and the theme, so stepping back, looping or toggling a parameter back reuses them; the plotext
    calls (``_draw``) run only on a miss, never in the setters.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._pictures: OrderedDict[Hashable, Picture] = OrderedDict()
        self._paint_lines: Sequence[Strip] = []
        self._paint_width = 0
        self._picture_strips: tuple[Picture | None, int, list[Strip]] = (None, 0, [])
        self._blank = Strip.blank(0)

    def on_unmount(self) -> None:
        # textual-plotext subscribes each plot to the app's theme signal with a callback that
        # holds the plot, and Textual drops dead subscribers only at the next theme change: a
        # removed plot (and its cached pictures) would stay alive after every scene switch.
        self.app.theme_changed_signal.unsubscribe(self)

    def forget_kept(self) -> None:
        """Drop the kept pictures: the next draw builds its figure anew (the UI bench's first
        play)."""
        self._pictures.clear()
        self._picture_strips = (None, 0, [])

    def _content_key(self) -> Hashable:
        raise NotImplementedError

    def _draw(self, upto: int | None) -> None:
        """Issue the plotext calls for the current content, each curve cut to ``upto`` points."""
        raise NotImplementedError

    def _picture(self, upto: int | None, width: int, height: int) -> Picture:
        try:
            key = (self._content_key(), upto, width, height, self.app.theme)
        except Exception as exc:
            return Picture.message(f"(plot unavailable: {type(exc).__name__})")
        picture = self._pictures.get(key)
        if picture is not None:
            self._pictures.move_to_end(key)
            return picture
        try:
            picture = self._build(upto, width, height)
        except Exception as exc:  # plotext can fail on degenerate data; the app must not
            picture = Picture.message(f"(plot unavailable: {type(exc).__name__})")
        self._pictures[key] = picture
        if len(self._pictures) > RENDER_CACHE_SIZE:
            self._pictures.popitem(last=False)
        return picture

    def _build(self, upto: int | None, width: int, height: int) -> Picture:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        self._draw(upto)
        set_size(plt, width, height)
        plt.theme(theme_name(self, self.app.theme))
        grid = build_grid(plt)
        lines = [
            RunLine.from_cells(markers, keys, _cell_style)
            for markers, keys in zip(grid.markers, grid.keys, strict=True)
        ]
        return Picture(tuple(lines), grid.canvas)

    def _strips(self, picture: Picture, width: int) -> list[Strip]:
        """The picture's lines as strips of ``width`` cells (the last picture's are kept: a paint
        that shows it again hands out the same strips, whose filtered forms are cached)."""
        last, last_width, strips = self._picture_strips
        if last is picture and last_width == width:
            return strips
        strips = [
            Strip(line.cells(0, width), min(width, line.length)).extend_cell_length(width)
            for line in picture.lines
        ]
        self._picture_strips = (picture, width, strips)
        return strips

    def _lines(self, width: int, height: int) -> Sequence[Strip]:
        """The strips of this paint (all of the picture, unless a subclass cuts it)."""
        return self._strips(self._picture(None, width, height), width)

    def render_lines(self, crop: Region) -> list[Strip]:
        # The size once per paint, not per line (``size`` walks the DOM).
        width, height = content_size(self)
        self._paint_width = width
        self._paint_lines = self._lines(width, height)
        if self._blank.cell_length != width:
            self._blank = Strip.blank(width)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        if y < len(self._paint_lines):
            return self._paint_lines[y]
        return self._blank

    def render_cells(self, y: int, start: int, stop: int) -> Strip:
        """Cells ``start`` to ``stop`` of line y as ``render_line`` draws them (DirectLines): a
        growing curve's new segment is drawn and sent without the rest of its lines."""
        lines = self._paint_lines
        if isinstance(lines, CutLines) and y < len(lines):
            return lines.cells(y, start, stop)
        return self.render_line(y).crop(start, stop)


class SeriesPlot(SeriesAxes, SafePlot):
    """Curves drawn up to an animation cursor, on a log y axis (non-positive/inf points skipped).

    The axis limits come from the full data so they stay still while the curves grow.
    """

    DEFAULT_CSS = "SeriesPlot {" + SeriesAxes.BOX_CSS + "}"

    def __init__(self, *, log_y: bool = True, xlabel: str = "", id: str | None = None) -> None:
        super().__init__(log_y=log_y, xlabel=xlabel, id=id)
        self._upto: int | None = None
        self._series_key: Hashable = ()
        self._cut_canvas: tuple[int, int] | None = None  # the last cut frame's plot area
        self._cut_size = Size(0, 0)
        self._paint_height = 0
        # (cut, width) -> (full picture, empty picture, strips): a frame shown again is reused
        self._cut_strips: dict[tuple[int, int], tuple[Picture, Picture, CutLines]] = {}
        self._cut_pictures: tuple[Picture, Picture] | None = None  # the last cut frame's pair
        self._differing_kept: tuple[Picture, Picture, list[list[int]]] | None = None

    def set_series(self, series: Sequence[Series], *, xlim: tuple[float, float] | None = None,
                   ylim: tuple[float, float] | None = None) -> None:  # fmt: skip
        """Replace the curves; limits default to the data's finite (positive, if log) range."""
        self._series = tuple(series)
        auto_x, auto_y = data_limits(self._series, self.log_y)
        self._xlim = xlim or auto_x
        self._ylim = ylim or auto_y
        self._series_key = tuple(
            (s.label, s.color, s.marker, _array_key(s.x), _array_key(s.y)) for s in self._series
        )
        self._upto = None
        self._cut_canvas = None
        refresh_lines(self)

    def set_upto(self, count: int | None) -> None:
        """Draw only the first ``count`` points of each curve (None: all)."""
        if count == self._upto:
            return
        before = self._cut()
        self._upto = count
        after = self._cut()
        if before is None or after is None:
            refresh_lines(self)
            return
        # Only the columns between the old and the new cut change (the new segment of each
        # curve); one more on each side for a point drawn on the cut's own column.
        lo, hi = sorted((before, after))
        lo, hi = max(0, lo - 1), hi + 1
        pictures = self._cut_pictures
        if pictures is None:
            refresh_lines(self, Region(lo, 0, hi - lo, self._paint_height))
            return
        # Of those columns, only the lines where a curve has a point there change: the others
        # show the same axes and blanks in the full and the empty picture.
        lines = [y for y, cols in enumerate(self._differing(*pictures)) if _any_in(cols, lo, hi)]
        if lines:
            refresh_lines(self, *(Region(lo, y, hi - lo, 1) for y in lines))

    def _differing(self, full: Picture, empty: Picture) -> list[list[int]]:
        """Per line, the sorted columns where the full and the empty picture differ: found once
        per pair of pictures (each frame of a first play asked it of every line anew)."""
        kept = self._differing_kept
        if kept is not None and kept[0] is full and kept[1] is empty:
            return kept[2]
        columns = [_differing_cells(f, e) for f, e in zip(full.lines, empty.lines, strict=True)]
        self._differing_kept = (full, empty, columns)
        return columns

    def _cut(self) -> int | None:
        """The column where this frame is cut between the full and the empty picture, at the
        last paint's size; None when the whole picture shows, or before the first paint."""
        n = max((len(s.x) for s in self._series), default=0)
        upto, canvas = self._upto, self._cut_canvas
        if upto is None or upto >= n or canvas is None or content_size(self) != self._cut_size:
            return None
        return self._reveal_column(canvas, upto)

    def _content_key(self) -> Hashable:
        return (self._series_key, self._xlim, self._ylim, self.log_y, self.xlabel)

    def _lines(self, width: int, height: int) -> Sequence[Strip]:
        """Mid-animation, the full picture's columns up to the newest point beside the empty
        picture's (same axes, no curves), so a frame costs no plotext build."""
        n = max((len(s.x) for s in self._series), default=0)
        upto = self._upto
        if upto is None or upto >= n:
            return super()._lines(width, height)
        full = self._picture(None, width, height)
        empty = self._picture(0, width, height)
        self._cut_canvas, self._cut_size, self._paint_height = None, Size(width, height), height
        self._cut_pictures = None
        if not full.canvas[1] or len(full.lines) != len(empty.lines):  # a message, not a plot
            return self._strips(self._picture(upto, width, height), width)
        self._cut_canvas = full.canvas
        self._cut_pictures = (full, empty)
        cut = self._reveal_column(full.canvas, upto)
        cached = self._cut_strips.get((cut, width))
        if cached is not None and cached[0] is full and cached[1] is empty:
            return cached[2]
        strips = CutLines(full, empty, cut, width)
        if len(self._cut_strips) >= CUT_CACHE_SIZE:
            self._cut_strips.clear()
        self._cut_strips[(cut, width)] = (full, empty, strips)
        return strips

    def _reveal_column(self, canvas: tuple[int, int], upto: int) -> int:
        """The first column right of the newest shown point, mapped the way plotext maps x."""
        start, width = canvas
        if upto <= 0:
            return start
        x = max(float(s.x[min(upto, len(s.x)) - 1]) for s in self._series if len(s.x))
        lo, hi = self._xlim
        hi = hi if hi > lo else lo + 1
        sub = 2 if any(s.marker in HD_MARKERS for s in self._series) else 1  # cells split in x
        bins = width * sub
        column = math.floor(round(0.5 + (bins - 1) * (x - lo) / (hi - lo), 8)) // sub
        return start + min(max(column, 0), width - 1) + 1

    def _draw(self, upto: int | None) -> None:
        plt = self.plt
        drawn = False
        for s in self._series:
            x = np.asarray(s.x, dtype=float)
            y = np.asarray(s.y, dtype=float)
            if upto is not None:
                x, y = x[:upto], y[:upto]
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
        ticks = int_ticks(lo_x, hi_x, 5)
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
            ticks = int_ticks(lo, hi, max(2, self.size.height // 4))
            plt.yticks(ticks, [f"{t:g}" for t in ticks])
