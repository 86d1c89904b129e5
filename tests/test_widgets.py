"""Widgets that reveal columns frame by frame: cell runs, heatmaps and line plots."""

from __future__ import annotations

import numpy as np
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
