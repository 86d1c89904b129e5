"""Top bar: the app name, one clickable tab per scene (with its number key) and the play state."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.geometry import Offset, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

APP_NAME = " seqviz "  # the name and the padding around it


class SceneTabs(Widget):
    """The app name and a tab per scene (``1 Vanishing gradients``), drawn as one widget: a
    widget per tab cost each launch its mounting, styling and first render (a tenth of the
    widgets before the first frame). Each part is styled by its component class, as the tab
    widgets were by their CSS rules; the tab under the mouse is highlighted; a click on a tab
    switches to that scene."""

    class Picked(Message):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    ALLOW_SELECT = False  # chrome, as the footer's keys (a drag over the tabs selects nothing)
    COMPONENT_CLASSES = {
        "scene-tabs--name",
        "scene-tabs--tab",
        "scene-tabs--tab-hover",
        "scene-tabs--tab-active",
    }
    # The rules the tab widgets had (the active tab's after the hovered one's, as before: an
    # active tab under the mouse looks active).
    DEFAULT_CSS = """
    SceneTabs {
        width: auto;
        height: 1;
    }
    SceneTabs > .scene-tabs--name {
        text-style: bold;
        color: $accent;
    }
    SceneTabs > .scene-tabs--tab {
        color: $text-muted;
    }
    SceneTabs > .scene-tabs--tab-hover {
        color: $text-muted;
        background: $boost;
    }
    SceneTabs > .scene-tabs--tab-active {
        background: $primary;
        color: $text;
        text-style: bold;
    }
    """

    def __init__(self, scenes: list[tuple[str, str]], *, active: str | None = None,
                 id: str | None = None) -> None:  # fmt: skip
        super().__init__(id=id)
        self.names = [name for name, _title in scenes]
        self.long_labels = [f" {n} {title} " for n, (_name, title) in enumerate(scenes, 1)]
        self.short_labels = [f" {n} {name} " for n, (name, _title) in enumerate(scenes, 1)]
        self.number_labels = [f" {n} " for n in range(1, len(scenes) + 1)]
        self.labels = list(self.long_labels)
        self.active = active
        self.hovered: str | None = None

    def show(self, labels: list[str]) -> None:
        if labels != self.labels:  # a new width: a layout pass
            self.labels = list(labels)
            self.refresh(layout=True)

    def set_active(self, name: str) -> None:
        if name != self.active:
            self.active = name
            self.refresh()

    def tab_at(self, x: int) -> str | None:
        """The scene whose tab covers column ``x`` of the widget, if any."""
        left = len(APP_NAME)
        for name, label in zip(self.names, self.labels, strict=True):
            if left <= x < left + len(label):
                return name
            left += len(label)
        return None

    def tab_offset(self, name: str) -> Offset:
        """A cell of ``name``'s tab (its first), relative to the widget."""
        left = len(APP_NAME)
        for other, label in zip(self.names, self.labels, strict=True):
            if other == name:
                return Offset(left, 0)
            left += len(label)
        raise KeyError(name)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return len(APP_NAME) + sum(len(label) for label in self.labels)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1

    def render_line(self, y: int) -> Strip:
        # The segments a widget per part drew: each part's text starts at its own offset 0 (the
        # text selection's meta, which also lets two like tabs merge in a simplified screen),
        # and the name's padding has the background only.
        name = self.get_visual_style("scene-tabs--name")
        pad = Segment(" ", Style(bgcolor=name.rich_style.bgcolor))
        segments = [pad, Segment(APP_NAME.strip(), name.rich_style_with_offset(0, 0)), pad]
        for scene, label in zip(self.names, self.labels, strict=True):
            if scene == self.active:
                part = "scene-tabs--tab-active"
            elif scene == self.hovered:
                part = "scene-tabs--tab-hover"
            else:
                part = "scene-tabs--tab"
            style = self.get_visual_style(part).rich_style_with_offset(0, 0)
            segments.append(Segment(label, style))
        return Strip(segments) if y == 0 else Strip.blank(0)

    def _hover(self, name: str | None) -> None:
        if name != self.hovered:
            self.hovered = name
            self.refresh()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover(self.tab_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._hover(None)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        name = self.tab_at(event.x)
        if name is not None:
            self.post_message(self.Picked(name))


class SceneBar(Horizontal):
    """Scene tabs on the left, the play state on the right."""

    DEFAULT_CSS = """
    SceneBar {
        height: 1;
        width: 1fr;
        background: $panel;
    }
    SceneBar > #play-state {
        width: 1fr;
        content-align-horizontal: right;
        padding: 0 1;
    }
    """

    def __init__(self, scenes: list[tuple[str, str]], *, active: str | None = None,
                 id: str | None = None) -> None:  # fmt: skip
        """``active``: the scene whose tab is shown active from the start."""
        super().__init__(id=id)
        self.tabs = SceneTabs(scenes, active=active, id="scene-tabs")

    def compose(self) -> ComposeResult:
        yield self.tabs
        yield Static("", id="play-state")

    def set_active(self, name: str) -> None:
        self.tabs.set_active(name)
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
        """The longest labels that fit beside the play state: long titles, else short names,
        else the other scenes by number only (the current one keeps its name), so every number
        key shows. On narrow screens (set_short) long titles are not tried."""
        tabs = self.tabs
        width = self.size.width
        if width <= 0:  # not laid out yet: the resize fits it
            tabs.show(tabs.short_labels if self._short else tabs.long_labels)
            return
        room = width - len(self._play[self._short]) - 2  # the play state and its padding

        def fits(labels: list[str]) -> bool:
            return len(APP_NAME) + sum(map(len, labels)) <= room

        for labels in (() if self._short else (tabs.long_labels,)) + (tabs.short_labels,):
            if fits(labels):
                tabs.show(labels)
                return
        tabs.show([
            short if name == tabs.active else number
            for name, short, number in zip(tabs.names, tabs.short_labels, tabs.number_labels,
                                           strict=True)
        ])  # fmt: skip

    def set_play_state(self, text: str, short: str | None = None) -> None:
        """``text`` ("❚❚ paused · 20 frames/s"), or ``short`` ("❚❚ 20/s") on narrow screens."""
        self._play = (text, short or text)
        shown = self._play[self._short]
        if shown != self._shown:  # an update is a layout pass; a resize asks for it again
            longer = len(shown) > len(self._shown)
            self._shown = shown
            self.query_one("#play-state", Static).update(shown)
            if longer:  # the tabs may no longer fit beside it
                self._fit()
