"""Parameter controls: one focusable row per parameter, changed by keys, clicks or the wheel."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from seqviz.scenes.base import ParamSpec, Scene


class ParamChanged(Message):
    """A control asks for a parameter to take a new (already validated) value."""

    def __init__(self, name: str, value: Any) -> None:
        super().__init__()
        self.name = name
        self.value = value


class ParamFocused(Message):
    """A control received focus: it is now the one +/- change."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


class ParamRow(Widget, can_focus=True):
    """``label  ◂ value ▸``: click the arrows, scroll the wheel, or press +/- when focused."""

    DEFAULT_CSS = """
    ParamRow {
        height: 1;
        width: 1fr;
        padding: 0 1;
    }
    ParamRow:focus {
        background: $accent 40%;
        text-style: bold;
    }
    """

    def __init__(self, spec: ParamSpec, value: Any) -> None:
        super().__init__(id=f"param-{spec.name}")
        self.spec = spec
        self.value = value
        self.inactive = ""  # why this parameter does nothing now ("" = it is active)
        self.tooltip = f"{spec.label}: {spec.help} ({spec.allowed()})"

    def set_inactive(self, reason: str) -> None:
        if reason != self.inactive:
            self.inactive = reason
            self.refresh()

    def set_value(self, value: Any) -> None:
        if value != self.value:
            self.value = value
            self.refresh()

    def _control(self, width: int) -> tuple[str, str]:
        """(label, value as drawn between the arrows) for this width. In order of preference:
        the label, else the short name (rho), one space before the arrows, spaces around the
        value; what gives way first is those spaces. A cut label ends in an ellipsis."""
        shown = self.spec.format(self.value)
        for gap in (1, 0):
            for name in (self.spec.label, self.spec.name):
                for value in (f" {shown} ", shown):
                    # name, gap, "◂value▸" and a free last column
                    if len(name) + gap + len(value) + 3 <= width:
                        return name, value
        room = max(3, width - len(shown) - 3)
        label = self.spec.label
        return (label if len(label) <= room else label[: room - 1] + "…"), shown

    def render(self) -> Text:
        width = self.size.width
        label, value = self._control(width)
        if self.inactive:  # marked, not hidden: the row keeps its place and its keys
            value = "off" if len(value) > 5 else value
            text = Text(label.ljust(max(0, width - len(value) - 3)), style="dim strike")
            text.append(f"◂{value}▸", style="dim")
            return text
        text = Text(label.ljust(max(0, width - len(value) - 3)), style="")
        text.append("◂", style="bold #ffa62b" if self.has_focus else "dim")
        text.append(value, style="bold")
        text.append("▸", style="bold #ffa62b" if self.has_focus else "dim")
        return text

    def nudge(self, direction: int) -> None:
        new = self.spec.nudge(self.value, direction)
        if new != self.value:
            self.post_message(ParamChanged(self.spec.name, new))

    def on_focus(self) -> None:
        self.post_message(ParamFocused(self.spec.name))

    def on_click(self, event: events.Click) -> None:
        self.focus()
        offset = event.get_content_offset(self)
        if offset is None:
            return
        width = self.size.width
        control = len(self._control(width)[1]) + 3  # "◂ value ▸" and the free column
        if offset.x >= width - control:
            # Left half of the control steps down, right half steps up.
            self.nudge(+1 if offset.x >= width - control / 2 else -1)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.nudge(+1)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.nudge(-1)


