"""Heatmap drawn with Textual's line API: two data rows per line, cached styles and strips."""

from __future__ import annotations

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from seqviz.ui.widgets.colormap import Colormap, diverging

UPPER_HALF = "▀"
CURSOR = "▸"


def _index_map(n_data: int, n_cells: int, whole: bool = False) -> np.ndarray:
    """Data index for each cell, nearest sample; ``whole`` upsamples by whole repeats only."""
    if n_data <= 0 or n_cells <= 0:
        return np.zeros(0, dtype=np.int64)
    if whole and n_data <= n_cells:
        return np.repeat(np.arange(n_data), n_cells // n_data)
    return (np.arange(n_cells) * n_data // n_cells).astype(np.int64)


class Heatmap(Widget):
    """A (rows x columns) array as coloured half-blocks; columns past ``visible`` stay blank.

    Rows are units, columns are time steps. Strips are built once per data/size change and cropped
    per frame, so animation costs a crop and a concatenation per line.
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
        self._labels = ""
        self._cursor: int | None = None
        self._lines: dict[int, Strip] = {}
        self._layout_key: tuple[int, int, int, int] | None = None
        self._row_map = np.zeros(0, dtype=np.int64)
        self._col_map = np.zeros(0, dtype=np.int64)
        self._styles: dict[tuple[int, int], Style] = {}

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

    def set_labels(self, labels: str) -> None:
        """One character per data column (e.g. the input text), drawn under the map if it fits."""
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

    @property
    def _label_line(self) -> bool:
        cols = self.shape[1]
        return bool(self._labels) and 0 < cols <= self.size.width - 1 and self.size.height > 2

    def _layout(self) -> None:
        width, height = self.size
        height -= int(self._label_line)
        rows, cols = self.shape
        key = (width, height, rows, cols)  # height excludes the label line
        if key == self._layout_key:
            return
        self._layout_key = key
        plot_width = max(0, width - 1)  # one gutter column for the cursor
        self._row_map = _index_map(rows, 2 * height, whole=True)
        self._col_map = _index_map(cols, plot_width, whole=bool(self._labels))
        self._lines.clear()

    def _style(self, top: int, bottom: int) -> Style:
        style = self._styles.get((top, bottom))
        if style is None:
            cmap = self._cmap
            fg = cmap.color(top) if top >= 0 else None
            bg = cmap.color(bottom) if bottom >= 0 else None
            style = Style(color=fg, bgcolor=bg)
            self._styles[(top, bottom)] = style
        return style

    def _full_line(self, y: int) -> Strip:
        """Line y with every column drawn (cached until data or size change)."""
        strip = self._lines.get(y)
        if strip is not None:
            return strip
        bins = self._bins
        n_half = len(self._row_map)
        top_i, bottom_i = 2 * y, 2 * y + 1
        if bins is None or top_i >= n_half:
            strip = Strip([])
        else:
            cols = self._col_map
            top = bins[self._row_map[top_i], cols]
            bottom = bins[self._row_map[bottom_i], cols] if bottom_i < n_half else None
            segments: list[Segment] = []
            run_start = 0
            n = len(cols)
            for x in range(1, n + 1):
                if (
                    x == n
                    or top[x] != top[run_start]
                    or (bottom is not None and bottom[x] != bottom[run_start])
                ):
                    b = int(bottom[run_start]) if bottom is not None else -1
                    style = self._style(int(top[run_start]), b)
                    segments.append(Segment(UPPER_HALF * (x - run_start), style))
                    run_start = x
            strip = Strip(segments, n)
        self._lines[y] = strip
        return strip

    def _gutter(self, y: int) -> Segment:
        if self._cursor is not None and len(self._row_map):
            rows_here = self._row_map[2 * y : 2 * y + 2]
            if self._cursor in rows_here.tolist():
                return Segment(CURSOR, Style(color="#ffd54f", bold=True))
        return Segment(" ")

    def _labels_strip(self) -> Strip:
        cols = self._col_map
        chars = [" "] * len(cols)
        last = -1
        for x, index in enumerate(cols.tolist()):
            if index != last and index < len(self._labels):
                ch = self._labels[index]
                chars[x] = "·" if ch == " " else ch
            last = index
        return Strip([Segment(" "), Segment("".join(chars), Style(color="#9e9e9e"))])

    def render_line(self, y: int) -> Strip:
        self._layout()
        width = self.size.width
        if self._label_line and y == self.size.height - 1:
            return self._labels_strip().extend_cell_length(width)
        full = self._full_line(y)
        if not full.cell_length:
            return Strip.blank(width)
        # Columns whose time step is not reached yet stay blank.
        cols = self._col_map
        n = full.cell_length
        if self._from_end:
            first = self.shape[1] - self._visible
            start = int(np.searchsorted(cols, first, side="left")) if len(cols) else n
            parts = [Strip([self._gutter(y)], 1), Strip.blank(start), full.crop(start, n)]
        else:
            shown = int(np.searchsorted(cols, self._visible, side="left")) if len(cols) else 0
            parts = [Strip([self._gutter(y)], 1), full.crop(0, min(shown, n))]
        return Strip.join(parts).extend_cell_length(width)
