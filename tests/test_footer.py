"""The key-hint footer, drawn as one widget, looks and acts as Textual's Footer of widgets did."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Static

from seqviz.ui.widgets.footer import FittingFooter

JUMP = Binding.Group("jump")  # three keys, one label
MOVE = Binding.Group("move", compact=True)
BINDINGS = [
    Binding("p", "jump('p')", "parent", group=JUMP),
    Binding("b", "jump('b')", "best", group=JUMP),
    Binding("g", "jump('g')", "greedy", group=JUMP, tooltip="the greedy path"),
    Binding("space", "toggle", "play"),
    Binding("x", "never", "locked"),  # disabled (shown dim): check_action says None
    Binding("h", "left", "left", group=MOVE),
    Binding("l", "right", "right", group=MOVE),
    Binding("r", "reset", "reset", key_display="R!"),
    Binding("q", "quit", "quit"),
]


class Keys(App[None]):
    BINDINGS = BINDINGS

    def __init__(self, footer: Any) -> None:
        super().__init__()
        self.footer = footer
        self.actions: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("body")
        yield self.footer

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "never" else True

    def action_jump(self, to: str) -> None:
        self.actions.append(f"jump {to}")

    def action_toggle(self) -> None:
        self.actions.append("toggle")


def _row(app: Any) -> list[tuple[str, Any]]:
    strip = app.screen._compositor.render_strips()[app.size.height - 1]
    return [(ch, seg.style) for seg in strip._segments for ch in seg.text]


async def _rows(footer: Any, width: int, columns: list[int]) -> tuple[Any, list[Any]]:
    """The footer's row at rest and with the mouse over each column (and the tooltip then)."""
    app = Keys(footer)
    rows = []
    async with app.run_test(size=(width, 3)) as pilot:
        await pilot.pause()
        await pilot.pause()
        rows.append(_row(app))
        for x in columns:
            await pilot.hover(offset=(x, 2))
            await pilot.pause()
            widget, _ = app.screen.get_widget_at(x, 2)
            rows.append((_row(app), widget.tooltip, app.screen._pointer_shape))
        state = (footer.show_command_palette, footer.compact)
    return state, rows


@pytest.mark.slow  # every column hovered in two footers at three widths
async def test_hints_look_hover_and_fit_as_textuals_footer_did() -> None:
    for width in (110, 70, 40):  # the palette's hint; no room for it; compact
        mine = FittingFooter()
        (palette, compact), rows = await _rows(mine, width, list(range(width)))
        assert (palette, compact) == (width == 110, width == 40)
        reference = Footer(show_command_palette=palette, compact=compact)
        _, expected = await _rows(reference, width, list(range(width)))
        for x, (got, want) in enumerate(zip(rows, expected, strict=True)):
            assert got == want, (width, x - 1)


async def test_a_click_presses_the_hints_key_and_a_disabled_one_rings() -> None:
    footer = FittingFooter()
    app = Keys(footer)
    rang: list[bool] = []
    app.bell = lambda: rang.append(True)  # type: ignore[method-assign]
    async with app.run_test(size=(110, 3)) as pilot:
        await pilot.pause()
        for key in ("b", "space", "x"):
            await pilot.click(FittingFooter, offset=(footer.hint_offset(key), 0))
            await pilot.pause()
        assert app.actions == ["jump b", "toggle"]
        assert rang == [True]


async def _scrolled(footer: Any, steps: list[str]) -> list[Any]:
    """The footer's row after each wheel step over it (hints wider than the footer)."""
    from textual import events

    app = Keys(footer)
    rows = []
    async with app.run_test(size=(30, 3)) as pilot:
        await pilot.pause()
        for step in steps:
            kind = events.MouseScrollDown if step == "down" else events.MouseScrollUp
            app.screen._forward_event(kind(None, 5, 2, 0, 0, 0, False, False, False,
                                           screen_x=5, screen_y=2))  # fmt: skip
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            await pilot.pause()
            rows.append(_row(app))
    return rows


async def test_hints_wider_than_the_footer_scroll_with_the_wheel_as_textuals_did() -> None:
    steps = ["down", "down", "down", "down", "up", "up", "up", "up", "up"]
    rows = await _scrolled(FittingFooter(), steps)
    assert len({tuple(row) for row in rows}) > 2  # it did scroll, both ways
    assert rows == await _scrolled(Footer(show_command_palette=False, compact=True), steps)
