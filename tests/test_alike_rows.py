"""AlikeRowsCache (compat_textual) draws a container's lines exactly as Textual's cache does."""

from __future__ import annotations

import pytest
from textual._styles_cache import StylesCache
from textual.geometry import Region

from seqviz.ui.app import SeqvizApp
from seqviz.ui.compat_textual import AlikeRowsCache


def _textuals(widget, crop):
    return StylesCache().render_widget(widget, crop)  # a fresh cache of Textual's own


def _cells(strips):
    return [[(seg.text, seg.style) for seg in strip] for strip in strips]


@pytest.mark.parametrize("size", [(160, 50), (80, 24), (70, 14)])
async def test_containers_draw_what_textuals_cache_draws(size):
    app = SeqvizApp(scene="vanishing")
    async with app.run_test(size=size) as pilot:
        await app.until_ready()
        await pilot.pause()
        widgets = app.screen.walk_children()
        alike = [w for w in widgets if isinstance(w._styles_cache, AlikeRowsCache)]
        assert {w.id for w in alike} >= {"sidebar", "controls", "heat-panel", "grad-panel"}
        for widget in alike:
            if not widget.display:
                continue
            width, height = widget.size
            crops = [Region(0, 0, width, height), Region(1, 2, width - 3, height - 3)]
            for crop in crops:
                widget._styles_cache.clear()
                ours = widget._styles_cache.render_widget(widget, crop)
                assert _cells(ours) == _cells(_textuals(widget, crop)), (widget, crop)
            # Lines marked stale by a refresh, the first inner line among them, are drawn anew.
            widget._styles_cache.set_dirty(Region(0, 1, width, 3))
            full = Region(0, 0, width, height)
            ours = widget._styles_cache.render_widget(widget, full)
            assert _cells(ours) == _cells(_textuals(widget, full)), widget


async def test_a_panel_with_a_subtitle_and_a_changed_title():
    app = SeqvizApp(scene="vanishing")
    async with app.run_test(size=(120, 40)) as pilot:
        await app.until_ready()
        panel = app.query_one("#heat-panel")
        panel.border_subtitle = "below"
        panel.border_title = "a longer title than before"
        await pilot.pause()
        full = Region(0, 0, *panel.size)
        assert _cells(panel._styles_cache.render_widget(panel, full)) == _cells(
            _textuals(panel, full)
        )
        panel.styles.border = ("heavy", "red")  # a restyle draws the inner lines anew
        await pilot.pause()
        assert _cells(panel._styles_cache.render_widget(panel, full)) == _cells(
            _textuals(panel, full)
        )
        # what reaches the screen: the panel's top and bottom lines carry the new texts
        lines = app.screen._compositor.render_strips()
        top, bottom = panel.region.y, panel.region.bottom - 1
        assert "a longer title than before" in lines[top].text
        assert "below" in lines[bottom].text


async def test_a_parameter_panel_that_scrolls():
    app = SeqvizApp(scene="decoding")
    async with app.run_test(size=(80, 16)) as pilot:
        await app.until_ready()
        await pilot.pause()
        panel = app.query_one("#controls")
        assert isinstance(panel._styles_cache, AlikeRowsCache)
        assert panel.show_vertical_scrollbar  # more rows than lines: it scrolls
        for scroll in (0, 3):
            panel.scroll_to(y=scroll, animate=False, immediate=True)
            await pilot.pause()
            full = Region(0, 0, *panel.size)
            ours = panel._styles_cache.render_widget(panel, full)
            assert _cells(ours) == _cells(_textuals(panel, full)), scroll
