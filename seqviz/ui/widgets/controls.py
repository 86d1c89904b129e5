"""Parameter controls: one focusable row per parameter, changed by keys, clicks or the wheel."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from seqviz.scenes.base import ParamSpec, Scene
from seqviz.ui.compat_layout import layout_directly
from seqviz.ui.compat_textual import DirectLines, alike_rows, refresh_lines, update_static
from seqviz.ui.widgets.kept import KeptLines


class ParamChanged(Message):
    """A control asks for a parameter of its scene to take a new (already validated) value.
    ``scene``: the scene whose row sent it (None: whichever is current), so that a change still
    queued when the user switches scenes is not applied to a parameter of the same name there."""

    def __init__(self, name: str, value: Any, scene: str | None = None) -> None:
        super().__init__()
        self.name = name
        self.value = value
        self.scene = scene


class ParamFocused(Message):
    """A control received focus: it is now the one +/- change."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


class SceneOwned:
    """A control that belongs to one scene's panel: the changes it sends name that scene."""

    scene_name: str | None = None  # set by ParamPanel; None: whichever scene is current


class InfoLine(KeptLines, Static):
    """The scene's info line under the parameters (e.g. the loaded model's sizes); its lines
    kept per text (``ParamPanel._show_scope`` sets ``shown_info``)."""

    shown_info: str | None = None

    def kept_key(self) -> Hashable:
        return self.shown_info


class ParamRow(SceneOwned, KeptLines, DirectLines, Widget, can_focus=True):
    """``label  ◂ value ▸``: click the arrows, scroll the wheel, or press +/- when focused.

    Its line is kept as drawn, per value, state and focus (KeptLines): a value or a focus
    shown before (toggling a parameter back, moving the focus up and down the rows) is not
    drawn again. A new one skips Textual's StylesCache pass (DirectLines: the row is padded left
    and right only), about a millisecond for this one line, paid at every new value."""

    ALLOW_MAXIMIZE = False  # one line: the palette's "Maximize" filled the screen with it
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

    # A new value or state goes to the screen at once (refresh_lines), not through the row's
    # message queue: the app paints a fast change's value and result in one screen update
    # right after the result (paint_pending), and a hop still on its way would miss it.
    def set_inactive(self, reason: str) -> None:
        if reason != self.inactive:
            self.inactive = reason
            refresh_lines(self)  # a model switch changes the reason of eight hidden rows

    def set_value(self, value: Any) -> None:
        if value != self.value:
            self.value = value
            refresh_lines(self)

    def kept_key(self) -> Hashable:
        """What the line shows besides the size and styles (KeptLines adds those), and what
        Textual's pass draws it with: the line filters and the ANSI theme."""
        shows = (self.value, self.inactive, self.has_focus, self.spec)
        return (shows, *self.drawn_with())

    def kept_text(self) -> Text:
        """A new value of a known shape (a number walked with +) respells a kept line."""
        return self.render()

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
            self.post_message(ParamChanged(self.spec.name, new, self.scene_name))

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


class TextParam(SceneOwned, Input):
    """A text parameter (the gates scene's input sentence): applied as you type, or on Enter.

    What is typed here and not yet handed to the app (a prompt before Enter, an empty sentence
    while retyping) is an *edit*, and it wins over the app's writes until Enter applies it or
    Escape restores the app's text: changing another parameter, a reset or a script step never
    refills the field over it. Its border says "not applied" while it lasts. Escape also
    leaves the field (the footer says so while it is focused), so the app's keys (q, the scene
    numbers) work again: they were typed into it, and only Tab got out."""

    ALLOW_MAXIMIZE = False  # a one-line field: nothing to fill the screen with
    DEFAULT_CSS = """
    TextParam {
        height: 3;
        width: 1fr;
    }
    TextParam.-edited {
        border-subtitle-color: $warning;
    }
    """
    BINDINGS = [Binding("escape", "leave", "restore & leave", key_display="esc")]

    def __init__(self, spec: ParamSpec, value: str, edit: str | None = None) -> None:
        """``edit``: an edit the user left in this field's predecessor (another scene was shown
        meanwhile), put back as it was."""
        shown = value if edit is None else edit
        # A text not to send to the app when Input reports it changed: the app's own value, or
        # the edit put back. Input's constructor reports its first value unless it is "".
        self._written: str | None = shown or None
        super().__init__(value=shown, id=f"param-{spec.name}", max_length=spec.max_length,
                         placeholder=spec.label)  # fmt: skip
        self.spec = spec
        self.tooltip = (f"{spec.label}: {spec.help} (enter applies; escape restores the applied "
                        "text and leaves the field)")  # fmt: skip
        self._app_text = value  # the app's value for this parameter, as last written or echoed
        # Texts this field sent to the app that the app has not echoed back yet, oldest first.
        self._sent: list[str] = []
        self._mark()

    @property
    def applied(self) -> str:
        """The text the app has, or will have once what was sent arrives."""
        return self._sent[-1] if self._sent else self._app_text

    @property
    def edited(self) -> bool:
        """The field holds text the user typed that the app does not have."""
        return self.value != self.applied

    def set_value(self, value: Any) -> None:
        """Show the app's value, unless it is the echo of something typed here (by the time the
        app's echo arrives the typist may be keys further on, and writing the older text back
        would drop those keys and send that older text again, round and round), or the field
        holds an edit (see the class)."""
        if value in self._sent:
            del self._sent[: self._sent.index(value) + 1]
            self._app_text = value
            self._mark()
            return
        if value == self._app_text:
            return  # another parameter changed, not this one
        edited = self.edited
        self._app_text = value
        if edited:
            self._mark()  # the edit wins; Escape shows this value
            return
        self._sent.clear()
        self._write(value)

    def _write(self, value: str) -> None:
        if value != self.value:
            self._written = value
            self.value = value
        self._mark()

    def action_restore(self) -> None:
        """Drop the edit, show the applied text."""
        self._write(self.applied)

    def action_leave(self) -> None:
        """Escape: drop the edit, show the applied text and give the keys back to the app."""
        self.action_restore()
        if self.has_focus:
            self.screen.set_focus(None)

    def _mark(self) -> None:
        """Say on the border whether the field holds an edit the app does not have."""
        edited = self.edited
        self.set_class(edited, "-edited")
        hint = "not applied" if edited else ""  # enter / esc: tooltip and help (no room here)
        if self.border_subtitle != hint:
            self.border_subtitle = hint

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
        self._mark()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._apply(event.value)
        self._mark()

    def _apply(self, text: str) -> None:
        try:
            value = self.spec.validate(text)
        except ValueError:
            return  # e.g. an empty sentence while retyping: keep the last good value
        # An unchanged value (Enter twice) is not echoed: keep the list short regardless.
        self._sent = [*self._sent[-63:], value]
        self.post_message(ParamChanged(self.spec.name, value, self.scene_name))


