"""CurvePlot: growing curves in braille with real axes, repainting only the cells that change.

A live training run adds a few points per result to curves thousands of points long. A plotext
figure has to be rebuilt whole for that (and all of it repainted); this plot is a CellCanvas
instead. Every pixel column is a fixed bin of x (the axis limits are set by the caller and
change rarely), a curve's pixel there is the mean of its finite points in the bin, and the
picture is a pure function of data, limits and size: so a new result changes only the cells of
the bins it touched, and a screen drawn afterwards from scratch is the same. The bins are kept
per line series (``_Bins``): a series that only grew adds just its new points. An animation's
reveal (``set_upto``) keeps its raster from frame to frame and adds each frame's new segment
(``reveal.Reveal``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip

from seqviz.core import backend
from seqviz.ui.compat_textual import DirectLines
from seqviz.ui.widgets.cells import Cell, CellCanvas
from seqviz.ui.widgets.reveal import BULK, PATH, Reveal, columns, polyline
from seqviz.ui.widgets.series import Series, SeriesAxes, int_ticks

AXIS_STYLE = Style(color="#9e9e9e")
BRAILLE = 0x2800
# Braille dot bits by (pixel row within the cell, pixel column within the cell).
DOT_BITS = np.array([[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]], dtype=np.int64)
BRAILLE_GLYPHS = tuple(chr(BRAILLE + bits) for bits in range(256))
# Quadrant blocks: 2 x 2 pixels a cell, bits by (pixel row, pixel column) as below; each a solid
# block of half a cell, thicker than a braille dot (a line reads from the back of a lecture hall).
QUAD_BITS = np.array([[1, 2], [4, 8]], dtype=np.int64)
QUAD_GLYPHS = " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"
Marks = np.ndarray  # (cell rows, cell columns): the series drawn there as a character (-1: none)
REVEALS_KEPT = 256  # grids of one set of curves kept per reveal (an animation's frames)
MIN_CANVAS = (6, 2)  # cells (wide, high) of the data area below which only the curves show


@lru_cache(maxsize=256)
def _styles(color: tuple[int, int, int]) -> Style:
    # The same object for a colour each time: comparing a redrawn grid with the last one (and
    # runs of cells within a line) then finds equal cells by identity, not Style.__eq__.
    return Style(color="rgb({},{},{})".format(*color))


class CurvePlot(SeriesAxes, DirectLines, CellCanvas):
    """Curves of ``Series`` on fixed limits: lines in braille, one-character markers as points.

    A series whose ``marker`` is one character is drawn as that character in the cells of its
    points (spikes, clipped updates, a vertical key line); ``PATH`` joins its points in their
    order, pixel by pixel (a closed curve); any other marker draws a line through the mean of
    each x bin. Later series draw over earlier ones. On a log axis, non-positive and
    non-finite points are skipped; a bin whose points are all skipped breaks the line.
    ``set_upto`` reveals the curves from the left, as an animation draws them, on the same axes.
    Lines are braille dots (2 x 4 a cell), or with ``blocks`` quadrant blocks (2 x 2).
    """

    DEFAULT_CSS = "CurvePlot {" + SeriesAxes.BOX_CSS + "}"
    TRUECOLOR = True  # curves, axes and blanks: rgb/hex colours or none (DirectLines)

    def __init__(self, *, log_y: bool = True, xlabel: str = "", blocks: bool = False,
                 id: str | None = None) -> None:  # fmt: skip
        super().__init__(log_y=log_y, xlabel=xlabel, id=id)
        self._dots = QUAD_BITS if blocks else DOT_BITS  # (pixel rows a cell, 2) dot bits
        self._glyphs: Sequence[str] = QUAD_GLYPHS if blocks else BRAILLE_GLYPHS  # by bits
        self._cell_h = len(self._dots)  # pixel rows a cell
        self._data_area = (0, 1)  # first column and width of the data area, as last drawn
        self._frame_key: Any = None  # what the axes were drawn for
        self._frame: tuple[int, int, int, list[list[Cell]]] = (0, 1, 0, [])
        self._rows_drawn: dict[int, tuple[Any, list[Cell]]] = {}  # row -> (what, its cells)
        self._bins: dict[int, _Bins] = {}  # line series index -> its x bins, as last drawn
        self._hits: dict[int, _Hits] = {}  # marker series index -> the cells its points hit
        self._paths: dict[int, tuple[Series, Any, Any]] = {}  # PATH series index -> its pixels
        # The last raster: a result that moves no pixel (a new point that leaves its bin's
        # mean on the same pixel row) redraws nothing.
        self._raster_out: tuple[np.ndarray, np.ndarray, Marks] | None = None
        self._grid_key: Any = (None, None, None, None)
        self._grid_out: list[list[Cell]] = []
        self._all: tuple[Series, ...] = ()  # every point (also ``_series``)
        self._upto: int | None = None
        self._edge: float | None = None  # shown: points left of this x (None: all)
        self._cut: tuple[Series, ...] | None = None  # the shown points, once cut (``_shown``)
        self._revealed: Reveal | None = None  # the reveal's raster, kept from frame to frame
        # (revealed count, size and limits) -> grid, for the curves set last: an animation
        # shown again (a replay, stepping back) draws no raster
        self._reveals: dict[tuple[Any, ...], tuple[list[list[Cell]], tuple[int, int]]] = {}

    def set_series(self, series: Sequence[Series], *, xlim: tuple[float, float],
                   ylim: tuple[float, float] | None, upto: int | None = None) -> None:  # fmt: skip
        """New curves and limits (None: no y axis yet), shown up to ``upto`` (``set_upto``);
        repaints the cells that differ."""
        self._all = self._series = tuple(series)
        self._xlim = xlim
        self._ylim = ylim
        self._reveals = {}
        self._reveal(upto, anew=True)
        self.redraw()

    def forget_kept(self) -> None:
        """Drop the grids kept per reveal and the reveal's raster (the UI bench's first play)."""
        self._reveals = {}
        self._revealed = None

    def set_upto(self, count: int | None) -> None:
        """Show each series' points left of the ``count``-th x of the longest one (None, or as
        many as it has: all), as an animation reveals them; limits and axes stay."""
        if self._reveal(count):
            self.redraw()

    def _reveal(self, count: int | None, anew: bool = False) -> bool:
        """Cut the shown series at ``count`` (see set_upto); whether they changed."""
        longest = max(self._all, key=lambda s: len(s.x), default=None)
        if longest is None or count is None or count >= len(longest.x):
            count = None
        if count == self._upto and not anew:
            return False
        self._upto = count
        self._edge = None if count is None or longest is None else float(longest.x[max(count, 0)])
        self._cut = None
        return True

    def _shown(self) -> tuple[Series, ...]:
        """The series cut at the reveal's edge (see set_upto), cut when first asked for."""
        if self._cut is None:
            edge = self._edge
            self._cut = self._all if edge is None else tuple(_left_of(s, edge) for s in self._all)
        return self._cut

    def column_of(self, x: float) -> int:
        """The widget column that shows ``x`` (its x bin), as last drawn."""
        left, cw = self._data_area
        lo, hi = self._xlim
        hi = hi if hi > lo else lo + 1.0
        return left + min(int((x - lo) / (hi - lo) * 2 * cw), 2 * cw - 1) // 2

    def render_lines(self, crop: Region) -> list[Strip]:
        self._prepare_paint()  # then straight to the screen when Textual's pass adds nothing
        return super().render_lines(crop)

    # --- geometry ----------------------------------------------------------------------------
    def _y_ticks(self, rows: int) -> list[tuple[float, str]]:
        if self._ylim is None:
            return []
        lo, hi = self._ylim
        if self.log_y:
            lo_e, hi_e = self._log_range()
            stride = max(1, math.ceil((hi_e - lo_e) / max(2, rows // 3)))
            return [(float(e), f"1e{e}") for e in range(hi_e, lo_e - 1, -stride)]
        return [(t, f"{t:g}") for t in int_ticks(lo, hi, max(2, rows // 4))]

    def _x_ticks(self) -> list[float]:
        lo, hi = self._xlim
        return int_ticks(lo, hi if hi > lo else lo + 1.0, 5)

    def _log_range(self) -> tuple[int, int]:
        assert self._ylim is not None
        lo_e = math.floor(math.log10(max(self._ylim[0], 1e-300)))
        hi_e = math.ceil(math.log10(max(self._ylim[1], 1e-300)))
        return lo_e, max(hi_e, lo_e + 1)

    def _y_span(self) -> tuple[float, float]:
        """The y axis in plotted units (decades on a log axis)."""
        if self._ylim is None:
            return 0.0, 1.0
        if self.log_y:
            lo_e, hi_e = self._log_range()
            return float(lo_e), float(hi_e)
        lo, hi = self._ylim
        return lo, hi if hi > lo else lo + 1.0

    def _rows(self, t: np.ndarray, good: np.ndarray, ph: int) -> np.ndarray:
        """Pixel rows from the top of plotted values ``t``; -1 where not ``good``."""
        y_lo, y_hi = self._y_span()
        with np.errstate(all="ignore"):
            row = np.rint((y_hi - t) / (y_hi - y_lo) * (ph - 1))
        # nan at the top, +-inf clipped to the edges (np.nan_to_num's mapping, without its cost)
        row = np.minimum(np.maximum(np.where(np.isnan(row), 0.0, row), 0), ph - 1)
        return np.where(good, row, -1).astype(np.int64)

    def _point_pixels(self, s: Series, pw: int, ph: int) -> tuple[np.ndarray, np.ndarray]:
        """(pixel column, pixel row from the top) of each point of ``s`` inside the x limits
        (a marker or PATH series); row -1 where it cannot be drawn (nan, inf, <= 0 on a log
        axis)."""
        lo, hi = self._xlim
        col, t = columns(s, pw, lo, hi if hi > lo else lo + 1.0, self.log_y)
        return col, self._rows(t, np.isfinite(t), ph)

    def _marker_cells(self, i: int, s: Series, pw: int, ph: int) -> np.ndarray:
        """(ph // cell_h, pw // 2) whether a point of marker series ``i`` lands in each cell,
        kept per series: a series that only grew (the clipped updates of a long run) maps just
        its new points, where mapping all of them was most of a frame of its plot."""
        lo, hi = self._xlim
        key = (pw, ph, lo, hi, self.log_y, self._y_span(), self._cell_h)
        hits = self._hits.get(i)
        if hits is None or not hits.grown(s, key):
            hits = self._hits[i] = _Hits(key, (ph // self._cell_h, pw // 2))
        new = hits.take(s)
        if new is not None:
            cols, rows = self._point_pixels(new, pw, ph)
            ok = rows >= 0
            hits.hit[rows[ok] // self._cell_h, cols[ok] // 2] = True
        return hits.hit

    def _line_bins(self, pw: int) -> tuple[list[int], list[_Bins]]:
        """(series index, its kept x bins) of every binned line series, in series order; each
        series' bins brought up to date (a series that only grew adds just its new points)."""
        lo, hi = self._xlim
        hi = hi if hi > lo else lo + 1.0
        index, kept = [], []
        for i, s in enumerate(self._shown()):
            if len(s.marker) == 1 or s.marker == PATH:
                continue
            bins = self._bins.get(i)
            if bins is None or not bins.extends(s, pw, lo, hi, self.log_y):
                bins = self._bins[i] = _Bins(pw, lo, hi, self.log_y)
            bins.add(s)
            index.append(i)
            kept.append(bins)
        return index, kept

    def _line_pixels(self, index: list[int], kept: list[_Bins], pw: int,
                     ph: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
        """(series index, pixel column, pixel row) of the points every binned line joins: per
        binned series (series order, then column order) each non-empty x bin at the mean of
        its points. Row -1 where there is only what cannot be drawn. The binned series go
        through one pass together: per series, numpy's call overhead was most of a frame's
        cost. (The NumPy path; ``raster_kernels.line_raster`` does the same in one call.)"""
        if not kept:
            empty = np.zeros(0, np.int64)
            return empty, empty, empty
        seen = np.concatenate([b.seen for b in kept])  # (series * pw,)
        count = np.concatenate([b.count for b in kept])
        total = np.concatenate([b.total for b in kept])
        at = np.flatnonzero(seen)
        series, col = np.divmod(at, pw)
        count = count[at]
        with np.errstate(all="ignore"):
            t = total[at] / count
        return np.asarray(index, np.int64)[series], col, self._rows(t, count > 0, ph)

    def _path_pixels(self, i: int, s: Series, pw: int,
                     ph: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
        """(series index, pixel column, pixel row) of the pixels PATH series ``i`` joins (its
        points in their order, ``polyline``), kept per series object and geometry: the
        eigenvalue plot's unit circle (241 points) is the same for a size and limits, while
        the eigenvalues over it change with every result."""
        key = (pw, ph, self._xlim, self._y_span(), self.log_y)
        kept = self._paths.get(i)
        if kept is not None and kept[0] is s and kept[1] == key:
            return kept[2]
        col, row = self._point_pixels(s, pw, ph)
        pixels = polyline(np.full(col.size, i, np.int64), col, row)
        self._paths[i] = (s, key, pixels)
        return pixels

    def _raster(self, pw: int, ph: int) -> tuple[np.ndarray, np.ndarray, Marks]:
        """Dot bits (ph // cell_h, pw // 2), the series index colouring each cell (-1: none)
        and the character markers {(row, col): series index}. The same object as last time if
        all three are the same as then (the grid is a function of them alone)."""
        shown = self._shown()
        self._bins = {i: b for i, b in self._bins.items() if i < len(shown)}
        self._hits = {i: h for i, h in self._hits.items() if i < len(shown)}
        self._paths = {i: p for i, p in self._paths.items() if i < len(shown)}
        index, kept = self._line_bins(pw)
        paths = [self._path_pixels(i, s, pw, ph) for i, s in enumerate(shown) if s.marker == PATH]
        ch, dots = self._cell_h, self._dots
        bits = np.zeros((ph // ch, pw // 2), dtype=np.int64)
        owner = np.full(bits.shape, -1, dtype=np.int64)
        marks: Marks = np.full(bits.shape, -1, dtype=np.int64)
        for i, s in enumerate(shown):
            if len(s.marker) == 1:
                marks[self._marker_cells(i, s, pw, ph)] = i  # a later series' over an earlier
        kernel = line_kernel()
        if kernel is not None:
            more = (np.stack([np.concatenate(a) for a in zip(*paths, strict=True)])
                    if paths else _NO_PIXELS)  # fmt: skip
            if kept or paths:
                y_lo, y_hi = self._y_span()
                seen = np.stack([b.seen for b in kept]) if kept else _NO_BINS
                count = np.stack([b.count for b in kept]) if kept else _NO_BINS
                total = np.stack([b.total for b in kept]) if kept else _NO_TOTALS
                kernel(seen, count, total, np.asarray(index, np.int64), y_lo, y_hi, ph, dots,
                       more, bits, owner)  # fmt: skip
        else:
            who, px, py = polyline(*self._line_pixels(index, kept, pw, ph))
            if paths:  # the pixels the same: drawn in any order, a later series over (max)
                who, px, py = (np.concatenate(a) for a in zip((who, px, py), *paths, strict=True))
            if px.size:
                np.bitwise_or.at(bits, (py // ch, px // 2), dots[py % ch, px % 2])
                np.maximum.at(owner, (py // ch, px // 2), who)  # a later series draws over
        last = self._raster_out
        if (last is not None and last[0].shape == bits.shape
                and bits.tobytes() == last[0].tobytes() and owner.tobytes() == last[1].tobytes()
                and marks.tobytes() == last[2].tobytes()):  # fmt: skip
            return last  # nothing moved: the same object, which _drawn passes over at once
        self._raster_out = bits, owner, marks
        return self._raster_out

    def _reveal_raster(self, pw: int, ph: int) -> tuple[np.ndarray, np.ndarray, Marks]:
        """``_raster`` for the points shown; during a reveal from the kept ``Reveal``, which
        adds each frame's new segments to what the frame before drew (see its docstring)."""
        if self._edge is None:
            return self._raster(pw, ph)
        geometry = (pw, ph, self._xlim, self._y_span(), self.log_y, self._cell_h)
        revealed = self._revealed
        if revealed is None or revealed.curves is not self._all or revealed.geometry != geometry:
            revealed = self._revealed = Reveal(self._all, geometry, self._rows, self._dots)
        out = revealed.raster(self._edge)
        return out if out is not None else self._raster(pw, ph)

    # --- the picture -------------------------------------------------------------------------
    def cells(self, width: int, height: int) -> list[list[Cell]]:
        # a pure function of the curves, how many points show, the size and the limits
        key = (self._upto, width, height, self._xlim, self._ylim, self.log_y, self.xlabel)
        kept = self._reveals.get(key)
        if kept is None:
            if len(self._reveals) >= REVEALS_KEPT:
                self._reveals.clear()
            kept = self._reveals[key] = (self._drawn(width, height), self._data_area)
        grid, self._data_area = kept
        return grid

    def _drawn(self, width: int, height: int) -> list[list[Cell]]:
        frame = (width, height, self._xlim, self._ylim, self.log_y, self.xlabel)
        if frame != self._frame_key:  # the axes: drawn once per size and limits
            self._frame_key, self._frame = frame, self._axes_frame(width, height)
            self._rows_drawn = {}
        left, cw, rows, axes = self._frame
        self._data_area = (left, cw)
        styles = tuple(_styles(s.color) for s in self._series)
        markers = tuple(s.marker for s in self._series)
        raster = self._reveal_raster(2 * cw, self._cell_h * rows)
        grid_key = (self._frame_key, styles, markers, raster)
        if raster is self._grid_key[3] and grid_key == self._grid_key:  # nothing moved:
            return self._grid_out  # the same grid, which the repaint passes over at once
        if grid_key[:3] == self._grid_key[:3]:  # the same axes and series: a frame of a reveal
            patched = self._patched(raster, self._grid_key[3], self._grid_out)
            if patched is not None:
                self._grid_key, self._grid_out = grid_key, patched
                return patched
        bits, owner, marks = raster
        grid = list(axes)
        glyphs = self._glyphs
        drawn: dict[int, tuple[Any, list[Cell]]] = {}
        # A row's key holds its slices of the raster's bytes: one conversion per raster, not
        # one per row (a frame changes a row or two of each plot; numpy calls per row were
        # a good part of a frame's cost)
        stride = bits.strides[0]
        bits_b, owner_b, marks_b = bits.tobytes(), owner.tobytes(), marks.tobytes()
        for r in np.flatnonzero(bits.any(axis=1) | (marks >= 0).any(axis=1)).tolist():
            cut = slice(r * stride, (r + 1) * stride)
            key = (styles, markers, bits_b[cut], owner_b[cut], marks_b[cut])
            old = self._rows_drawn.get(r)
            if old is not None and old[0] == key:  # the same row as last time: the same list,
                grid[r] = old[1]  # which the repaint's comparison passes over at once
            else:
                line = list(axes[r])
                dots, who = bits[r].tolist(), owner[r].tolist()
                for c, dot in enumerate(dots):
                    if dot:
                        line[left + c] = (glyphs[dot], styles[who[c]])
                for c, i in enumerate(marks[r].tolist()):
                    if i >= 0:
                        line[left + c] = (markers[i], styles[i])
                grid[r] = line
            drawn[r] = (key, grid[r])
        self._rows_drawn = drawn
        self._grid_key, self._grid_out = grid_key, grid
        return grid

    def _patched(self, raster: tuple[np.ndarray, np.ndarray, Marks],
                 last: tuple[np.ndarray, np.ndarray, Marks],
                 grid: list[list[Cell]]) -> list[list[Cell]] | None:  # fmt: skip
        """The last grid (drawn from raster ``last`` on the same axes and series) with only the
        cells whose raster changed drawn anew, the other lines shared; None if more than a
        line's worth of cells changed (``_drawn`` draws the changed lines whole then)."""
        bits, owner, marks = raster
        if bits.shape != last[0].shape:
            return None
        changed = (bits != last[0]) | (owner != last[1]) | (marks != last[2])
        rows, cols = np.nonzero(changed)
        if rows.size > bits.shape[1]:
            return None
        left, axes = self._frame[0], self._frame[3]
        styles, markers = self._grid_key[1], self._grid_key[2]
        out = list(grid)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            if out[r] is grid[r]:
                out[r] = list(grid[r])
            i, dot = int(marks[r, c]), int(bits[r, c])
            if i >= 0:  # a character over the dots, as _drawn draws it
                out[r][left + c] = (markers[i], styles[i])
            elif dot:
                out[r][left + c] = (self._glyphs[dot], styles[int(owner[r, c])])
            else:
                out[r][left + c] = axes[r][left + c]
        return out

    def _axes_area(self, width: int,
                   height: int) -> tuple[int, int, int, list[tuple[float, str]]]:  # fmt: skip
        """(first data column, data columns, data rows, y ticks) for this size."""
        rows = height - (3 if self.xlabel else 2)  # x axis line, its numbers, its label
        ticks = self._y_ticks(max(rows, 1))
        label_w = max((len(t) for _, t in ticks), default=0)
        left = label_w + 1  # the labels, then the axis line
        cw = width - left - 1
        if cw < MIN_CANVAS[0] or rows < MIN_CANVAS[1]:
            return 0, width, height, []
        return left, cw, rows, ticks

    def _axes_frame(self, width: int, height: int) -> tuple[int, int, int, list[list[Cell]]]:
        """(first data column, data columns, data rows, the grid of axes without curves)."""
        left, cw, rows, ticks = self._axes_area(width, height)
        label_w = left - 1
        grid: list[list[Cell]] = [[(" ", None)] * width for _ in range(height)]
        if left:
            self._draw_axes(grid, ticks, left, cw, rows, label_w)
        return left, cw, rows, grid

    def _draw_axes(self, grid: list[list[Cell]], ticks: list[tuple[float, str]], left: int,
                   cw: int, rows: int, label_w: int) -> None:  # fmt: skip
        y_lo, y_hi = self._y_span()
        for r in range(rows):
            grid[r][left - 1] = ("│", AXIS_STYLE)
        for value, text in ticks:
            cell_h = self._cell_h  # the tick on the cell of the pixel row its value maps to
            r = int(round((y_hi - value) / (y_hi - y_lo) * (cell_h * rows - 1))) // cell_h
            if 0 <= r < rows:
                for k, ch in enumerate(text.rjust(label_w)):
                    grid[r][k] = (ch, None)
                grid[r][left - 1] = ("┤", AXIS_STYLE)
        axis = grid[rows]
        axis[left - 1] = ("└", AXIS_STYLE)
        for c in range(cw):
            axis[left + c] = ("─", AXIS_STYLE)
        lo, hi = self._xlim
        hi = hi if hi > lo else lo + 1.0
        numbers = grid[rows + 1]
        free = 0  # the first column a label may start at (labels never touch)
        for t in self._x_ticks():
            c = min(int((t - lo) / (hi - lo) * 2 * cw), 2 * cw - 1) // 2
            text = f"{t:g}"
            start = max(left + c - len(text) // 2, free)
            if start + len(text) > len(numbers):
                continue
            axis[left + c] = ("┬", AXIS_STYLE)
            for k, ch in enumerate(text):
                numbers[start + k] = (ch, None)
            free = start + len(text) + 1
        if self.xlabel and rows + 2 < len(grid):
            start = left + max(0, (cw - len(self.xlabel)) // 2)
            for k, ch in enumerate(self.xlabel[: len(grid[0]) - start]):
                grid[rows + 2][start + k] = (ch, None)


class _Kept:
    """The points of one series drawn so far (``x``, ``y``, copied: a caller may reuse its
    arrays) and what they were drawn for (``key``)."""

    def __init__(self, key: Any) -> None:
        self.key = key
        self.x = np.zeros(0)  # (n,)
        self.y = np.zeros(0)  # (n,)

    def grown(self, s: Series, key: Any) -> bool:
        """Whether ``s`` is these points followed by new ones, drawn for the same ``key``
        (compared bit for bit, so nan equals nan)."""
        n = self.x.size
        if self.key != key or len(s.x) < n or len(s.y) != len(s.x):
            return False
        x = np.asarray(s.x[:n], dtype=float)
        y = np.asarray(s.y[:n], dtype=float)
        return _same_bits(x, self.x) and _same_bits(y, self.y)

    def take(self, s: Series) -> Series | None:
        """The points of ``s`` after those taken so far (None if none), now taken."""
        n = self.x.size
        if len(s.x) == n:
            return None
        new = Series(s.label, s.x[n:], s.y[n:], s.color, s.marker)
        self.x = np.concatenate([self.x, np.asarray(new.x, dtype=float)])
        self.y = np.concatenate([self.y, np.asarray(new.y, dtype=float)])
        return new


class _Bins(_Kept):
    """One line series' x bins for a width and x limits: per bin the points inside the limits
    (``seen``), the drawable ones (``count``) and the sum of their plotted y (``total``, summed
    in point order, as a re-bin from scratch sums them). The y span is applied to the means
    afterwards, so it never invalidates the bins; the width, limits and scale do."""

    def __init__(self, pw: int, lo: float, hi: float, log_y: bool) -> None:
        super().__init__((pw, lo, hi, log_y))
        self.seen = np.zeros(pw, np.int64)  # (pw,)
        self.count = np.zeros(pw, np.int64)  # (pw,)
        self.total = np.zeros(pw)  # (pw,)

    def extends(self, s: Series, pw: int, lo: float, hi: float, log_y: bool) -> bool:
        """Whether ``s`` is these points followed by new ones, on the same bins."""
        return self.grown(s, (pw, lo, hi, log_y))

    def add(self, s: Series) -> None:
        """Bin the points of ``s`` after the first ``n`` (all of them on a new ``_Bins``)."""
        new = self.take(s)
        if new is None:
            return
        if len(new.x) <= BULK:  # a result's few points: per point (numpy's calls cost more)
            self._add_few(new)
            return
        col, t = columns(new, *self.key)
        good = np.isfinite(t)
        np.add.at(self.seen, col, 1)
        np.add.at(self.count, col[good], 1)
        np.add.at(self.total, col[good], t[good])  # in point order, like bincount's weights

    def _add_few(self, new: Series) -> None:
        """``add``'s binning point by point: the same float operations as ``columns`` (its
        log10 is numpy's, as there) and the same sums in point order; each bin touched is
        read and written once (a result's points fall in a bin or two)."""
        pw, lo, hi, log_y = self.key
        y = np.asarray(new.y, dtype=float)
        with np.errstate(all="ignore"):
            t = (np.log10(y) if log_y else y).tolist()
        touched: dict[int, list[Any]] = {}  # bin -> [seen, count, total] added up so far
        for x, v in zip(np.asarray(new.x, dtype=float).tolist(), t, strict=True):
            if math.isfinite(x) and lo <= x <= hi:
                col = min(int((x - lo) / (hi - lo) * pw), pw - 1)
                sums = touched.get(col)
                if sums is None:
                    sums = touched[col] = [0, 0, float(self.total[col])]
                sums[0] += 1
                if math.isfinite(v):
                    sums[1] += 1
                    sums[2] += v
        for col, (seen, count, total) in touched.items():
            self.seen[col] += seen
            self.count[col] += count
            self.total[col] = total


class _Hits(_Kept):
    """One marker series' cells for a raster size, x limits, scale and y span: whether any of
    its points so far lands in each cell. A cell once hit stays hit: new points only add."""

    def __init__(self, key: Any, shape: tuple[int, int]) -> None:
        super().__init__(key)
        self.hit = np.zeros(shape, dtype=bool)  # (cell rows, cell columns)


_NO_PIXELS = np.zeros((3, 0), np.int64)
_NO_BINS = np.zeros((0, 1), np.int64)
_NO_TOTALS = np.zeros((0, 1))


def line_kernel() -> Any:
    """``raster_kernels.line_raster`` where this thread computes with the Numba kernels; None
    while the app still uses the NumPy reference (the kernel is compiled or loaded with the
    others by the warm-up, never on the screen's thread). Once found, kept."""
    global _line_kernel
    if _line_kernel is None and not backend.using_reference():
        from seqviz.core.raster_kernels import line_raster

        _line_kernel = line_raster
    return _line_kernel


_line_kernel: Any = None


def _left_of(s: Series, edge: float) -> Series:
    """The series with only its points left of x ``edge`` (a prefix when x grows)."""
    keep = np.asarray(s.x) < edge
    if keep.all():
        return s
    return Series(s.label, s.x[keep], s.y[keep], s.color, s.marker)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.ascontiguousarray(a).tobytes() == b.tobytes()
