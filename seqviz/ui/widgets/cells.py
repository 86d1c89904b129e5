"""CellCanvas: a line-API widget drawn from a grid of cells, repainting only the cells that change.

A subclass says what every cell holds (``cells``); ``redraw`` draws the grid again, compares it
with the one on screen and refreshes only the spans of cells that differ. An animation frame that
moves a marker or adds a dot then repaints a few cells instead of the whole widget.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from seqviz.ui.compat_textual import content_size

Cell = tuple[str, Style | None]  # one single-width character and its style


def _changed_span(old: list[Cell], new: list[Cell]) -> tuple[int, int] | None:
    """The first and past-the-last cell where two lines differ (None if equal)."""
    if old == new:
        return None
    n = min(len(old), len(new))
    start = next((x for x in range(n) if old[x] != new[x]), n)
    stop = max(len(old), len(new))
    if len(old) == len(new):
        while stop > start + 1 and old[stop - 1] == new[stop - 1]:
            stop -= 1
    return start, stop


def line_strip(row: list[Cell], width: int, on: Callable[[Style | None], Style]) -> Strip:
    """One line of cells as a strip of runs of equal style, padded to ``width``; ``on`` puts a
    cell's style on the widget's own (its background, for cells that set none; None: blank)."""
    segments: list[Segment] = []
    if row:
        run, style = [row[0][0]], row[0][1]
        for char, cell_style in row[1:]:
            if cell_style is style or cell_style == style:
                run.append(char)
            else:
                segments.append(Segment("".join(run), on(style)))
                run, style = [char], cell_style
        segments.append(Segment("".join(run), on(style)))
    if len(row) < width:
        segments.append(Segment(" " * (width - len(row)), on(None)))
    return Strip(segments, max(width, len(row))).crop(0, width)


class CellCanvas(Widget):
    """A widget whose picture is a grid of cells (see the module docstring)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._grid: list[list[Cell]] | None = None  # (lines, cells) as on screen
        self._grid_size = Size(0, 0)
        self._strips: dict[int, Strip] = {}
        self._base_style = Style()
        self._on: dict[Style | None, Style] = {}  # cell style -> on the widget's style

    def cells(self, width: int, height: int) -> list[list[Cell]]:
        """Every line of the picture for this size (fewer lines: the rest stays blank)."""
        raise NotImplementedError

    def redraw(self) -> None:
        """The picture changed: draw the grid now and repaint only the cells that differ."""
        # the size its last layout gave it: ``size`` looks the widget up in the compositor's
        # map (a tenth of a reveal frame's cost); a stale size only draws a grid _prepare_paint
        # replaces, as that compares with ``size``
        size = content_size(self) if self.is_mounted else Size(0, 0)
        old = self._grid
        if old is None or size != self._grid_size or not size.area:
            self._reset()
            return
        new = self.cells(size.width, size.height)
        if len(new) != len(old):
            self._reset()
            return
        self._grid = new
        regions = []
        for y, (a, b) in enumerate(zip(old, new, strict=True)):
            if a is b:  # a line the new grid shares with the last one (most of a frame's)
                continue
            span = _changed_span(a, b)
            if span is not None:
                self._strips.pop(y, None)
                regions.append(Region(span[0], y, span[1] - span[0], 1))
        if regions:
            self.refresh(*regions)

    def _reset(self) -> None:
        self._grid = None
        self._strips.clear()
        self.refresh()

    def on_resize(self) -> None:
        self._reset()

    def render_lines(self, crop: Region) -> list[Strip]:
        self._prepare_paint()
        return super().render_lines(crop)

    def _prepare_paint(self) -> None:
        """The grid and the base style for this paint (once per paint, before any line)."""
        size = self.size  # once per paint, not per line (it walks the DOM)
        if self._grid is None or size != self._grid_size:
            self._grid = self.cells(size.width, size.height) if size.area else []
            self._grid_size = size
            self._strips.clear()
        base = self.visual_style.rich_style
        if base != self._base_style:  # e.g. a new theme
            self._base_style, self._on = base, {}
            self._strips.clear()

    def _on_base(self, style: Style | None) -> Style:
        combined = self._on.get(style)
        if combined is None:
            base = self._base_style
            # no style: a blank, which shows only the background (as Textual pads a line)
            combined = base + style if style is not None else Style(bgcolor=base.bgcolor)
            self._on[style] = combined
        return combined

    def _row(self, y: int) -> list[Cell]:
        grid = self._grid or []
        return grid[y] if y < len(grid) else []

    def render_line(self, y: int) -> Strip:
        strip = self._strips.get(y)
        if strip is None:
            strip = line_strip(self._row(y), self._grid_size.width, self._on_base)
            self._strips[y] = strip
        return strip

    def render_cells(self, y: int, start: int, stop: int) -> Strip:
        """Cells ``start`` to ``stop`` of line y as ``render_line`` draws them (DirectLines, for
        a subclass that has its path): a new result's few changed cells of a curve are drawn
        and sent without the rest of their line."""
        strip = self._strips.get(y)
        if strip is not None:
            return strip.crop(start, stop)
        return line_strip(self._row(y)[start:stop], stop - start, self._on_base)