class ParamPanel(VerticalScroll, can_focus=False):
    """The current scene's parameters, top to bottom in spec order; up/down move between them."""

    # Its size never follows its rows: rows shown or hidden (a gates model switch) lay out
    # this panel alone, not the whole screen (compat_layout).
    LAYOUT_ISLAND = True

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
        alike_rows(self)  # blank below its rows: one line drawn and repeated
        self.scene: Scene | None = None
        # Edits left in text fields of scenes not shown, by (scene, parameter): put back when
        # the scene is shown again.
        self._edits: dict[tuple[str, str], str] = {}

    async def show_scene(self, scene: Scene, values: Any) -> None:
        """Rebuild the rows for ``scene`` with ``values``."""
        if self.scene is not None:
            for field in self.query(TextParam):
                if field.edited:
                    self._edits[self.scene.name, field.spec.name] = field.value
        self.scene = scene
        await self.remove_children()
        rows: list[Widget] = [Static("parameters", classes="param-title")]
        for spec in scene.specs:
            value = getattr(values, spec.name)
            row: ParamRow | TextParam
            if spec.kind == "text":
                row = TextParam(spec, value, self._edits.pop((scene.name, spec.name), None))
            else:
                row = ParamRow(spec, value)
            row.scene_name = scene.name
            rows.append(row)
        if scene.info is not None:  # only a scene that has an info line gets one
            rows.append(InfoLine("", classes="param-info"))
        await self.mount_all(rows)
        self.show_values(values)

    def show_values(self, values: Any) -> None:
        inactive = self.scene.inactive_params(values) if self.scene is not None else {}
        # The rows are the panel's children (show_scene): a look through them, not a CSS query,
        # which matched selectors against every widget below the panel, three times a change.
        for widget in self.children:
            if isinstance(widget, ParamRow):
                widget.set_value(getattr(values, widget.spec.name))
                widget.set_inactive(inactive.get(widget.spec.name, ""))
            elif isinstance(widget, TextParam):
                widget.set_value(getattr(values, widget.spec.name))
        self._show_scope(values)

    def _show_scope(self, values: Any) -> None:
        """Hide the rows that do nothing for these values; show the scene's info line."""
        scene = self.scene
        if scene is None:
            return
        hidden = scene.hidden(values) if scene.hidden is not None else frozenset()
        for widget in self.children:
            if isinstance(widget, (ParamRow, TextParam)):
                shown = widget.spec.name not in hidden
                if widget.display != shown:  # Textual's setter costs as much for no change
                    widget.display = shown
        info = scene.info(values) if scene.info is not None else ""
        for line in self.children:
            if not (isinstance(line, Static) and line.has_class("param-info")):
                continue
            if getattr(line, "shown_info", None) != info:  # an update is a layout pass
                # ... unless the new text fits the lines the line has: then it is repainted in
                # place. The line keeps the most lines it has taken at this width (switching
                # between two models, each description then costs one layout pass, once).
                line.shown_info = info  # type: ignore[attr-defined]  # an InfoLine
                size = line.content_size
                shown = line.display and bool(info) and size.width > 0
                if shown:
                    update_static(line, Text(info))
                else:
                    line.update(Text(info))
                # A hidden line has no width (model=file shows no info): its kept height
                # stays for when it shows again at the same width (was: reset, a layout pass).
                if size.width > 0 and getattr(line, "kept_width", None) != size.width:
                    line.kept_width = size.width  # type: ignore[attr-defined]
                    line.styles.min_height = None
                if shown:
                    needed = line.get_content_height(size, size, size.width)
                    if needed > size.height:
                        line.styles.min_height = needed  # a layout pass
                line.display = bool(info)
        # The rows and the line shown or hidden ask the screen for a layout now, not after the
        # result's paint (through their message queues): one paint shows both.
        for widget in self.children:
            layout_directly(widget)

    def row(self, name: str) -> ParamRow | TextParam | None:
        for widget in self.children:
            if isinstance(widget, (ParamRow, TextParam)) and widget.spec.name == name:
                return widget
        return None
