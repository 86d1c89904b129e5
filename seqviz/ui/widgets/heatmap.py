"""Heatmap drawn with Textual's line API: two data rows per line, unit and time-step ticks."""

from __future__ import annotations

from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from itertools import count

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from seqviz.ui.compat_textual import DirectLines, content_size, refresh_lines
from seqviz.ui.widgets.axes import TIME_STEPS, UNIT_STEPS, axis_ticks, cell_of
from seqviz.ui.widgets.colormap import Colormap, diverging
from seqviz.ui.widgets.kept import KeptLines
from seqviz.ui.widgets.runs import RunLine

UPPER_HALF = "▀"
CURSOR = "▸"
CURSOR_SEGMENT = Segment(CURSOR, Style(color="#ffd54f", bold=True))
BLANK_SEGMENT = Segment(" ")
TICK_STYLE = Style(color="#9e9e9e")
MIN_PLOT = 8  # narrower than this, the unit labels give their columns back to the map
HALF = 1 << 16  # colour bins are int16: a cell's style key is top * HALF + bottom + 1
STRIP_CACHE = 1024  # drawn lines kept per heatmap (line, edge); a replay draws none anew
RUNS_MADE = 20_000  # run segments kept for reuse by (colour key, length): RunLine.repeated_lines
KEEP_DATA = 8  # data sets whose colour bins a heatmap keeps (a walk through the six gates models)
_TOKENS = count(1)  # names a kept data set in the kept lines' key


def gutter_width(width: int, label_width: int, axes: bool = True) -> int:
    """Cells left of a heatmap's map: unit labels (when the map keeps MIN_PLOT columns), then the
    cursor column. Views that align text under a heatmap's columns use it too."""
    return 1 + label_width if axes and width - 1 - label_width >= MIN_PLOT else 1


