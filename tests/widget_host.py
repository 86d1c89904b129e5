"""A bare Textual app holding the widgets under test, and their lines as the screen gets them."""

from __future__ import annotations

from rich.style import Style
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widget import Widget


class Host(App):
    def __init__(self, *widgets: Widget) -> None:
        super().__init__()
        self.widgets = widgets

    def compose(self) -> ComposeResult:
        yield from self.widgets


def drawn(widget: Widget) -> list[list[tuple[str, Style | None]]]:
    """The widget's lines as its screen would get them, cell by cell (text, style)."""
    lines = widget.render_lines(Region(0, 0, *widget.size))
    return [[(ch, seg.style) for seg in line for ch in seg.text] for line in lines]
