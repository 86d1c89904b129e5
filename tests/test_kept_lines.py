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
