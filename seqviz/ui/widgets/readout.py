"""Readout: a small block of numbers, laid out for the width it gets (table or compact lines)."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget


def sci(value: float) -> str:
    """The lesson's number format (6.5e-01); inf/nan spelled out."""
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return f"{value:.1e}"


class Readout(Widget):
    """Shows whatever ``builder(width)`` returns; rebuilt on resize so nothing is cut off."""

    DEFAULT_CSS = """
    Readout {
        height: auto;
        width: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._builder: Callable[[int], RenderableType] = lambda width: Text("")

    def set_builder(self, builder: Callable[[int], RenderableType]) -> None:
        self._builder = builder
        self.refresh(layout=True)

    def render(self) -> RenderableType:
        return self._builder(max(10, self.size.width))

    def on_resize(self) -> None:
        self.refresh(layout=True)
