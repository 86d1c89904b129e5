"""CurvePlot (the Training scene's curves): axes, gaps for nan, and cheap growth that stays true."""

from __future__ import annotations

import numpy as np
from textual.geometry import Region
from textual.widget import Widget
from widget_host import Host, drawn

from seqviz.ui.widgets.curves import BRAILLE, CurvePlot
from seqviz.ui.widgets.plots import Series

RED, BLUE = (255, 0, 0), (0, 0, 255)


def _text(widget: Widget) -> list[str]:
    return ["".join(ch for ch, _ in line) for line in drawn(widget)]


def _loss(n: int) -> np.ndarray:
    return 2.0 * np.exp(-np.arange(n) / 300.0) + 0.05 * np.sin(np.arange(n))


def _set(plot: CurvePlot, n: int, extra: list[Series] | None = None) -> None:
    x = np.arange(1.0, n + 1)
    series = [Series("RNN", x, _loss(n), RED), *(extra or [])]
    plot.set_series(series, xlim=(0.0, 1000.0), ylim=(0.01, 10.0))


async def test_axes_ticks_and_label() -> None:
    plot = CurvePlot(log_y=True, xlabel="update", id="p")
    async with Host(plot).run_test(size=(60, 16)) as pilot:
        _set(plot, 400)
        await pilot.pause()
        text = _text(plot)
        labels = [line.split("┤")[0].strip() for line in text if "┤" in line]
        assert labels == ["1e1", "1e0", "1e-1", "1e-2"]  # whole decades, top down
        axis = next(line for line in text if "└" in line)
        numbers = text[text.index(axis) + 1].split()
        assert numbers == ["0", "200", "400", "600", "800", "1000"]
        assert text[-1].strip() == "update"
        # each number sits under its tick mark
        for value in (200, 400):
            col = plot.column_of(value)
            assert axis[col] == "┬"
            assert text[text.index(axis) + 1][col - 1 : col + 2].strip() == str(value)
        assert any(chr(BRAILLE) < ch <= chr(BRAILLE + 255) for line in text for ch in line)


async def test_a_grown_curve_equals_one_drawn_from_scratch_and_changed_only_its_end() -> None:
    grown, fresh = CurvePlot(id="grown"), CurvePlot(id="fresh")
    async with Host(grown, fresh).run_test(size=(60, 30)) as pilot:
        _set(grown, 400)
        await pilot.pause()
        before = drawn(grown)
        _set(grown, 410)
        _set(fresh, 410)
        await pilot.pause()
        after = drawn(grown)
        assert after == drawn(fresh)
        changed = {x for a, b in zip(before, after, strict=True) for x in range(len(a))
                   if a[x] != b[x]}  # fmt: skip
        near = range(grown.column_of(400) - 1, grown.column_of(410) + 2)
        assert changed and changed <= set(near)  # only the new points' columns
        # and the direct path gives what Textual's own line pass gives
        grown._styles_cache.clear()
        assert after == [
            [(ch, seg.style) for seg in line for ch in seg.text]
            for line in Widget.render_lines(grown, Region(0, 0, *grown.size))
        ]


async def test_nan_breaks_the_line_and_markers_show_as_characters() -> None:
    plot = CurvePlot(log_y=True, id="p")
    async with Host(plot).run_test(size=(50, 14)) as pilot:
        x = np.arange(1.0, 101.0)
        y = np.ones(100)
        y[40:60] = np.nan  # a stretch of non-finite losses: no line drawn through it
        bad = Series("nan", x[40:60], np.full(20, 10.0), (255, 0, 255), "x")
        plot.set_series([Series("a", x, y, RED), bad], xlim=(0.0, 100.0), ylim=(0.1, 10.0))
        await pilot.pause()
        text = _text(plot)
        row = next(line for line in text if "1e0" in line)
        inside = row[plot.column_of(45) : plot.column_of(55) + 1]
        assert inside.strip() == ""  # the gap
        assert row[plot.column_of(20)] != " " and row[plot.column_of(80)] != " "
        top = next(line for line in text if "1e1" in line)
        assert top.count("x") >= 5  # the markers sit on the top line
