"""CurvePlot's pixels: segments joining points, and a reveal's raster kept from frame to frame."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from typing import Any

import numpy as np

from seqviz.ui.widgets.series import Series

PATH = "path"  # a series' marker for a line through its points in their order (a circle), unbinned
BULK = 16  # bins and points a frame adds one by one; more (a jump) are drawn in one numpy pass
Rows = Callable[[np.ndarray, np.ndarray, int], np.ndarray]  # plotted y, drawable, ph -> pixel rows


def columns(s: Series, pw: int, lo: float, hi: float,
            log_y: bool) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(pixel column, plotted y) of the points of ``s`` inside the x limits; y nan or inf where
    the point cannot be drawn."""
    x = np.asarray(s.x, dtype=float)
    y = np.asarray(s.y, dtype=float)
    inside = np.isfinite(x) & (x >= lo) & (x <= hi)
    x, y = x[inside], y[inside]
    col = np.minimum(((x - lo) / (hi - lo) * pw).astype(np.int64), pw - 1)
    with np.errstate(all="ignore"):
        t = np.log10(y) if log_y else y
    return col, t


def polyline(series: np.ndarray, cols: np.ndarray,
             rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """(series, column, row) of the pixels of straight segments joining consecutive drawable
    points (row >= 0) of the same series; a point that cannot be drawn (row -1) breaks the
    line, a lone point is drawn as a dot."""
    ok = rows >= 0
    if not ok.any():
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    joined = ok[:-1] & ok[1:] & (series[:-1] == series[1:])  # (n-1,) segments
    x0, y0, x1, y1 = cols[:-1][joined], rows[:-1][joined], cols[1:][joined], rows[1:][joined]
    steps = np.maximum(np.maximum(np.abs(x1 - x0), np.abs(y1 - y0)), 1)
    seg = np.repeat(np.arange(steps.size), steps)
    frac = (np.arange(seg.size) - np.repeat(np.cumsum(steps) - steps, steps)) / steps[seg]
    px = np.rint(x0[seg] + (x1 - x0)[seg] * frac).astype(np.int64)
    py = np.rint(y0[seg] + (y1 - y0)[seg] * frac).astype(np.int64)
    who = series[:-1][joined][seg]
    return (np.concatenate([who, series[ok]]), np.concatenate([px, cols[ok]]),
            np.concatenate([py, rows[ok]]))  # fmt: skip


def segment(x0: int, y0: int, x1: int, y1: int) -> list[tuple[int, int]]:
    """The pixels ``polyline`` draws for one segment (without its end), in plain Python: the
    same float operations, and round() rounds half to even as np.rint does."""
    dx, dy = x1 - x0, y1 - y0
    steps = max(abs(dx), abs(dy), 1)
    return [(round(x0 + dx * (k / steps)), round(y0 + dy * (k / steps))) for k in range(steps)]


def is_sorted(x: np.ndarray) -> bool:
    """Whether x never decreases (False with a nan anywhere)."""
    x = np.asarray(x, dtype=float)
    return bool(np.all(x[1:] >= x[:-1])) and not bool(np.isnan(x[:1]).any())


class _Part:
    """One series of a reveal: its x (sorted), and its points inside the x limits, ``a`` ..
    ``a + n`` of it (a run: x is sorted)."""

    def __init__(self, s: Series, lo: float, hi: float) -> None:
        x = np.asarray(s.x, dtype=float)
        self.x = x.tolist()
        inside = np.flatnonzero(np.isfinite(x) & (x >= lo) & (x <= hi))
        self.a = int(inside[0]) if inside.size else 0
        self.n = inside.size

    def shown(self, edge: float) -> int:
        """Inside points left of x ``edge``."""
        return min(max(bisect_left(self.x, edge) - self.a, 0), self.n)


class _Line(_Part):
    """One line series' x bins for a reveal: per inside point the bin it falls in; per bin its
    first point, pixel column and pixel row (of the mean of all its points: -1 if none is
    drawable)."""

    def __init__(self, s: Series, pw: int, lo: float, hi: float, log_y: bool, rows: Rows,
                 ph: int) -> None:  # fmt: skip
        super().__init__(s, lo, hi)
        col, t = columns(s, pw, lo, hi, log_y)  # (n,) the inside points, in order (x sorted)
        good = np.isfinite(t)
        starts = np.flatnonzero(np.diff(col, prepend=-1))  # (bins,) first point of each bin
        bin_of = np.cumsum(np.diff(col, prepend=-1) != 0) - 1  # (n,)
        count = np.bincount(bin_of[good], minlength=starts.size)
        total = np.zeros(starts.size)
        np.add.at(total, bin_of[good], t[good])  # in point order, as CurvePlot's bins sum
        with np.errstate(all="ignore"):
            mean = total / count
        self.bin_of = bin_of.tolist()
        self.start = starts.tolist() + [self.n]  # (bins + 1,)
        self.col = col[starts].tolist()
        self.row = rows(mean, count > 0, ph).tolist()
        self.t, self.good = t, good
        self._rows, self._ph = rows, ph
        self.pieces: dict[tuple[int, int], list[tuple[tuple[int, int], int]]] = {}  # Reveal._piece

    def kept(self, m: int) -> int:
        """Bins final with ``m`` inside points shown: all but the last."""
        return self.bin_of[m - 1] if m else 0

    def last_row(self, m: int) -> int:
        """The pixel row of the bin of the ``m``-th inside point with only its points up to it."""
        k = self.bin_of[m - 1]
        if m == self.start[k + 1]:
            return int(self.row[k])
        total, count = 0.0, 0
        first = self.start[k]
        for t, good in zip(self.t[first:m].tolist(), self.good[first:m].tolist(), strict=True):
            if good:
                total += t  # in point order, as np.add.at sums a bin
                count += 1
        if not count:
            return -1
        return int(self._rows(np.array([total / count]), np.array([True]), self._ph)[0])


class _Marks(_Part):
    """One marker series' points for a reveal: per inside point the cell it lands in (None if
    it cannot be drawn)."""

    def __init__(self, s: Series, pw: int, lo: float, hi: float, log_y: bool, rows: Rows,
                 ph: int, cell_h: int) -> None:  # fmt: skip
        super().__init__(s, lo, hi)
        col, t = columns(s, pw, lo, hi, log_y)
        row = rows(t, np.isfinite(t), ph)
        self.cells = [(r // cell_h, c // 2) if r >= 0 else None
                      for r, c in zip(row.tolist(), col.tolist(), strict=True)]  # fmt: skip

    def kept(self, m: int) -> int:
        """Points final with ``m`` shown: all."""
        return m


class Reveal:
    """A CurvePlot's raster while ``set_upto`` reveals its curves, kept from frame to frame.

    With every series' x sorted, the points left of the edge are a prefix of each series, and
    a line's x bins are runs of its points: every shown bin but the last holds all its points,
    so its mean and the segment into it are final. Those are drawn into a kept raster that only
    grows while the edge moves right; a frame copies it and adds the last bin (whose mean moves
    while its points come in) and the segment into it. A marker series' cells only add up. A
    step left draws the kept raster anew, as does a jump of more than BULK bins (in one numpy
    pass). Every frame equals CurvePlot._raster of the series cut at the edge. Not for PATH
    series or unsorted x (``ok`` False: the plot rasters the cut series).
    """

    def __init__(self, curves: tuple[Series, ...], geometry: tuple[Any, ...], rows: Rows,
                 dots: np.ndarray) -> None:  # fmt: skip
        self.curves, self.geometry = curves, geometry
        pw, ph, (lo, hi), _, log_y, cell_h = geometry
        hi = hi if hi > lo else lo + 1.0
        self.ok = all(s.marker != PATH and len(s.x) == len(s.y) and is_sorted(s.x)
                      for s in curves)  # fmt: skip
        self.parts: list[_Line | _Marks] = []
        if self.ok:
            self.parts = [_Marks(s, pw, lo, hi, log_y, rows, ph, cell_h) if len(s.marker) == 1
                          else _Line(s, pw, lo, hi, log_y, rows, ph) for s in curves]  # fmt: skip
        self.cell_h = cell_h
        self.dots = dots.tolist()  # [pixel row in the cell][pixel column] -> dot bit
        self.shape = (ph // cell_h, pw // 2)
        self._clear()

    def _clear(self) -> None:
        self.bits = np.zeros(self.shape, dtype=np.int64)  # (cell rows, cell columns) kept
        self.owner = np.full(self.shape, -1, dtype=np.int64)
        self.marks = np.full(self.shape, -1, dtype=np.int64)
        self.level = [0] * len(self.parts)  # per series: bins (a line) or points (marks) kept

    def raster(self, edge: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(dot bits, owner, marks) of the points left of x ``edge``; None if not ``ok``."""
        if not self.ok:
            return None
        shown = [p.shown(edge) for p in self.parts]
        need = [p.kept(m) for p, m in zip(self.parts, shown, strict=True)]
        if any(n < k for n, k in zip(need, self.level, strict=True)):
            self._clear()
        if sum(n - k for n, k in zip(need, self.level, strict=True)) > BULK:
            self._clear()
            self._bulk(need)
        else:
            for i, n in enumerate(need):
                self._add(i, self.level[i], n)
        self.level = need
        bits, owner = self.bits.copy(), self.owner.copy()
        for i, (part, m) in enumerate(zip(self.parts, shown, strict=True)):
            if m and isinstance(part, _Line):
                _apply(bits, owner, i, self._piece(part, part.bin_of[m - 1], part.last_row(m)))
        return bits, owner, self.marks.copy()

    def _add(self, i: int, start: int, stop: int) -> None:
        """Keep series ``i``'s bins (points) ``start`` .. ``stop``, one by one."""
        part = self.parts[i]
        if isinstance(part, _Marks):
            for cell in part.cells[start:stop]:
                if cell is not None and self.marks[cell] < i:
                    self.marks[cell] = i  # a later series' character over an earlier one's
            return
        for k in range(start, stop):
            _apply(self.bits, self.owner, i, self._piece(part, k, part.row[k]))

    def _piece(self, part: _Line, k: int, row: int) -> list[tuple[tuple[int, int], int]]:
        """(cell, dot bits) of a line's bin ``k`` at pixel row ``row`` and of the segment into
        it from the bin before (where both can be drawn); kept per bin and row, so a segment
        drawn last frame (the tail) is not traced again when it is kept."""
        piece = part.pieces.get((k, row))
        if piece is None:
            pixels = [(part.col[k], row)] if row >= 0 else []
            if pixels and k and part.row[k - 1] >= 0:
                pixels += segment(part.col[k - 1], part.row[k - 1], part.col[k], row)
            ch, dots = self.cell_h, self.dots
            cells: dict[tuple[int, int], int] = {}
            for px, py in pixels:
                cell = (py // ch, px // 2)
                cells[cell] = cells.get(cell, 0) | dots[py % ch][px % 2]
            piece = part.pieces[(k, row)] = list(cells.items())
        return piece

    def _bulk(self, need: list[int]) -> None:
        """Keep every series' first ``need`` bins (points) in one numpy pass, as the plot's
        ``_raster`` draws them."""
        who, cols, rows = [], [], []
        for i, (part, n) in enumerate(zip(self.parts, need, strict=True)):
            if isinstance(part, _Marks):
                self._add(i, 0, n)
            elif n:
                who.append(np.full(n, i, np.int64))
                cols.append(np.asarray(part.col[:n], np.int64))
                rows.append(np.asarray(part.row[:n], np.int64))
        if not who:
            return
        s, px, py = polyline(np.concatenate(who), np.concatenate(cols), np.concatenate(rows))
        ch = self.cell_h
        if px.size:
            np.bitwise_or.at(self.bits, (py // ch, px // 2), np.asarray(self.dots)[py % ch, px % 2])
            np.maximum.at(self.owner, (py // ch, px // 2), s)


def _apply(bits: np.ndarray, owner: np.ndarray, i: int,
           piece: list[tuple[tuple[int, int], int]]) -> None:  # fmt: skip
    """Add series ``i``'s cells and dot bits to a raster (a later series owns a cell)."""
    for cell, dot in piece:
        bits[cell] |= dot
        if owner[cell] < i:
            owner[cell] = i
