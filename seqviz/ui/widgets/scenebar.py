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

    def __init__(self, number: int, name: str, title: str, *, active: bool = False) -> None:
        classes = "scene-tab -active" if active else "scene-tab"
        super().__init__(f" {number} {title} ", id=f"tab-{name}", classes=classes)
        self.scene_name = name
        self.long_label = f" {number} {title} "
        self.short_label = f" {number} {name} "
        self.number_label = f" {number} "
        self._shown = self.long_label

    def show(self, label: str) -> None:
        if label != self._shown:  # an update is a layout pass
            self._shown = label
            self.update(label)

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

    def __init__(self, scenes: list[tuple[str, str]], *, active: str | None = None,
                 id: str | None = None) -> None:  # fmt: skip
        """``active``: the scene whose tab is born active (set_active later would restyle it
        right after it was styled)."""
        super().__init__(id=id)
        self._scenes = scenes
        self._active = active

    def compose(self) -> ComposeResult:
        yield Static("seqviz", id="app-name")
        for number, (name, title) in enumerate(self._scenes, start=1):
            yield SceneTab(number, name, title, active=name == self._active)
        yield Static("", id="play-state")

    def set_active(self, name: str) -> None:
        for tab in self.query(SceneTab):
            tab.set_class(tab.scene_name == name, "-active")
        self._fit()

    _short = False
    _play = ("", "")
    _shown = ""  # the play state on screen

    def set_short(self, short: bool) -> None:
        """Tabs by short name and a short play state, for narrow screens."""
        self._short = short
        self._fit()
        self.set_play_state(*self._play)

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """Long titles; on narrow screens short names; if even those do not fit, the other
        scenes by number only (the current one keeps its name), so every number key shows."""
        tabs = list(self.query(SceneTab))
        if not self._short:
            for tab in tabs:
                tab.show(tab.long_label)
            return
        need = len(" seqviz ") + sum(len(t.short_label) for t in tabs) + len(self._play[1]) + 2
        tight = need > self.size.width > 0
        for tab in tabs:
            active = tab.has_class("-active")
            tab.show(tab.number_label if tight and not active else tab.short_label)

    def set_play_state(self, text: str, short: str | None = None) -> None:
        """``text`` ("❚❚ paused · 20 frames/s"), or ``short`` ("❚❚ 20/s") on narrow screens."""
        self._play = (text, short or text)
        shown = self._play[self._short]
        if shown != self._shown:  # an update is a layout pass; a resize asks for it again
            self._shown = shown
            self.query_one("#play-state", Static).update(shown)
