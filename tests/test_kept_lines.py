"""Widgets that keep their drawn lines per content (legends, captions) draw what Textual would,
reuse them when the content comes back (a model switch and back), and draw anew for a theme."""

from __future__ import annotations

from textual.containers import Vertical
from textual.geometry import Region
from textual.widget import Widget
from widget_host import Host

from seqviz.ui.views.base import Caption
from seqviz.ui.widgets.colormap import diverging, sequential
from seqviz.ui.widgets.legend import ColorLegend


def _textual(widget: Widget) -> list:
    """The lines Textual itself draws for the widget now (its own caches emptied first)."""
    widget._styles_cache.clear()
    widget._dirty_regions.add(widget.size.region)
    return Widget.render_lines(widget, Region(0, 0, *widget.size))


def _texts(lines: list) -> list[str]:
    return [line.text for line in lines]


async def test_legends_and_captions_keep_their_lines_per_content_and_theme() -> None:
    legend = ColorLegend(id="legend")
    caption = Caption("first caption, long enough to wrap at this width", classes="caption")
    async with Host(Vertical(legend, caption)).run_test(size=(30, 8)) as pilot:
        shows = {
            legend: (lambda: legend.set_map(sequential(0.0, 1.0), "i"),
                     lambda: legend.set_map(diverging(1.0), "h")),
            caption: (lambda: caption.show("first caption, long enough to wrap at this width"),
                      lambda: caption.show("second")),
        }  # fmt: skip
        for widget, (show_a, show_b) in shows.items():
            show_a()
            await pilot.pause()
            first = widget.render_lines(Region(0, 0, *widget.size))
            assert first == _textual(widget)
            show_b()
            await pilot.pause()
            other = widget.render_lines(Region(0, 0, *widget.size))
            assert other == _textual(widget) and _texts(other) != _texts(first)
            show_a()
            await pilot.pause()
            assert widget.render_lines(Region(0, 0, *widget.size)) is first  # kept, not drawn anew
            pilot.app.theme = "textual-light" if pilot.app.theme != "textual-light" else "nord"
            await pilot.pause()
            themed = widget.render_lines(Region(0, 0, *widget.size))
            assert themed is not first and themed == _textual(widget)
            assert themed != first  # the new theme's colours


def _heatmap_lines(heatmap) -> list:
    """The heatmap's lines drawn now from its data, nothing kept (its caches emptied first)."""
    kept = heatmap.__dict__.pop("_kept_lines", None)
    heatmap._lines.clear()
    heatmap._strips.clear()
    heatmap._gutters.clear()
    try:
        return heatmap.render_lines(Region(0, 0, *heatmap.size))
    finally:
        if kept is not None:
            heatmap.__dict__["_kept_lines"] = kept


async def test_a_heatmap_keeps_its_lines_per_data_and_draws_anew_for_a_theme_or_size() -> None:
    import numpy as np

    from seqviz.ui.widgets.heatmap import Heatmap

    rng = np.random.default_rng(0)
    first_data, other_data = rng.uniform(-1, 1, (8, 12)), rng.uniform(0, 1, (8, 12))
    heatmap = Heatmap(id="map")
    async with Host(Vertical(heatmap)).run_test(size=(30, 8)) as pilot:

        async def show(data, cmap):  # type: ignore[no-untyped-def]
            heatmap.set_data(data.copy(), cmap)  # a new array of the same values: kept by value
            heatmap.set_labels("abcdefghijkl")
            heatmap.set_cursor(3)
            await pilot.pause()
            return heatmap.render_lines(Region(0, 0, *heatmap.size))

        first = await show(first_data, diverging(1.0))
        assert _texts(first) == _texts(_heatmap_lines(heatmap)) and first == _heatmap_lines(heatmap)
        other = await show(other_data, sequential(0.0, 1.0))
        assert other == _heatmap_lines(heatmap) and other != first
        again = await show(first_data, diverging(1.0))
        assert again is not None and again == first
        drawn = heatmap._draw_line
        heatmap._draw_line = lambda y: (_ for _ in ()).throw(AssertionError("drawn anew"))
        try:
            assert await show(other_data, sequential(0.0, 1.0)) is other  # kept, not drawn anew
        finally:
            heatmap._draw_line = drawn
        # the same data in another colour map, or at another cursor, is drawn anew
        assert await show(other_data, diverging(1.0)) == _heatmap_lines(heatmap) != other
        pilot.app.theme = "textual-light" if pilot.app.theme != "textual-light" else "nord"
        await pilot.pause()
        themed = await show(first_data, diverging(1.0))
        assert themed is not again and themed == _heatmap_lines(heatmap)
        await pilot.resize_terminal(24, 6)
        await pilot.pause()
        resized = await show(first_data, diverging(1.0))
        assert len(resized[0].text) == 24 and resized == _heatmap_lines(heatmap)


async def test_a_parameter_row_keeps_its_line_per_value_reason_and_focus() -> None:
    from seqviz.scenes import get_scene
    from seqviz.ui.widgets.controls import ParamRow

    scene = get_scene("gates")
    row, other = ParamRow(scene.spec("unit"), 0), ParamRow(scene.spec("seed"), 1)
    async with Host(Vertical(row, other)).run_test(size=(30, 4)) as pilot:
        await pilot.pause()

        async def lines() -> list:
            await pilot.pause()
            crop = Region(0, 0, *row.outer_size)  # as the compositor asks (with the padding)
            drawn = row.render_lines(crop)
            assert row._direct_background() is not None  # drawn without Textual's pass
            row._styles_cache.clear()
            assert drawn == Widget.render_lines(row, crop)  # what Textual draws now
            return drawn

        other.focus()  # the app focused the first row
        plain = await lines()
        row.focus()
        focused = await lines()
        assert focused != plain  # the focused row's arrows and background
        other.focus()
        unfocused = await lines()
        assert unfocused == plain  # drawn anew: a focus change restyles the row
        row.set_value(3)
        assert _texts(await lines()) != _texts(plain)
        row.set_inactive("the model sets it")
        assert _texts(await lines()) != _texts(plain)
        row.set_inactive("")
        row.set_value(0)
        assert await lines() is unfocused  # kept
        for theme in ("textual-light", "nord"):  # the direct path draws each theme as Textual
            pilot.app.theme = theme
            row.focus()
            await lines()
            other.focus()
            await lines()


async def test_a_row_hidden_and_shown_again_draws_from_its_kept_line() -> None:
    """A gates model switch hides and shows up to seven rows: Textual counts each hide and show
    as a style change, which is not one for the row's line (it was drawn anew every time)."""
    from seqviz.scenes import get_scene
    from seqviz.ui.widgets.controls import ParamRow

    scene = get_scene("gates")
    row, other = ParamRow(scene.spec("seed"), 1), ParamRow(scene.spec("unit"), 0)
    async with Host(Vertical(other, row)).run_test(size=(30, 4)) as pilot:
        other.focus()
        await pilot.pause()
        crop = Region(0, 0, *row.outer_size)
        first = row.render_lines(crop)
        for _ in range(2):
            row.display = False
            await pilot.pause()
            row.display = True
            await pilot.pause()
            assert row.render_lines(crop) is first  # kept, not drawn anew
            row._styles_cache.clear()
            assert first == Widget.render_lines(row, crop)  # and what Textual draws now
        row.styles.padding = (0, 2)  # a style that changes the line: drawn anew
        await pilot.pause()
        crop = Region(0, 0, *row.outer_size)
        padded = row.render_lines(crop)
        assert padded is not first and _texts(padded) != _texts(first)
        row._styles_cache.clear()
        assert padded == Widget.render_lines(row, crop)
