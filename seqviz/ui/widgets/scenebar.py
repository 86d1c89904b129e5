"""Top bar: the app name, one clickable tab per scene (with its number key) and the play state."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static


class SceneTab(Static):
    """``1 Vanishing gradients``; a click switches to that scene."""

    class Picked(Message):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self, number: int, name: str, title: str) -> None:
        super().__init__(f" {number} {title} ", id=f"tab-{name}", classes="scene-tab")
        self.scene_name = name
        self.long_label = f" {number} {title} "
        self.short_label = f" {number} {name} "

    def set_short(self, short: bool) -> None:
        self.update(self.short_label if short else self.long_label)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Picked(self.scene_name))


class SceneBar(Horizontal):
    """Scene tabs on the left, the play state on the right."""

    DEFAULT_CSS = """
    SceneBar {
        height: 1;
        width: 1fr;
        background: $panel;
    }
    SceneBar > #app-name {
        width: auto;
        padding: 0 1;
        text-style: bold;
        color: $accent;
    }
    SceneBar > .scene-tab {
        width: auto;
        color: $text-muted;
    }
    SceneBar > .scene-tab:hover {
        background: $boost;
    }
    SceneBar > .scene-tab.-active {
        background: $primary;
        color: $text;
        text-style: bold;
    }
    SceneBar > #play-state {
        width: 1fr;
        content-align-horizontal: right;
        padding: 0 1;
    }
    """

    def __init__(self, scenes: list[tuple[str, str]], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._scenes = scenes

    def compose(self) -> ComposeResult:
        yield Static("seqviz", id="app-name")
        for number, (name, title) in enumerate(self._scenes, start=1):
            yield SceneTab(number, name, title)
        yield Static("", id="play-state")

    def set_active(self, name: str) -> None:
        for tab in self.query(SceneTab):
            tab.set_class(tab.scene_name == name, "-active")

    _short = False
    _play = ("", "")

    def set_short(self, short: bool) -> None:
        """Tabs by short name and a short play state, for narrow screens."""
        self._short = short
        for tab in self.query(SceneTab):
            tab.set_short(short)
        self.set_play_state(*self._play)

    def set_play_state(self, text: str, short: str | None = None) -> None:
        """``text`` ("❚❚ paused · 20 frames/s"), or ``short`` ("❚❚ 20/s") on narrow screens."""
        self._play = (text, short or text)
        self.query_one("#play-state", Static).update(self._play[self._short])