def _index_map(n_data: int, n_cells: int, whole: bool = False) -> np.ndarray:
    """Data index for each cell, nearest sample; ``whole`` upsamples by whole repeats only."""
    if n_data <= 0 or n_cells <= 0:
        return np.zeros(0, dtype=np.int64)
    if whole and n_data <= n_cells:
        return np.repeat(np.arange(n_data), n_cells // n_data)
    return (np.arange(n_cells) * n_data // n_cells).astype(np.int64)


class Heatmap(KeptLines, DirectLines, Widget):
    """A (rows x columns) array as coloured half-blocks; columns past ``visible`` stay blank.

    Rows are units, columns are time steps. The left gutter labels units (a label names one of the
    units its line shows) and marks the cursor unit (its line names that unit); the last line
    labels time steps, each number starting at the column of its step. Both give way on small
    screens: the unit labels when the map would be narrower than MIN_PLOT, the step line when the
    map would have fewer than three lines (four under a line of words). Each line's coloured
    runs are built once per data or size change (``RunLine``); a frame only cuts the revealed
    columns out of them, so animating costs a bisect and a handful of segments per line.

    Data shown again (a view switching between two models and back) finds its colour bins and
    its drawn lines kept (``KEEP_DATA`` data sets, ``KeptLines``): what is drawn depends only on
    the data, the colour map, the labels, axes, cursor, shown columns, size and styles, all in
    the key.
    """

    TRUECOLOR = True  # colour maps, ticks and cursor are hex colours (DirectLines)

    DEFAULT_CSS = """
    Heatmap {
        width: 1fr;
        height: 1fr;
        min-height: 2;
    }
    """

    def __init__(self, *, axes: bool = True, id: str | None = None,
                 classes: str | None = None) -> None:  # fmt: skip
        super().__init__(id=id, classes=classes)
        self.axes = axes
        self._x_values: np.ndarray | None = None  # (cols,) what each column is called; None: 1..T
        self._y_values: np.ndarray | None = None  # (rows,) what each row is called; None: 0..d-1
        self._x_name = "t"
        self._gutter_width = 1
        self._y_labels: dict[int, str] = {}  # line -> unit label
        self._x_ticks: list[tuple[int, int]] = []  # (cell in the map, value)
        self._tick_line_now = False
        self._bins: np.ndarray | None = None  # (rows, cols) int16 colour bins
        self._cmap: Colormap = diverging()
        self._visible = 0
        self._from_end = False
        self._labels: str | tuple[str, ...] = ""
        self._cursor: int | None = None
        self._lines: dict[int, RunLine] = {}
        self._gutters: dict[int, list[Segment]] = {}  # line -> its label and cursor segments
        self._strips: dict[tuple[int, int, bool], Strip] = {}  # (line, edge, from end) -> drawn
        self._edge_now: int | None = None  # _edge() until the columns or the layout change
        self._layout_key: tuple[int, int, int, int] | None = None
        self._row_map = np.zeros(0, dtype=np.int64)
        self._col_map = np.zeros(0, dtype=np.int64)
        self._col_list: list[int] = []  # _col_map as a list (_edge bisects it)
        self._styles: dict[int, Style] = {}  # _style_of's key -> style
        self._runs_made: dict[int, Segment] = {}  # run code (RunLine.repeated_lines) -> segment
        self._paint_size = Size(0, 0)
        self._label_line_now = False
        # (shape, dtype, bytes, colour map) of data shown -> (token, its colour bins)
        self._kept_data: OrderedDict[Hashable, tuple[int, np.ndarray]] = OrderedDict()
        self._token = 0  # the data set shown (0: none)
        self._axes_token = 0  # changes with each set_axes

    # --- data in -------------------------------------------------------------------------------
    def set_data(self, data: np.ndarray, cmap: Colormap) -> None:
        """New array (rows, cols) and colour map; all columns visible until set_visible()."""
        array = np.asarray(data)
        if array.ndim != 2:
            raise ValueError(f"heatmap data must be 2-D, got shape {array.shape}")
        old, bins = self._bins, self._binned(array, cmap)
        self._bins = bins
        same = old is not None and old.shape == bins.shape
        recolored = cmap != self._cmap
        if recolored:
            self._styles.clear()
            self._runs_made.clear()
        self._cmap = cmap
        visible, self._visible = self._visible, array.shape[1]
        if not same or visible != self._visible or self._shown_edge() is None:
            self._invalidate()
            return
        if recolored:  # every map line in new colours, in the same layout (no new ticks)
            self._lines.clear()
            self._strips.clear()
            refresh_lines(self)
            return
        # New values in the same layout (a live run's next result): repaint only the map lines
        # that show a data row whose colours changed.
        assert old is not None
        rows = np.flatnonzero((old != bins).any(axis=1))
        if 2 * len(rows) > len(bins):  # most of the map (another model): its lines afresh
            self._lines.clear()
            self._strips.clear()
            # Whole lines, their unchanged gutter too: a line sent whole is encoded as it is,
            # where one cut after its gutter was first taken apart cell by cell (span_cells).
            refresh_lines(self, Region(0, 0, self._paint_size.width, self._map_lines()))
            return
        lines = np.unique(np.flatnonzero(np.isin(self._row_map, rows)) // 2).tolist()
        for y in lines:
            self._lines.pop(y, None)
        if lines:
            changed = set(lines)
            self._strips = {k: v for k, v in self._strips.items() if k[0] not in changed}
            width = max(0, self._paint_size.width - self._gutter_width)
            refresh_lines(self, *(Region(self._gutter_width, y, width, 1) for y in lines))

    def _binned(self, array: np.ndarray, cmap: Colormap) -> np.ndarray:
        """The colour bins of ``array`` (# (rows, cols)), kept for the last KEEP_DATA data sets;
        sets the token that names them in the kept lines' key."""
        key = (array.shape, array.dtype.str, array.tobytes(), cmap)
        kept = self._kept_data.get(key)
        if kept is None:
            kept = self._kept_data[key] = (next(_TOKENS), cmap.bins(array))
            if len(self._kept_data) > KEEP_DATA:
                self._kept_data.popitem(last=False)
        else:
            self._kept_data.move_to_end(key)
        self._token = kept[0]
        return kept[1]

    def forget_kept(self) -> None:
        """Also the kept colour bins of the data sets shown before (the one shown stays)."""
        super().forget_kept()
        self._kept_data.clear()

    def kept_key(self) -> Hashable:
        """Everything the lines show besides the size and styles (KeptLines adds those): the
        data, colours, labels, axes, cursor and shown columns, and the background the direct
        path blends with."""
        return (self._token, self._cmap, self._labels, self._cursor, self._visible,
                self._from_end, self.axes, self._axes_token, self._direct_background())  # fmt: skip

    def clear(self) -> None:
        self._bins = None
        self._token = 0
        self._invalidate()

    def set_visible(self, columns: int, *, from_end: bool = False) -> None:
        """Show the first ``columns`` data columns (the last ones if ``from_end``); cheap."""
        columns = max(0, int(columns))
        if (columns, from_end) == (self._visible, self._from_end):
            return
        before = self._shown_edge()
        self._visible = columns
        self._from_end = from_end
        self._edge_now = None
        after = self._shown_edge()
        if before is None or after is None or before[1] != after[1]:
            self.refresh()
            return
        # Only the map's cells between the old and the new edge change (not the gutter, the
        # step numbers or the labels): an animation frame repaints those columns alone.
        lo, hi = sorted((before[0], after[0]))
        if hi > lo:
            refresh_lines(self, Region(self._gutter_width + lo, 0, hi - lo, self._map_lines()))

    def _shown_edge(self) -> tuple[int, bool] | None:
        """The map cell where the shown columns end (from the end: start), in the last paint's
        layout, and whether from the end; None before the first paint or after a resize."""
        if self._layout_key is None or self._paint_size != content_size(self):
            return None
        return self._edge(), self._from_end

    def _map_lines(self) -> int:
        """Lines that show data (the step and label lines below them do not follow the edge)."""
        return (len(self._row_map) + 1) // 2

    def _edge(self) -> int:
        """The map cell where the shown columns end (from the end: where they start)."""
        if self._edge_now is None:
            cols, n = self._col_list, len(self._col_list)  # sorted: a bisect, not a NumPy call
            if not n:
                self._edge_now = 0
            elif self._from_end:
                self._edge_now = bisect_left(cols, self.shape[1] - self._visible)
            else:
                self._edge_now = min(n, bisect_left(cols, self._visible))
        return self._edge_now

    def set_labels(self, labels: str | Sequence[str]) -> None:
        """One label per data column (the input's characters, or its words), drawn under the map
        if it fits; a word is cut where the next column starts."""
        labels = labels if isinstance(labels, str) else tuple(labels)
        if labels != self._labels:
            self._labels = labels
            self._invalidate()

    def set_axes(self, x: Sequence[int] | np.ndarray | None = None,
                 y: Sequence[int] | np.ndarray | None = None,
                 x_name: str = "t") -> None:  # fmt: skip
        """What the columns and rows are called (default: time steps 1..T and units 0..d-1),
        e.g. word positions, or the unit numbers of a ranking; ``x_name`` heads the step line."""
        self._x_values = None if x is None else np.asarray(x, dtype=np.int64)
        self._y_values = None if y is None else np.asarray(y, dtype=np.int64)
        self._x_name = x_name
        self._axes_token = next(_TOKENS)
        self._invalidate()

    def set_cursor(self, row: int | None) -> None:
        """Mark one data row (a unit) in the left gutter."""
        if row == self._cursor:
            return
        before = self._cursor_line()
        self._cursor = row
        if self._shown_edge() is None:  # not painted at this size yet
            self._invalidate()
            return
        # Only the gutter of the old and the new cursor line changes: the colour runs stay, and
        # the drawn lines (each holds its gutter) are drawn again from them.
        lines = [y for y in {before, self._cursor_line()} if y is not None]
        for y in lines:
            self._gutters.pop(y, None)  # these two gutters change
        self._strips.clear()
        self.refresh(*(Region(0, y, self._gutter_width, 1) for y in lines))

    def _cursor_line(self) -> int | None:
        """The line that marks the cursor, in the last paint's layout (None: none)."""
        if self._cursor is None or not len(self._row_map):
            return None
        return int(cell_of(self._row_map[0::2], self._cursor))

    @property
    def shape(self) -> tuple[int, int]:
        return (0, 0) if self._bins is None else tuple(self._bins.shape)  # type: ignore[return-value]

    # --- drawing -------------------------------------------------------------------------------
    def _invalidate(self) -> None:
        self._lines.clear()
        self._strips.clear()
        self._edge_now = None
        self._layout_key = None
        self.refresh()

    def on_resize(self) -> None:
        # Lines are built per size (``_layout``). A new widget gets its Resize after its first
        # paint at that size; drawing it all again then only delayed the app's first frame.
        if self.size != self._paint_size:
            self._invalidate()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        lines = max(1, (self.shape[0] + 1) // 2)
        words = bool(self._labels) and lines >= 2
        return lines + int(words) + int(self.axes and lines >= 3)

    def _axis_values(self) -> tuple[np.ndarray, np.ndarray]:
        """(x values per column, y values per row) for the current data."""
        rows, cols = self.shape
        x, y = self._x_values, self._y_values
        x = x if x is not None and len(x) == cols else np.arange(1, cols + 1)
        y = y if y is not None and len(y) == rows else np.arange(rows)
        return x, y

    def _layout(self) -> None:
        width, height = self._paint_size
        rows, cols = self.shape
        key = (width, height, rows, cols)
        if key == self._layout_key:
            return
        self._layout_key = key
        x_values, y_values = self._axis_values()
        label_width = max((len(str(int(v))) for v in y_values), default=0)
        self._gutter_width = gutter_width(width, label_width, self.axes and rows > 0)
        units = self._gutter_width > 1
        plot_width = max(0, width - self._gutter_width)
        self._label_line_now = bool(self._labels) and 0 < cols <= plot_width and height > 2
        # Words or characters under the columns already tell them apart: with those, the step
        # line waits for a map of four lines; without, three.
        room = height - self._label_line_now - 1  # map lines left under a step line
        self._tick_line_now = self.axes and cols > 0 and room >= 3 + self._label_line_now
        map_height = height - self._label_line_now - self._tick_line_now
        self._row_map = _index_map(rows, 2 * map_height, whole=True)
        self._col_map = _index_map(cols, plot_width, whole=bool(self._labels))
        self._col_list = self._col_map.tolist()
        self._y_labels = {}
        if units:
            tops = self._row_map[0::2]  # a line shows the units from its top half to the next's
            for line, value in axis_ticks(tops, y_values, gap=2, steps=UNIT_STEPS):
                self._y_labels[line] = str(value).rjust(label_width)
        self._x_ticks = []
        if self._tick_line_now:
            gap = max(len(str(int(v))) for v in x_values) + 1
            self._x_ticks = axis_ticks(self._col_map, x_values, gap=gap, steps=TIME_STEPS,
                                       along=True, limit=plot_width)  # fmt: skip
        self._lines.clear()
        self._gutters.clear()
        self._strips.clear()
        self._edge_now = None

    @property
    def x_ticks(self) -> list[tuple[int, int]]:
        """(column within the map, value) of each step label, as last drawn."""
        return list(self._x_ticks)

    @property
    def y_ticks(self) -> dict[int, str]:
        """Line -> unit label, as last drawn."""
        return dict(self._y_labels)

    @property
    def gutter_width(self) -> int:
        """Cells left of the map's first column (unit labels and the cursor), as last drawn."""
        return self._gutter_width

    def _style_of(self, key: int) -> Style:
        """The style of a cell whose top and bottom halves have colour bins ``key`` = top *
        HALF + bottom + 1 (bottom -1: none)."""
        style = self._styles.get(key)
        if style is None:
            top, bottom = divmod(key, HALF)
            cmap = self._cmap
            fg = cmap.color(top) if top >= 0 else None
            bg = cmap.color(bottom - 1) if bottom >= 1 else None
            style = Style(color=fg, bgcolor=bg)
            self._styles[key] = style
        return style

    def _runs(self, y: int) -> RunLine:
        """Line y over every column (cached until the data or the size changes). A line not
        built yet is built with every other missing map line (new data: all of them), in one
        pass (``RunLine.repeated_lines``)."""
        runs = self._lines.get(y)
        if runs is not None:
            return runs
        bins = self._bins
        n_half = len(self._row_map)
        if bins is None or 2 * y >= n_half:
            runs = self._lines[y] = RunLine([], [])
            return runs
        todo = [line for line in range(y, (n_half + 1) // 2) if line not in self._lines]
        todo += [line for line in range(y) if line not in self._lines]
        lines = np.asarray(todo, dtype=np.int64)  # (lines,)
        cols = self._col_map
        keys = bins[self._row_map[2 * lines]][:, cols].astype(np.int64) * HALF  # (lines, cells)
        paired = 2 * lines + 1 < n_half  # the last line of an odd map has no bottom half
        bottoms = self._row_map[2 * lines[paired] + 1]
        keys[paired] += bins[bottoms][:, cols] + 1
        if len(self._runs_made) > RUNS_MADE:
            self._runs_made.clear()
        built = RunLine.repeated_lines(UPPER_HALF, keys, self._style_of, self._runs_made)
        self._lines.update(zip(todo, built, strict=True))
        return self._lines[y]

    def _gutter(self, y: int) -> list[Segment]:
        """Line y's unit label and cursor mark (a new list: the caller extends it). Every frame
        redraws each map line with its gutter; the gutter is drawn once per layout (``_layout``
        empties it: any change of size, data shape, labels or axes comes through it; a cursor
        move drops the two gutters it changes, ``set_cursor``)."""
        drawn = self._gutters.get(y)
        if drawn is None:
            drawn = self._gutters[y] = self._draw_gutter(y)
        return list(drawn)

    def _draw_gutter(self, y: int) -> list[Segment]:
        segments = []
        if self._gutter_width > 1:
            label = self._y_labels.get(y, "")
            segments.append(Segment(label.rjust(self._gutter_width - 1), TICK_STYLE))
        if self._cursor is not None and len(self._row_map):
            # the line whose units span the cursor's (on a squeezed map it may show another)
            if cell_of(self._row_map[0::2], self._cursor) == y:
                names = self._axis_values()[1]
                if segments and 0 <= self._cursor < len(names):
                    # the cursor's line names the cursor unit, in the cursor's colour
                    name = str(int(names[self._cursor]))
                    label = name.rjust(self._gutter_width - 1)[-(self._gutter_width - 1) :]
                    segments = [Segment(label, CURSOR_SEGMENT.style)]
                return [*segments, CURSOR_SEGMENT]
        return [*segments, BLANK_SEGMENT]

    def _ticks_strip(self) -> Strip:
        """The step line: each number starts under the column of the step it names."""
        plot_width = max(0, self._paint_size.width - self._gutter_width)
        chars = [" "] * plot_width
        for cell, value in self._x_ticks:
            for j, ch in enumerate(str(value)):
                chars[cell + j] = ch
        name = self._x_name[: self._gutter_width - 1].rjust(self._gutter_width - 1) + " "
        return Strip([Segment(name + "".join(chars), TICK_STYLE)])

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
        return Strip([Segment(" " * self._gutter_width), Segment("".join(chars), TICK_STYLE)])

    def render_lines(self, crop: Region) -> list[Strip]:
        # Size and layout once per paint, not per line (``size`` walks the DOM).
        self._paint_size = content_size(self)
        self._layout()
        if crop.width < self._paint_size.width:  # a frame's new columns: a few cells a line,
            return DirectLines.render_lines(self, crop)  # cheaper drawn than kept (KeptLines)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """Line y as this frame shows it: drawn once per revealed edge, then reused (a frame
        that moves the edge back, a replay, redraws no line); any change of data, colours,
        labels, cursor or size empties the cache (``_invalidate``, ``_layout``)."""
        key = (y, -1, False) if self._fixed_line(y) else (y, self._edge(), self._from_end)
        strip = self._strips.get(key)
        if strip is None:
            if len(self._strips) >= STRIP_CACHE:
                self._strips.clear()
            strip = self._strips[key] = self._draw_line(y)
        return strip

    def render_cells(self, y: int, start: int, stop: int) -> Strip:
        """Cells ``start`` to ``stop`` of line y as ``render_line`` draws them, without the rest
        of the line (DirectLines): an animation frame sends only its newly revealed columns,
        and a line of a few segments is cut and encoded for them, not one of the whole map."""
        runs = self._runs(y) if self._layout_key is not None else None
        if runs is None or self._fixed_line(y) or not runs.length:
            return self.render_line(y).crop(start, stop)
        gutter = self._gutter_width
        lo, hi = (self._edge(), len(self._col_map)) if self._from_end else (0, self._edge())
        segments: list[Segment] = []
        if start < gutter:
            segments += Strip(self._gutter(y), gutter).crop(start, min(stop, gutter))
        a, b = max(start, gutter) - gutter, stop - gutter  # map cells
        if a < min(b, lo):  # not shown yet (from the end: the columns before the start)
            segments.append(Segment(" " * (min(b, lo) - a)))
        segments += runs.cells(max(a, lo), min(b, hi))
        if max(a, hi) < b:  # past the shown columns, and past the map
            segments.append(Segment(" " * (b - max(a, hi))))
        return Strip(segments, stop - start)

    def _fixed_line(self, y: int) -> bool:
        """Line y is the step line or the line of labels: the revealed edge does not change it."""
        below = self._paint_size.height - 1 - y
        return 0 <= below < self._tick_line_now + self._label_line_now

    def _draw_line(self, y: int) -> Strip:
        width, height = self._paint_size
        if self._tick_line_now and y == height - 1:
            return self._ticks_strip().extend_cell_length(width)
        if self._label_line_now and y == height - 1 - self._tick_line_now:
            return self._labels_strip().extend_cell_length(width)
        n = len(self._col_map)
        runs = self._runs(y)
        if not runs.length:
            return Strip.blank(width)
        # Columns whose time step is not reached yet stay blank.
        if self._from_end:
            start = self._edge()
            segments = self._gutter(y)
            if start:
                segments.append(Segment(" " * start))
            segments += runs.cells(start, n)
            used = self._gutter_width + n
        else:
            shown = self._edge()
            segments = [*self._gutter(y), *runs.cells(0, shown)]
            used = self._gutter_width + shown
        if used < width:
            segments.append(Segment(" " * (width - used)))
        return Strip(segments, max(width, used))
