"""Phase portrait (flow arrows, runs, fixed points) and a labelled grid map, drawn as characters."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from seqviz.ui.widgets.cells import Cell, CellCanvas
from seqviz.ui.widgets.colormap import Colormap

ARROWS = "→↗↑↖←↙↓↘"
STYLES = {
    "flow": Style(color="#5a6472"),
    "flow-fast": Style(color="#8a96a8"),
    "run": Style(color="#6fa8ff"),
    "live": Style(color="#3ee0e0", bold=True),
    "stable": Style(color="#5ec962", bold=True),
    "saddle": Style(color="#ff9a3c", bold=True),
    "unstable": Style(color="#ff5a5a", bold=True),
    "direction": Style(color="#ff9a3c"),
    "now": Style(color="#ffffff", bold=True),
    "axis": Style(color="#8a8a8a"),
}
MARKS = {"stable": "●", "saddle": "○", "unstable": "◎"}


class PhasePortrait(CellCanvas, can_focus=True):
    """A 2-D picture in plane coordinates: arrows of the flow, the run up to a frame, a live
    trail, fixed points (stable filled, saddles hollow with their unstable direction).

    Focusable, so the view's pulse keys reach it (tab moves on to the parameters). The flow,
    the runs' cells and the fixed points are placed once per picture and size; a frame adds the
    run's dots up to the frame and moves the marker, and only the cells that changed repaint."""

    DEFAULT_CSS = """
    PhasePortrait {
        width: 1fr;
        height: 1fr;
        min-height: 6;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._bounds = (-1.0, 1.0, -1.0, 1.0)
        self._flow: np.ndarray | None = None  # (rows, cols, 2)
        self._runs = np.zeros((0, 0, 2))
        self._upto = 0
        self._points = np.zeros((0, 2))
        self._kinds: tuple[str, ...] = ()
        self._dirs = np.zeros((0, 2))
        self._trail = np.zeros((0, 2))
        self._now: np.ndarray | None = None
        self._labels = ("x", "y")
        self._base: list[list[Cell]] = []  # (h, w) the flow, per picture and size
        self._base_size: tuple[int, int] | None = None
        self._run_cells: list[list[tuple[int, int, int]]] = []  # per run: (row, col, step)
        self._overlay: list[tuple[int, int, Cell]] = []  # directions, then fixed points
        self._trail_cells: list[tuple[int, int, int]] | None = None

    def set_picture(
        self,
        bounds: Sequence[float],
        flow: np.ndarray,
        run: np.ndarray,  # (runs, T, 2)
        points: np.ndarray,
        kinds: Sequence[str],
        directions: np.ndarray,
        labels: tuple[str, str],
    ) -> None:
        self._bounds = (float(bounds[0]), float(bounds[1]), float(bounds[2]), float(bounds[3]))
        runs = np.asarray(run)
        self._flow, self._runs = flow, runs if runs.ndim == 3 else runs[None]
        self._points, self._kinds, self._dirs = np.asarray(points), tuple(kinds), directions
        self._labels = labels
        self._upto = self._runs.shape[1]
        self._trail = np.zeros((0, 2))
        self._now = None
        self._base_size = None
        self._trail_cells = None
        self.redraw()

    def set_upto(self, count: int) -> None:
        """Draw the run's first `count` states (the state `count - 1` marked as now)."""
        if count != self._upto:
            self._upto = count
            self.redraw()

    def set_live(self, trail: np.ndarray, now: np.ndarray | None) -> None:
        """A live trail (n, 2) after key pulses, ending in the current state `now`."""
        self._trail, self._now = np.asarray(trail).reshape(-1, 2), now
        self._trail_cells = None
        self.redraw()

    # --- drawing ---------------------------------------------------------------------------
    def _cell(self, p: np.ndarray, w: int, h: int) -> tuple[int, int] | None:
        x0, x1, y0, y1 = self._bounds
        if not (np.all(np.isfinite(p)) and x1 > x0 and y1 > y0):
            return None
        c = int(round((p[0] - x0) / (x1 - x0) * (w - 1)))
        r = int(round((y1 - p[1]) / (y1 - y0) * (h - 1)))
        return (r, c) if 0 <= r < h and 0 <= c < w else None

    def _path_cells(self, pts: np.ndarray, w: int, h: int) -> list[tuple[int, int, int]]:
        """The cells of a path, in order: (row, col, index of the point drawn with it); the
        gap of a jump is filled so the path stays connected (a non-finite point breaks it)."""
        out: list[tuple[int, int, int]] = []
        prev: tuple[int, int] | None = None
        for i, p in enumerate(pts):
            cell = self._cell(p, w, h)
            if cell is None:
                prev = None
                continue
            if prev is not None:
                n = max(abs(cell[0] - prev[0]), abs(cell[1] - prev[1]))
                for k in range(1, n):
                    r = prev[0] + round((cell[0] - prev[0]) * k / n)
                    c = prev[1] + round((cell[1] - prev[1]) * k / n)
                    out.append((r, c, i))
            out.append((cell[0], cell[1], i))
            prev = cell
        return out

    def _place(self, w: int, h: int) -> None:
        """What stays put for this picture and size: the flow, the runs' cells, the fixed
        points with their unstable directions."""
        grid: list[list[tuple[str, str]]] = [[(" ", "flow")] * w for _ in range(h)]
        self._draw_flow(grid, w, h)
        self._base = [[(char, STYLES[name]) for char, name in row] for row in grid]
        self._run_cells = [self._path_cells(run, w, h) for run in self._runs]
        x0, x1, y0, y1 = self._bounds
        reach = 0.07 * max(x1 - x0, y1 - y0)
        overlay: list[tuple[int, int, Cell]] = []
        for p, kind, d in zip(self._points, self._kinds, self._dirs, strict=False):
            if kind != "stable" and np.any(d):
                seg = p + np.outer(np.linspace(-reach, reach, 2 * w), d)
                for q in seg:
                    cell = self._cell(q, w, h)
                    if cell is not None:
                        overlay.append((cell[0], cell[1], ("∙", STYLES["direction"])))
        for p, kind in zip(self._points, self._kinds, strict=False):
            cell = self._cell(p, w, h)
            if cell is not None:
                overlay.append((cell[0], cell[1], (MARKS.get(kind, "?"), STYLES[kind])))
        self._overlay = overlay
        self._trail_cells = None
        self._base_size = (w, h)

    def cells(self, width: int, height: int) -> list[list[Cell]]:
        w, h = width, height - 1  # the last line holds the axis labels
        if w < 4 or h < 2:
            return []
        if self._base_size != (w, h):
            self._place(w, h)
        grid = [row[:] for row in self._base]
        upto, run_cell = self._upto, ("·", STYLES["run"])
        for cells in self._run_cells:
            for r, c, i in cells:
                if i >= upto:
                    break
                grid[r][c] = run_cell
        if self._trail_cells is None:
            self._trail_cells = self._path_cells(self._trail, w, h)
        live = ("•", STYLES["live"])
        for r, c, _ in self._trail_cells:
            grid[r][c] = live
        for r, c, cell in self._overlay:
            grid[r][c] = cell
        now = self._now
        if now is None and len(self._runs) and 0 < self._upto <= self._runs.shape[1]:
            now = self._runs[0, self._upto - 1]
        if now is not None:
            at = self._cell(now, w, h)
            if at is not None:
                grid[at[0]][at[1]] = ("◆", STYLES["live" if self._now is not None else "now"])
        axis = STYLES["axis"]
        grid.append([(char, axis) for char in axis_label(self._bounds, self._labels, w - 1)])
        return grid

    def _draw_flow(self, grid: list[list[tuple[str, str]]], w: int, h: int) -> None:
        flow = self._flow
        if flow is None or flow.size == 0:
            return
        rows, cols, _ = flow.shape
        x0, x1, y0, y1 = self._bounds
        speed = np.hypot(flow[..., 0], flow[..., 1])
        finite = speed[np.isfinite(speed)]
        typical = float(np.median(finite)) if finite.size else 0.0
        for r in range(0, h, 2):
            for c in range(1, w, 4):
                fr = min(rows - 1, int(round(r / max(h - 1, 1) * (rows - 1))))
                fc = min(cols - 1, int(round(c / max(w - 1, 1) * (cols - 1))))
                u, v = flow[fr, fc]
                if not (math.isfinite(u) and math.isfinite(v)):
                    continue
                # The cell grid is stretched: scale so a drawn arrow points where the flow goes.
                du = u / (x1 - x0) * w
                dv = v / (y1 - y0) * h
                if math.hypot(du, dv) < 1e-9:
                    grid[r][c] = ("·", "flow")
                    continue
                k = int(round(math.atan2(dv, du) / (math.pi / 4))) % 8
                fast = speed[fr, fc] > typical
                grid[r][c] = (ARROWS[k], "flow-fast" if fast else "flow")


