"""Heatmap drawn with Textual's line API: two data rows per line, cached styles and strips."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from seqviz.ui.widgets.colormap import Colormap, diverging
from seqviz.ui.widgets.runs import RunLine

UPPER_HALF = "▀"
CURSOR = "▸"
CURSOR_SEGMENT = Segment(CURSOR, Style(color="#ffd54f", bold=True))
BLANK_SEGMENT = Segment(" ")


def _index_map(n_data: int, n_cells: int, whole: bool = False) -> np.ndarray:
    """Data index for each cell, nearest sample; ``whole`` upsamples by whole repeats only."""
    if n_data <= 0 or n_cells <= 0:
        return np.zeros(0, dtype=np.int64)
    if whole and n_data <= n_cells:
        return np.repeat(np.arange(n_data), n_cells // n_data)
    return (np.arange(n_cells) * n_data // n_cells).astype(np.int64)


class Heatmap(Widget):
    """A (rows x columns) array as coloured half-blocks; columns past ``visible`` stay blank.

    Rows are units, columns are time steps. Each line's coloured runs are built once per data or
    size change (``RunLine``); a frame only cuts the revealed columns out of them, so animating
    costs a bisect and a handful of segments per line.
    """

    DEFAULT_CSS = """
    Heatmap {
        width: 1fr;
        height: 1fr;
        min-height: 2;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._bins: np.ndarray | None = None  # (rows, cols) int16 colour bins
        self._cmap: Colormap = diverging()
        self._visible = 0
        self._from_end = False
        self._labels: str | tuple[str, ...] = ""
        self._cursor: int | None = None
        self._lines: dict[int, RunLine] = {}
        self._layout_key: tuple[int, int, int, int] | None = None
        self._row_map = np.zeros(0, dtype=np.int64)
        self._col_map = np.zeros(0, dtype=np.int64)
        self._styles: dict[tuple[int, int], Style] = {}
        self._paint_size = Size(0, 0)
        self._label_line_now = False

    # --- data in -------------------------------------------------------------------------------
    def set_data(self, data: np.ndarray, cmap: Colormap) -> None:
        """New array (rows, cols) and colour map; all columns visible until set_visible()."""
        array = np.asarray(data)
        if array.ndim != 2:
            raise ValueError(f"heatmap data must be 2-D, got shape {array.shape}")
        self._bins = cmap.bins(array)
        if cmap != self._cmap:
            self._styles.clear()
        self._cmap = cmap
        self._visible = array.shape[1]
        self._invalidate()

    def clear(self) -> None:
        self._bins = None
        self._invalidate()

    def set_visible(self, columns: int, *, from_end: bool = False) -> None:
        """Show the first ``columns`` data columns (the last ones if ``from_end``); cheap."""
        columns = max(0, int(columns))
        if (columns, from_end) != (self._visible, self._from_end):
            self._visible = columns
            self._from_end = from_end
            self.refresh()

    def set_labels(self, labels: str | Sequence[str]) -> None:
        """One label per data column (the input's characters, or its words), drawn under the map
        if it fits; a word is cut where the next column starts."""
        labels = labels if isinstance(labels, str) else tuple(labels)
        if labels != self._labels:
            self._labels = labels
            self._invalidate()

    def set_cursor(self, row: int | None) -> None:
        """Mark one data row (a unit) in the left gutter."""
        if row != self._cursor:
            self._cursor = row
            self._invalidate()

    @property
    def shape(self) -> tuple[int, int]:
        return (0, 0) if self._bins is None else tuple(self._bins.shape)  # type: ignore[return-value]

    # --- drawing -------------------------------------------------------------------------------
    def _invalidate(self) -> None:
        self._lines.clear()
        self._layout_key = None
        self.refresh()

    def on_resize(self) -> None:
        self._invalidate()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        rows = self.shape[0]
        return max(1, (rows + 1) // 2)

    def _label_line(self, width: int, height: int) -> bool:
        cols = self.shape[1]
        return bool(self._labels) and 0 < cols <= width - 1 and height > 2

    def _layout(self) -> None:
        width, height = self._paint_size
        self._label_line_now = self._label_line(width, height)
        height -= int(self._label_line_now)
        rows, cols = self.shape
        key = (width, height, rows, cols)  # height excludes the label line
        if key == self._layout_key:
            return
        self._layout_key = key
        plot_width = max(0, width - 1)  # one gutter column for the cursor
        self._row_map = _index_map(rows, 2 * height, whole=True)
        self._col_map = _index_map(cols, plot_width, whole=bool(self._labels))
        self._lines.clear()

    def _style_of(self, key: tuple[int, int]) -> Style:
        """The style of a cell whose top and bottom halves have colour bins ``key`` (-1: none)."""
        style = self._styles.get(key)
        if style is None:
            top, bottom = key
            cmap = self._cmap
            fg = cmap.color(top) if top >= 0 else None
            bg = cmap.color(bottom) if bottom >= 0 else None
            style = Style(color=fg, bgcolor=bg)
            self._styles[key] = style
        return style

    def _runs(self, y: int) -> RunLine:
        """Line y over every column (cached until the data or the size changes)."""
        runs = self._lines.get(y)
        if runs is not None:
            return runs
        bins = self._bins
        n_half = len(self._row_map)
        top_i, bottom_i = 2 * y, 2 * y + 1
        if bins is None or top_i >= n_half:
            runs = RunLine([], [])
        else:
            cols = self._col_map
            top = bins[self._row_map[top_i], cols].tolist()
            if bottom_i < n_half:
                keys = list(zip(top, bins[self._row_map[bottom_i], cols].tolist(), strict=True))
            else:
                keys = [(t, -1) for t in top]
            runs = RunLine.from_cells(UPPER_HALF * len(keys), keys, self._style_of)
        self._lines[y] = runs
        return runs

    def _gutter(self, y: int) -> Segment:
        if self._cursor is not None and len(self._row_map):
            rows_here = self._row_map[2 * y : 2 * y + 2]
            if self._cursor in rows_here.tolist():
                return CURSOR_SEGMENT
        return BLANK_SEGMENT

    def _labels_strip(self) -> Strip:
        cols = self._col_map
        chars = [" "] * len(cols)
        last = -1
        starts = [x for x, index in enumerate(cols.tolist()) if x == 0 or cols[x - 1] != index]
        for k, x in enumerate(starts):
            index = int(cols[x])
            if index == last or index >= len(self._labels):
                continue
            label = self._labels[index]
            label = "·" if label == " " else label
            end = starts[k + 1] - 1 if k + 1 < len(starts) else len(cols)  # a space between words
            room = max(1, end - x)
            for j, ch in enumerate(label[:room]):
                chars[x + j] = ch
            last = index
        return Strip([Segment(" "), Segment("".join(chars), Style(color="#9e9e9e"))])

    def render_lines(self, crop: Region) -> list[Strip]:
        # Size and layout once per paint, not per line (``size`` walks the DOM).
        self._paint_size = self.size
        self._layout()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width, height = self._paint_size
        if self._label_line_now and y == height - 1:
            return self._labels_strip().extend_cell_length(width)
        n = len(self._col_map)
        runs = self._runs(y)
        if not runs.length:
            return Strip.blank(width)
        # Columns whose time step is not reached yet stay blank.
        cols = self._col_map
        if self._from_end:
            first = self.shape[1] - self._visible
            start = int(np.searchsorted(cols, first, side="left")) if n else 0
            segments = [self._gutter(y)]
            if start:
                segments.append(Segment(" " * start))
            segments += runs.cells(start, n)
            used = 1 + n
        else:
            shown = min(n, int(np.searchsorted(cols, self._visible, side="left")) if n else 0)
            segments = [self._gutter(y), *runs.cells(0, shown)]
            used = 1 + shown
        if used < width:
            segments.append(Segment(" " * (width - used)))
        return Strip(segments, max(width, used))
