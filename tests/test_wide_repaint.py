"""A partial repaint never cuts a double-width character (CJK, emoji) in half (issue 16)."""

from __future__ import annotations

import re

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from widget_host import Host

from seqviz.ui.compat_textual import (
    RegionScreen,
    ScreenMirror,
    SpanChopsUpdate,
    capture_updates,
    full_render,
    paint_now,
    span_cells,
)


def _raw(update: SpanChopsUpdate) -> str:
    return update.render_segments(Console(width=40, color_system=None, force_terminal=True))


def test_a_span_cut_inside_a_wide_character_sends_the_character_whole() -> None:
    # cells: a0 b1 日2-3 本4-5 c6 d7; the span 3..5 starts in 日 and ends in 本
    line = Strip([Segment("ab"), Segment("日本", Style(bold=True)), Segment("cd")], 8)
    raw = _raw(SpanChopsUpdate([{0: line}], [(0, 3, 5)], [[8]]))
    moves = re.findall(r"\x1b\[(\d+);(\d+)H", raw)
    assert moves == [("1", "3")]  # from 日's first cell (column 3, one-based)
    assert "日本" in raw and " " not in raw and "c" not in raw and "b" not in raw
    # ASCII and an emoji in one segment: only the cells asked for, the emoji whole
    first, cells = span_cells(Strip([Segment("x🙂yz")], 5), 2, 4)
    assert (first, "".join(s.text for s in cells)) == (1, "🙂y")
    first, cells = span_cells(Strip([Segment("abcdef")], 6), 2, 4)
    assert (first, "".join(s.text for s in cells)) == (2, "cd")


def test_the_mirror_blanks_a_wide_character_cut_in_half_as_a_terminal_does() -> None:
    mirror = ScreenMirror.of_strips([Strip([Segment("a日b")], 4)], 4)
    mirror._write(2, 0, [Segment("x")])  # over 日's right half
    assert mirror.text() == "a xb"


class WideLine(Widget):
    """One line of words, some double-width; only cells 4..5 change, and ``swap`` refreshes cells
    3..8: from the right half of 日 (cells 2..3) to the left half of 🙂 (cells 8..9)."""

    DEFAULT_CSS = "WideLine { height: 1; width: 20; }"
    words = ["ab日本cd🙂e", "ab日文cd🙂e", "ab日xycd🙂e"]

    def __init__(self) -> None:
        super().__init__()
        self.index = 0

    def render_line(self, y: int) -> Strip:
        return Strip([Segment(self.words[self.index], Style(color="red"))]).extend_cell_length(20)

    def swap(self, index: int) -> None:
        self.index = index
        self.refresh(Region(3, 0, 6, 1))


class WideHost(Host):
    def get_default_screen(self) -> RegionScreen:
        return RegionScreen(id="_default")  # seqviz's screen, which sends SpanChopsUpdate


async def test_a_partial_repaint_of_wide_characters_equals_a_from_scratch_render() -> None:
    widget = WideLine()
    async with WideHost(widget).run_test(size=(30, 3)) as pilot:
        await pilot.pause()
        app = pilot.app
        mirror = ScreenMirror.of_strips(full_render(app), 30)
        sent: list[str] = []

        def show(update: object) -> None:
            mirror.apply(update)
            if isinstance(update, SpanChopsUpdate):
                sent.append(_raw(update))

        capture_updates(app, show)
        for index in (1, 2, 0, 1):
            widget.swap(index)
            await paint_now(app)
            scratch = ScreenMirror.of_strips(full_render(app), 30)
            assert mirror.cells == scratch.cells, (index, mirror.text(), scratch.text())
        assert sent, "no partial update was made"
        for raw in sent:  # every wide character sent whole, none as a space
            assert " " not in re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", raw)
