"""compat_textual marks a widget's regions stale for a repaint as Widget._set_dirty does."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widgets import Static

from seqviz.ui.compat_textual import _mark_stale

CSS = """
#plain { height: 5; }
#padded { height: 6; padding: 1 2; border: round red; }
#scroll { height: 6; padding: 0 1 1 3; border: tall blue; scrollbar-gutter: stable; }
#both { height: 6; width: 20; overflow: scroll scroll; padding: 2 0 0 1; }
"""


class _Host(App):
    CSS = CSS

    def compose(self) -> ComposeResult:
        yield Static("a", id="plain")
        yield Static("b", id="padded")
        yield VerticalScroll(Static("c\\n" * 40), id="scroll")
        yield VerticalScroll(Static("d" * 200 + "\\n" * 40), id="both")


def _state(widget: object) -> tuple:
    cache = widget._styles_cache  # type: ignore[attr-defined]
    return (set(widget._dirty_regions), set(widget._repaint_regions),  # type: ignore[attr-defined]
            set(cache._dirty_lines))  # fmt: skip


async def test_marked_regions_are_textuals_with_padding_borders_and_scrollbars() -> None:
    regions = (Region(0, 0, 3, 1), Region(2, 1, 5, 2), Region(1, 3, 1, 1))
    async with _Host().run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        seen = set()
        for name in ("plain", "padded", "scroll", "both"):
            widget = pilot.app.query_one(f"#{name}")
            seen.add(widget.content_offset)
            for marks in ((regions[0],), regions):
                for clear in (widget._dirty_regions, widget._repaint_regions,
                              widget._styles_cache._dirty_lines):  # fmt: skip
                    clear.clear()
                widget._set_dirty(*marks)
                want = _state(widget)
                for clear in (widget._dirty_regions, widget._repaint_regions,
                              widget._styles_cache._dirty_lines):  # fmt: skip
                    clear.clear()
                _mark_stale(widget, *marks)
                assert _state(widget) == want, name
        assert len(seen) == 4  # four different content offsets
        both = pilot.app.query_one("#both")
        assert both.scrollbar_gutter.right and both.scrollbar_gutter.bottom  # scrollbars shown
