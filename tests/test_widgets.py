"""Widgets that reveal columns frame by frame: cell runs, heatmaps and line plots."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult

from seqviz.ui.widgets.colormap import diverging
from seqviz.ui.widgets.heatmap import UPPER_HALF, Heatmap
from seqviz.ui.widgets.plots import SeriesPlot
from seqviz.ui.widgets.runs import RunLine, joined
from seqviz.ui.widgets.series import Series

STYLES = [Style(color="red"), Style(color="blue"), None]


def _text(segments: list[Segment]) -> str:
    return "".join(s.text for s in segments)


@given(
    keys=st.lists(st.integers(0, 2), min_size=0, max_size=40),
    start=st.integers(-3, 45),
    stop=st.integers(-3, 45),
)
def test_run_cells_equal_slicing_the_cells(keys: list[int], start: int, stop: int) -> None:
    chars = "".join(chr(ord("a") + i % 26) for i in range(len(keys)))
    line = RunLine.from_cells(chars, keys, lambda k: STYLES[k])
    cut = line.cells(start, stop)
    lo = max(0, start)
    hi = max(lo, min(stop, len(keys)))
    assert _text(cut) == chars[lo:hi]
    # every cell keeps its own style
    styles = [seg.style for seg in cut for _ in seg.text]
    assert styles == [STYLES[k] for k in keys[lo:hi]]
    # runs stay maximal: neighbours differ in style
    whole = line.cells(0, len(keys))
    assert all(a.style != b.style for a, b in zip(whole, whole[1:], strict=False))


@given(keys=st.lists(st.integers(0, 2), min_size=0, max_size=40))
def test_runs_found_by_numpy_equal_the_runs_found_cell_by_cell(keys: list[int]) -> None:
    import numpy as np

    line = RunLine.repeated("x", np.array(keys, dtype=np.int64), lambda k: STYLES[k])
    reference = RunLine.from_cells("x" * len(keys), keys, lambda k: STYLES[k])
    assert line.cells(0, len(keys)) == reference.cells(0, len(keys))
    assert line.length == len(keys)


@given(
    lines=st.lists(
        st.lists(st.integers(0, 40), min_size=1, max_size=30), min_size=1, max_size=6
    ),  # fmt: skip
    width=st.integers(0, 30),
)
def test_runs_of_all_lines_at_once_equal_the_runs_of_each_line(lines, width) -> None:
    import numpy as np

    keys = np.array([(line * 30)[:width] for line in lines], dtype=np.int64)
    keys = keys.reshape(len(lines), width)
    styles = {k: Style(color=f"color({k})") for k in range(41)}
    made: dict = {}
    built = RunLine.repeated_lines("▀", keys, styles.get, made)
    assert len(built) == len(lines)
    for row, line in zip(keys, built, strict=True):
        reference = RunLine.repeated("▀", row, styles.get)
        assert line.cells(0, width) == reference.cells(0, width)
        assert line._ends == reference._ends and line.length == width
    again = RunLine.repeated_lines("▀", keys, styles.get, made)  # the same segments, reused
    assert all(a._segments == b._segments for a, b in zip(built, again, strict=True))
    assert all(x is y for a, b in zip(built, again, strict=True)
               for x, y in zip(a._segments, b._segments, strict=True))  # fmt: skip


def _heatmap_lines_one_by_one(heatmap: Heatmap) -> list[list[Segment]]:
    """What the heatmap's map lines were before all lines were built in one pass: each line's
    keys and runs on its own (RunLine.repeated)."""
    from seqviz.ui.widgets.heatmap import HALF

    out = []
    bins, rows, cols = heatmap._bins, heatmap._row_map, heatmap._col_map
    for y in range((len(rows) + 1) // 2):
        keys = bins[rows[2 * y], cols].astype(np.int64) * HALF
        if 2 * y + 1 < len(rows):
            keys += bins[rows[2 * y + 1], cols] + 1
        out.append(RunLine.repeated(UPPER_HALF, keys, heatmap._style_of).cells(0, len(cols)))
    return out


@pytest.mark.parametrize("shape", [(7, 13), (64, 60), (5, 1)])
def test_heatmap_lines_built_together_equal_lines_built_one_by_one(shape) -> None:
    from seqviz.ui.widgets.heatmap import _index_map

    rng = np.random.default_rng(sum(shape))
    data = rng.normal(size=shape)
    data[0, 0], data[-1, -1] = np.inf, np.nan
    for height, width in ((3, 20), (17, 90), (40, 7)):
        heatmap = Heatmap()
        heatmap._bins = heatmap._binned(data, diverging(1.5))
        heatmap._cmap = diverging(1.5)
        heatmap._row_map = _index_map(shape[0], 2 * height, whole=True)  # odd counts too
        heatmap._col_map = _index_map(shape[1], width)
        n = (len(heatmap._row_map) + 1) // 2
        built = [heatmap._runs(y).cells(0, width) for y in (n // 2, *range(n))]
        assert built[1:] == _heatmap_lines_one_by_one(heatmap)
        # a partial update (a live run's next result) rebuilds only the lines it dropped
        kept = {y: heatmap._lines[y] for y in range(n)}
        heatmap._bins = heatmap._binned(-data, diverging(1.5))
        dropped = list(range(0, n, 2))
        for y in dropped:
            heatmap._lines.pop(y)
        rebuilt = [heatmap._runs(y).cells(0, width) for y in range(n)]
        assert all(heatmap._lines[y] is kept[y] for y in range(n) if y not in dropped)
        fresh = _heatmap_lines_one_by_one(heatmap)
        assert [rebuilt[y] for y in dropped] == [fresh[y] for y in dropped]


def test_joined_merges_a_seam_of_one_style_only() -> None:
    red, blue = Style(color="red"), Style(color="blue")
    merged = joined([Segment("ab", blue), Segment("cd", red)], [Segment("ef", red)])
    assert merged == [Segment("ab", blue), Segment("cdef", red)]
    kept = joined([Segment("ab", red)], [Segment("cd", blue)])
    assert kept == [Segment("ab", red), Segment("cd", blue)]


class _Host(App):
    def __init__(self, widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


async def test_heatmap_shows_only_the_revealed_columns() -> None:
    data = np.linspace(-1, 1, 4 * 10).reshape(4, 10)
    heatmap = Heatmap()
    async with _Host(heatmap).run_test(size=(22, 4)) as pilot:
        heatmap.set_data(data, diverging(1.0))
        await pilot.pause()
        width = heatmap.size.width
        gutter = heatmap.gutter_width
        assert gutter == 2  # the unit label column and the cursor column
        for visible in (0, 3, 10):
            heatmap.set_visible(visible)
            await pilot.pause()
            line = heatmap.render_line(0)
            assert line.cell_length == width
            # the gutter, then two cells per time step (20 cells for 10 steps)
            assert line.text[gutter:].rstrip(" ") == UPPER_HALF * (2 * visible)
        heatmap.set_visible(3, from_end=True)
        await pilot.pause()
        text = heatmap.render_line(0).text
        assert text[gutter:] == " " * 14 + UPPER_HALF * 6


async def test_heatmap_cursor_marks_its_unit_row() -> None:
    heatmap = Heatmap()
    async with _Host(heatmap).run_test(size=(12, 3)) as pilot:
        heatmap.set_data(np.zeros((6, 5)), diverging(1.0))
        heatmap.set_cursor(3)  # three lines of two half-cells: rows 2 and 3 share line 1
        await pilot.pause()
        marks = [heatmap.render_line(y).text[heatmap.gutter_width - 1] for y in range(3)]
        assert marks == [" ", "▸", " "]


def _plot_text(lines) -> list[str]:
    return [line.text for line in lines]


async def test_plot_mid_animation_matches_a_plot_of_the_first_points() -> None:
    """A frame is cut from the full picture and the empty one; apart from the column of the
    newest point (where the next segment may start) it equals plotting the first points."""
    k = np.arange(1, 41, dtype=float)
    series = [
        Series("a", k, 0.9**k, (255, 0, 0)),
        Series("b", k, 1.05**k, (0, 0, 255)),
    ]
    plot = SeriesPlot(log_y=True, xlabel="k")
    async with _Host(plot).run_test(size=(70, 18)) as pilot:
        plot.set_series(series)
        await pilot.pause()
        width, height = plot.size
        full = plot._picture(None, width, height)
        for upto in (0, 1, 7, 20, 39):
            plot.set_upto(upto)
            cut = plot._reveal_column(full.canvas, upto)
            shown = _plot_text(plot._lines(width, height))
            picture = plot._picture(upto, width, height)
            exact = [_text(line.cells(0, width)) for line in picture.lines]
            assert len(shown) == len(exact)
            for got, want in zip(shown, exact, strict=True):
                assert got[: cut - 1] == want[: cut - 1]
                assert got[cut:] == want[cut:]
        # the newest point's column moves right as points are added
        columns = [plot._reveal_column(full.canvas, n) for n in range(1, 41)]
        assert columns == sorted(columns) and columns[0] < columns[-1]


async def test_plot_with_all_points_is_the_full_picture() -> None:
    k = np.arange(1, 11, dtype=float)
    plot = SeriesPlot(log_y=False)
    async with _Host(plot).run_test(size=(50, 12)) as pilot:
        plot.set_series([Series("a", k, np.sin(k), (0, 200, 0))])
        plot.set_upto(10)
        await pilot.pause()
        width, height = plot.size
        full = [_text(line.cells(0, width)) for line in plot._picture(None, width, height).lines]
        assert _plot_text(plot._lines(width, height)) == full
        assert any(ch in "".join(full) for ch in "▀▄▌▐▖▗▘▝")  # the curve is drawn
