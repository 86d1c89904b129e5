"""Tick marks for a heatmap's axes: which cells carry a label, and the number each one shows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# Round steps between labels: time steps by fives and tens, unit indices in powers of two.
TIME_STEPS = (1, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
UNIT_STEPS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)


def cell_of(index_map: np.ndarray, index: int) -> int:
    """The cell that shows data ``index``: the first of its cells, or, when the axis is squeezed
    and skips it, the cell whose span of data indices holds it."""
    left = int(np.searchsorted(index_map, index, side="left"))
    if left < len(index_map) and int(index_map[left]) == index:
        return left
    return max(0, int(np.searchsorted(index_map, index, side="right")) - 1)


def _round_step(steps: Sequence[int], cells_per_value: float, gap: int, stride: int) -> int:
    for step in steps:
        if step % stride == 0 and step * cells_per_value >= gap:
            return step
    return max(steps[-1], stride)


def axis_ticks(
    index_map: np.ndarray, values: np.ndarray, *, gap: int, steps: Sequence[int],
    along: bool = False, limit: int | None = None,
) -> list[tuple[int, int]]:  # fmt: skip
    """(cell, value) pairs to label along an axis whose cell i shows data index index_map[i],
    data index j being called values[j] (time step, unit number).

    Values that count evenly are labelled at multiples of a round step (and the first value, when
    it does not crowd the next label); other values (a ranking) every step-th one. Labels are at
    least ``gap`` cells apart; a label written ``along`` the axis (x) must also end before
    ``limit``, the axis length (default: the cells shown)."""
    values = np.asarray(values, dtype=np.int64)
    n, cells = len(values), len(index_map)
    if n == 0 or cells == 0:
        return []
    limit = cells if limit is None else limit
    diffs = np.diff(values)
    if n > 1 and diffs[0] != 0 and bool(np.all(diffs == diffs[0])):
        stride = abs(int(diffs[0]))
        step = _round_step(steps, cells / n / stride, gap, stride)
        wanted = [j for j in range(n) if values[j] % step == 0]
        first: int | None = 0 if (not wanted or wanted[0] != 0) else None
    else:  # repeated rows (one unit over two data rows) or a ranking: label each run's start
        starts = [0, *(j for j in range(1, n) if values[j] != values[j - 1])]
        step = _round_step(steps, cells / len(starts), gap, 1)
        wanted, first = starts[::step], None

    def fits(cell: int, j: int, last: int) -> bool:
        length = len(str(int(values[j]))) if along else 1
        return cell - last >= gap and cell + length <= limit

    ticks: list[tuple[int, int]] = []
    last = -gap
    for j in wanted:
        cell = cell_of(index_map, j)
        if fits(cell, j, last):
            ticks.append((cell, int(values[j])))
            last = cell
    if first is not None:
        cell = cell_of(index_map, first)
        next_cell = ticks[0][0] if ticks else limit + gap
        if fits(cell, first, -gap) and next_cell - cell >= gap:
            ticks.insert(0, (cell, int(values[first])))
    return ticks