def axis_label(bounds: tuple[float, float, float, float], names: tuple[str, str], room: int) -> str:
    """The portrait's axis line: each axis' name and range, in the longest form that fits in
    ``room`` characters. Forms are dropped whole, never cut: a cut range reads as another
    number ("3.1" cut to "3."), and a line that ran to the edge read on into the panel beside
    it (the fixed points' row 14 made the range's end "3.14")."""
    x0, x1, y0, y1 = (f"{v:.2g}" for v in bounds)
    xs = (f"{x0} … {names[0]} → … {x1}", f"{names[0]} {x0}…{x1}", f"{x0}…{x1}")
    ys = (f"↑ {names[1]} {y0} … {y1}", f"↑ {names[1]} {y0}…{y1}", f"↑ {y0}…{y1}", "")
    for x in xs:
        for y in ys:
            label = f"{x}   {y}" if y else x
            if len(label) <= room:
                return label
    return ""


class GridMap(Widget):
    """A (rows, cols) array as coloured blocks with row and column tick labels."""

    DEFAULT_CSS = """
    GridMap {
        width: 1fr;
        height: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._data: np.ndarray | None = None
        self._cmap: Colormap | None = None
        self._rows: tuple[str, ...] = ()
        self._cols: tuple[str, ...] = ()
        self._upto = 0
        self._marks: set[tuple[int, int]] = set()

    def set_data(
        self,
        data: np.ndarray,
        cmap: Colormap,
        row_labels: Sequence[str],
        col_labels: Sequence[str],
        marks: Sequence[tuple[int, int]] = (),
    ) -> None:
        self._data, self._cmap = np.asarray(data), cmap
        self._rows, self._cols = tuple(row_labels), tuple(col_labels)
        self._upto = self._data.shape[0]
        self._marks = set(marks)
        self.refresh()

    def set_upto(self, rows: int) -> None:
        if rows != self._upto:
            self._upto = rows
            self.refresh()

    def render(self) -> Text:
        if self._data is None or self._cmap is None:
            return Text("")
        data, cmap = self._data, self._cmap
        n_rows, n_cols = data.shape
        gutter = max(len(s) for s in self._rows) + 1
        cell_w = max(1, min(3, (self.size.width - gutter) // max(n_cols, 1)))
        height = max(1, self.size.height - 1)
        step = max(1, math.ceil(n_rows / height))
        # Up to two lines per row when there is room, spread evenly over the height.
        shown = len(range(n_rows - 1, -1, -step))
        total = min(height, 2 * shown) if step == 1 else shown
        bins = cmap.bins(data)
        text = Text(no_wrap=True, overflow="crop")
        # Largest radius on top, like a y axis.
        for k, i in enumerate(range(n_rows - 1, -1, -step)):
            repeat = max(1, (k + 1) * total // shown - k * total // shown)
            for line in range(repeat):
                label = self._rows[i] if line == repeat - 1 else ""
                text.append(label.rjust(gutter - 1) + " ", "dim")
                for j in range(n_cols):
                    if i >= self._upto:
                        text.append(" " * cell_w)
                        continue
                    color = cmap.color(int(bins[i, j]))
                    mark = "◇" if (i, j) in self._marks and line == repeat - 1 else ""
                    text.append(
                        mark.center(cell_w) if mark else " " * cell_w,
                        Style(bgcolor=color, color="white", bold=True),
                    )
                text.append("\n")
        ticks = [" "] * (n_cols * cell_w)
        for j in range(0, n_cols, max(1, 6 // cell_w)):
            label = self._cols[j]
            pos = j * cell_w
            if pos + len(label) <= len(ticks):
                ticks[pos : pos + len(label)] = list(label)
        text.append(" " * gutter + "".join(ticks), "dim")
        return text
