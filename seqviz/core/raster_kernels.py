"""CurvePlot's line raster as one Numba kernel (imported on first use: numba is not needed to
start).

It lives with the core's kernels, below the UI, so that the warm-up (``seqviz.scenes.warm``)
compiles and loads it with them; the app uses it only once they are ready (``backend``).

The NumPy path (``CurvePlot._line_pixels``, ``reveal.polyline`` and two ``ufunc.at`` calls) is
some forty array calls on arrays of a few hundred elements, and for a live Training frame those
calls' overhead was most of the three curve plots' cost. This kernel does the same arithmetic
element by element, with no fast-math flags, so every float operation is the one NumPy does and
the raster is the same bit for bit (a test compares the two on random, nan- and inf-laden bins).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def _plot(bits, owner, dots, ch, px, py, who):
    r = py // ch
    c = px // 2
    bits[r, c] |= dots[py % ch, px % 2]
    if who > owner[r, c]:
        owner[r, c] = who


@njit(cache=True, nogil=True)
def line_raster(seen, count, total, index, y_lo, y_hi, ph, dots, more, bits, owner):
    """Draw into ``bits``/``owner`` (cell rows, cell columns) the lines through the bins of the
    binned series: row k of ``seen``/``count``/``total`` (series, pixel columns) is series
    ``index[k]``; each non-empty bin is a point at the mean of its drawable values (a bin with
    none breaks the line), consecutive points of a series are joined as ``reveal.polyline``
    joins them, and pixel row = rint((y_hi - mean) / (y_hi - y_lo) * (ph - 1)) clipped to the
    plot (nan at the top), as ``CurvePlot._rows``. ``more`` (3, n): further pixels (series,
    column, row) to draw, e.g. a closed path's. A later series' colour wins a cell (max)."""
    ch = dots.shape[0]
    span = y_hi - y_lo
    top = ph - 1
    for k in range(seen.shape[0]):
        who = index[k]
        joined = False
        pc = 0
        pr = 0
        for c in range(seen.shape[1]):
            if seen[k, c] == 0:
                continue  # an empty bin: the line goes on over it
            if count[k, c] == 0:
                joined = False  # only what cannot be drawn: the line breaks
                continue
            t = total[k, c] / count[k, c]
            row = np.rint((y_hi - t) / span * top)
            if math.isnan(row):
                row = 0.0
            row = min(max(row, 0.0), float(top))
            r = int(row)
            if joined:
                dx = c - pc
                dy = r - pr
                steps = max(abs(dx), abs(dy), 1)
                for s in range(steps):
                    frac = s / steps
                    _plot(bits, owner, dots, ch, int(np.rint(pc + dx * frac)),
                          int(np.rint(pr + dy * frac)), who)  # fmt: skip
            _plot(bits, owner, dots, ch, c, r, who)
            joined = True
            pc = c
            pr = r
    for j in range(more.shape[1]):
        _plot(bits, owner, dots, ch, more[1, j], more[2, j], more[0, j])


def warmup() -> None:
    """Compile (or load from the cache) the kernel, for the types CurvePlot passes."""
    bins = np.zeros((1, 2), np.int64)
    cells = np.zeros((1, 1), np.int64)
    dots, more = np.ones((4, 2), np.int64), np.zeros((3, 0), np.int64)
    line_raster(bins, bins, np.zeros((1, 2)), np.zeros(1, np.int64), 0.0, 1.0, 4, dots, more,
                cells, cells.copy())  # fmt: skip