class TextParam(Input):
    """A text parameter (the gates scene's input sentence): applied as you type."""

    DEFAULT_CSS = """
    TextParam {
        height: 3;
        width: 1fr;
    }
    """

    def __init__(self, spec: ParamSpec, value: str) -> None:
        super().__init__(value=value, id=f"param-{spec.name}", max_length=spec.max_length,
                         placeholder=spec.label)  # fmt: skip
        self.spec = spec
        self.tooltip = f"{spec.label}: {spec.help}"
        # Texts this field sent to the app that the app has not echoed back yet, oldest first.
        self._sent: list[str] = []
        self._written: str | None = None  # a value the app wrote here: not sent back to it

    def set_value(self, value: Any) -> None:
        """Show the app's value, unless it is the echo of something typed here: by the time the
        app's echo arrives the typist may be keys further on, and writing the older text back
        would drop those keys (and send that older text again, round and round)."""
        if value in self._sent:
            del self._sent[: self._sent.index(value) + 1]
            return
        self._sent.clear()
        if value != self.value:
            self._written = value
            self.value = value

    def nudge(self, direction: int) -> None:
        """Text has no steps."""

    def on_focus(self) -> None:
        self.post_message(ParamFocused(self.spec.name))

    async def _on_key(self, event: events.Key) -> None:
        """Run the field's own editing keys (ctrl+u, backspace, ...) here, in turn with typed
        characters. Textual runs a focused widget's bindings only once the key has bubbled up
        to the app, through every parent's queue; a character typed right after it (keys come
        back to back when the machine is busy) is inserted first and then deleted: ctrl+u then
        'c' left ''. Characters and keys the field does not bind go on as before (Textual
        calls Input._on_key after this one)."""
        if not event.is_printable:
            for binding in self._bindings.key_to_bindings.get(event.key, ()):
                if not binding.priority and await self.app.run_action(binding.action, self):
                    event.stop()
                    event.prevent_default()  # Input's own key handler and the bubbling
                    return

    def on_unmount(self) -> None:
        # Input subscribes to the screen's text-selection signal with a callback that holds the
        # field; Textual drops dead subscribers only when that signal fires, so a removed field
        # would stay alive after every scene switch.
        self.screen.text_selection_started_signal.unsubscribe(self)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._written is not None and event.value == self._written:
            self._written = None  # the app's own value: it has it already
            return
        if self.spec.live:
            self._apply(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._apply(event.value)

    def _apply(self, text: str) -> None:
        try:
            value = self.spec.validate(text)
        except ValueError:
            return  # e.g. an empty sentence while retyping: keep the last good value
        # An unchanged value (Enter twice) is not echoed: keep the list short regardless.
        self._sent = [*self._sent[-63:], value]
        self.post_message(ParamChanged(self.spec.name, value))


class ParamPanel(VerticalScroll, can_focus=False):
    """The current scene's parameters, top to bottom in spec order; up/down move between them."""

    BINDINGS = [
        Binding("up", "app.focus_previous", "previous parameter", show=False),
        Binding("down", "app.focus_next", "next parameter", show=False),
        # The scroll container's own left/right/home/end (hidden, scrolling) would hide the
        # app's frame keys from the footer while a parameter has focus: keep them the app's.
        Binding("right", "app.step(1)", "step", key_display="→"),
        Binding("left", "app.step(-1)", "back", key_display="←"),
        Binding("home", "app.home", "start", show=False),
        Binding("end", "app.end", "end", show=False),
    ]

    DEFAULT_CSS = """
    ParamPanel {
        height: 1fr;
        scrollbar-size-vertical: 1;
    }
    ParamPanel > .param-title {
        padding: 0 1;
        text-style: bold;
        color: $text-muted;
    }
    ParamPanel > .param-info {
        padding: 0 1;
        color: $text-muted;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.scene: Scene | None = None

    async def show_scene(self, scene: Scene, values: Any) -> None:
        """Rebuild the rows for ``scene`` with ``values``."""
        self.scene = scene
        await self.remove_children()
        rows: list[Widget] = [Static("parameters", classes="param-title")]
        for spec in scene.specs:
            value = getattr(values, spec.name)
            if spec.kind == "text":
                rows.append(TextParam(spec, value))
            else:
                rows.append(ParamRow(spec, value))
        rows.append(Static("", classes="param-info"))
        await self.mount_all(rows)
        self.show_values(values)

    def show_values(self, values: Any) -> None:
        inactive = self.scene.inactive_params(values) if self.scene is not None else {}
        for row in self.query(ParamRow):
            row.set_value(getattr(values, row.spec.name))
            row.set_inactive(inactive.get(row.spec.name, ""))
        for text in self.query(TextParam):
            text.set_value(getattr(values, text.spec.name))
        self._show_scope(values)

    def _show_scope(self, values: Any) -> None:
        """Hide the rows that do nothing for these values; show the scene's info line."""
        scene = self.scene
        if scene is None:
            return
        hidden = scene.hidden(values) if scene.hidden is not None else frozenset()
        for widget in self.children:
            if isinstance(widget, (ParamRow, TextParam)):
                widget.display = widget.spec.name not in hidden
        info = scene.info(values) if scene.info is not None else ""
        for line in self.query(".param-info").results(Static):
            if getattr(line, "shown_info", None) != info:  # an update is a layout pass
                line.shown_info = info  # type: ignore[attr-defined]
                line.update(Text(info))
                line.display = bool(info)

    def row(self, name: str) -> ParamRow | TextParam | None:
        for widget in self.children:
            if isinstance(widget, (ParamRow, TextParam)) and widget.spec.name == name:
                return widget
        return None
