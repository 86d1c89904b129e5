"""Heatmap axes: step labels name the columns they stand under, unit labels the lines they mark."""

from __future__ import annotations

import re

import numpy as np
import pytest
from textual.app import App, ComposeResult

from seqviz.ui.widgets.axes import TIME_STEPS, UNIT_STEPS, axis_ticks, cell_of
from seqviz.ui.widgets.colormap import diverging
from seqviz.ui.widgets.heatmap import Heatmap, _index_map


class _Host(App[None]):
    def __init__(self, widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


def _covers(index_map: np.ndarray, cell: int, index: int) -> bool:
    """Whether ``cell`` shows data ``index``, or (a squeezed axis) spans it."""
    end = int(index_map[cell + 1]) if cell + 1 < len(index_map) else len(index_map) + 10**9
    return int(index_map[cell]) == index or int(index_map[cell]) <= index < end


@pytest.mark.parametrize("cols", [1, 7, 35, 60, 100, 250])
@pytest.mark.parametrize("cells", [12, 36, 70, 150])
def test_step_ticks_name_the_columns_they_mark(cols, cells):
    index_map = _index_map(cols, cells, whole=cols <= cells)
    steps = np.arange(1, cols + 1)
    gap = len(str(cols)) + 1
    ticks = axis_ticks(index_map, steps, gap=gap, steps=TIME_STEPS, along=True, limit=cells)
    assert ticks, "an axis with room for a label gets one"
    for cell, value in ticks:
        assert _covers(index_map, cell, value - 1), (cell, value)
        assert cell + len(str(value)) <= cells  # the label fits on the line
    positions = [cell for cell, _ in ticks]
    assert all(b - a >= gap for a, b in zip(positions, positions[1:], strict=False))
    values = [value for _, value in ticks]
    assert values == sorted(values)
    round_ones = [v for v in values if v != 1]
    step = min((b - a for a, b in zip(round_ones, round_ones[1:], strict=False)), default=None)
    if step is not None:
        assert step in TIME_STEPS and all(v % step == 0 for v in round_ones)


def test_a_ranking_is_labelled_by_its_own_names():
    index_map = _index_map(10, 10, whole=True)
    names = np.repeat([7, 3, 9, 1, 4], 2)  # one unit per line, best first
    ticks = axis_ticks(index_map[0::2], names, gap=2, steps=UNIT_STEPS)
    assert ticks == [(0, 7), (2, 9), (4, 4)]
    assert cell_of(index_map, 4) == 4


def _gutter_labels(heatmap: Heatmap, lines: int) -> dict[int, int]:
    width = heatmap.gutter_width
    out = {}
    for y in range(lines):
        text = heatmap.render_line(y).text[: width - 1].strip()
        if text:
            out[y] = int(text)
    return out


async def test_heatmap_axes_as_drawn() -> None:
    data = np.linspace(-1, 1, 16 * 35).reshape(16, 35)  # 16 units x 35 steps
    heatmap = Heatmap()
    async with _Host(heatmap).run_test(size=(60, 12)) as pilot:
        heatmap.set_data(data, diverging(1.0))
        await pilot.pause()
        width, height = heatmap.size
        gutter = heatmap.gutter_width
        assert gutter == 3  # "15" and the cursor column
        tick_line = heatmap.render_line(height - 1).text
        assert tick_line[: gutter - 1].strip() == "t"
        found = [(m.start() - gutter, int(m.group())) for m in re.finditer(r"\d+", tick_line)]
        assert [v for _, v in found][:7] == [1, 5, 10, 15, 20, 25, 30]
        col_map = heatmap._col_map
        for column, step in found:
            assert col_map[column] + 1 == step  # the number starts under its own step's column
        assert found == heatmap.x_ticks
        row_map = heatmap._row_map
        labels = _gutter_labels(heatmap, height - 1)
        assert labels and labels[0] == 0
        for line, unit in labels.items():
            assert unit in row_map[2 * line : 2 * line + 2].tolist()
        heatmap.set_cursor(5)
        await pilot.pause()
        line = next(y for y in range(height) if "▸" in heatmap.render_line(y).text)
        assert heatmap.render_line(line).text[:gutter] == " 5▸"  # the cursor names its unit
        assert 5 in row_map[2 * line : 2 * line + 2].tolist()


@pytest.mark.parametrize(
    ("size", "units", "steps"), [((60, 3), True, False), ((9, 12), False, True)]
)
async def test_heatmap_axes_give_way_on_small_screens(size, units, steps) -> None:
    heatmap = Heatmap()
    async with _Host(heatmap).run_test(size=size) as pilot:
        heatmap.set_data(np.zeros((16, 35)), diverging(1.0))
        await pilot.pause()
        height = heatmap.size.height
        assert (heatmap.gutter_width > 1) == units
        assert bool(heatmap.x_ticks) == steps
        last = heatmap.render_line(height - 1).text
        has_tick_line = "▀" not in last and bool(re.fullmatch(r"[ t]*1[ \d]*", last))
        assert has_tick_line == steps
        assert "▀" in heatmap.render_line(0).text  # the map itself always stays


@pytest.mark.slow
async def test_gates_maps_and_unit_plots_have_real_axes(make_app, ready) -> None:
    from textual.geometry import Region

    from seqviz.ui.widgets.curves import CurvePlot

    for size in ((160, 50), (80, 24)):
        app = make_app("gates", {"model": "random", "text": "the keys to the cabinet are here"})
        async with app.run_test(size=size) as pilot:
            await ready(app, pilot)
            heatmap = app.query_one("#map-0", Heatmap)
            ticks = heatmap.x_ticks
            assert len(ticks) >= 3, size
            col_map = heatmap._col_map
            T = app.result.T
            for cell, step in ticks:
                assert 1 <= step <= T and _covers(col_map, cell, step - 1)
            if size == (160, 50):
                assert [v for _, v in ticks[:3]] == [1, 5, 10]
                assert all(col_map[c] + 1 == v for c, v in ticks)  # a column per step here
                assert heatmap.gutter_width == 3 and heatmap.y_ticks
                plots = {k: app.query_one(f"#unit-{k}", CurvePlot) for k in ("gates", "states")}
                assert [s.label for s in plots["gates"]._series] == ["i", "f", "o"]
                assert [s.label for s in plots["states"]._series] == ["g", "c", "h"]
                assert plots["gates"]._ylim == (0.0, 1.0)
                size = plots["gates"].size
                lines = [line.text for line in plots["gates"].render_lines(Region(0, 0, *size))]
                y_labels = [m.group(1) for line in lines if (m := re.match(r"\s*([\d.]+)┤", line))]
                assert y_labels == ["1", "0.5", "0"]


async def test_the_cursor_stays_marked_on_a_squeezed_map() -> None:
    heatmap = Heatmap()
    async with _Host(heatmap).run_test(size=(40, 4)) as pilot:
        heatmap.set_data(np.zeros((16, 35)), diverging(1.0))  # 16 units on 4 lines
        heatmap.set_cursor(5)  # drawn rows skip unit 5; its line spans units 4 to 7
        await pilot.pause()
        marked = [y for y in range(4) if "▸" in heatmap.render_line(y).text]
        assert marked == [1]
        assert heatmap.render_line(1).text.startswith(" 5▸")
