"""The key-hint footer as one widget, fitted to the width so its last hints are never overdrawn."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

PALETTE_HINT = 13  # "│ ^p palette " docked on the right


@dataclass(frozen=True)
class Hint:
    """One key hint: what a FooterKey of Textual's footer showed."""

    key: str
    display: str
    description: str
    enabled: bool
    tooltip: str
    palette: bool = False  # the command palette's key, on the right


@dataclass(frozen=True)
class Part:
    """A run of cells: a hint (clickable), a group's label, or blank footer background."""

    x: int
    width: int
    hint: Hint | None = None
    label: str | None = None


class FittingFooter(Widget, can_focus=False):
    """Textual's footer of key hints, drawn as one widget (Textual's mounts a widget per hint,
    and a group and a label per binding group, and mounts them anew on every change of the
    bindings: a sixth of the widgets before the first frame). It looks and acts as Textual's:
    each hint's key and description in the footer's component styles, the hint under the
    mouse highlighted with its tooltip, a click presses the key (a disabled one rings the
    bell). On a narrow screen it first drops the command-palette hint (docked on the right, it
    would cover the last key hints; the help screen and the side panel name ctrl+p too), then
    the padding around each hint."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "footer-key",
        "footer-key-hover",
        "footer-key-disabled",
        "footer-key--key",
        "footer-key--description",
        "footer-label",
        "footer-palette-border",
    }
    # Textual's Footer and FooterKey rules, on the parts of one widget.
    DEFAULT_CSS = """
    FittingFooter {
        color: $footer-foreground;
        background: $footer-background;
        dock: bottom;
        height: 1;
    }
    FittingFooter > .footer-key {
        background: $footer-item-background;
    }
    FittingFooter > .footer-key-hover {
        color: $footer-key-foreground;
        background: $block-hover-background;
    }
    FittingFooter > .footer-key-disabled {
        text-style: dim;
    }
    FittingFooter > .footer-key--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    FittingFooter > .footer-key--description {
        color: $footer-description-foreground;
        background: $footer-description-background;
    }
    FittingFooter > .footer-label {
        color: $footer-description-foreground;
        background: $footer-description-background;
    }
    FittingFooter > .footer-palette-border {
        color: $foreground 20%;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.compact = False
        self.show_command_palette = True
        self.parts: list[Part] = []  # the hints and the groups' labels, left to right
        self.palette: Hint | None = None  # the command palette's hint, docked on the right
        self.hovered: Hint | None = None

    # --- what the hints are ---------------------------------------------------------------
    def _hints_width(self, screen: Screen) -> int:
        """Cells the padded key hints take, laid out as Textual's footer does (one hint per
        action; the keys of a binding group share one description)."""
        shown: dict[str, Binding] = {}
        for _node, binding, _enabled, _tooltip in screen.active_bindings.values():
            if binding.show:
                shown.setdefault(binding.action, binding)
        width = 0
        for group, members in groupby(shown.values(), key=lambda b: b.group):
            bindings = list(members)
            keys = [len(self.app.get_key_display(b)) for b in bindings]
            if group is not None and len(bindings) > 1:
                descriptions = [len(group.description)]
            else:
                descriptions = [len(b.description) for b in bindings]
            width += sum(k + 2 for k in keys) + sum(d + 1 for d in descriptions)  # " k " "d "
        return width

    def _fit(self, screen: Screen) -> None:
        """Choose the style for the current width."""
        width = self.size.width or self.app.size.width
        hints = self._hints_width(screen)
        self.show_command_palette = hints + PALETTE_HINT <= width
        self.compact = hints > width

    waits_for_focus = False
    """Show the first hints only once a widget has the focus (or ``stop_waiting``): the app
    focuses its first parameter row while it starts, and hints shown before that (the app's
    own keys, in another order) would be replaced at once."""
    _ready = False  # the bindings have been signalled at least once

    def stop_waiting(self) -> None:
        if self.waits_for_focus:
            self.waits_for_focus = False
            if self.is_attached:
                self.call_later(self.bindings_changed, self.screen)

    def bindings_changed(self, screen: Screen) -> None:
        if self.waits_for_focus:
            if screen.focused is None:
                return
            self.waits_for_focus = False
        self._ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        self._fit(screen)
        self._show(screen)

    def _groups(self, screen: Screen) -> list[tuple[Any, list[Hint]]]:
        """The hints as Footer.compose yields them: (group, its keys) for a binding group of
        more than one action, (None, [hint]) for the others; the palette's last."""
        active = screen.active_bindings
        by_action: dict[str, list[tuple[Binding, bool, str]]] = {}
        for _node, binding, enabled, tooltip in active.values():
            if binding.show:
                by_action.setdefault(binding.action, []).append((binding, enabled, tooltip))
        display = self.app.get_key_display
        out: list[tuple[Any, list[Hint]]] = []
        for group, members in groupby(by_action.values(), lambda m: m[0][0].group):
            multi = list(members)
            if group is not None and len(multi) > 1:
                keys = [Hint(b.key, display(b), "", enabled, tooltip or b.description)
                        for b, enabled, tooltip in (m[0] for m in multi)]  # fmt: skip
                out.append((group, keys))
            else:
                out.extend((None, [Hint(b.key, display(b), b.description, enabled, tooltip)])
                           for b, enabled, tooltip in (m[0] for m in multi))  # fmt: skip
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            entry = active.get(self.app.COMMAND_PALETTE_BINDING)
            if entry is not None:
                _node, b, enabled, _tooltip = entry
                hint = Hint(b.key, display(b), b.description, enabled,
                            b.tooltip or b.description, palette=True)  # fmt: skip
                out.append((None, [hint]))
        return out

    def _show(self, screen: Screen) -> None:
        groups = self._groups(screen)
        parts, palette = self._layout(groups)
        if (parts, palette) != (self.parts, self.palette):
            self.parts, self.palette = parts, palette
            if self.hovered is not None and self.hovered not in self._shown_hints():
                self._hover(None)
            self.refresh()

    def _shown_hints(self) -> list[Hint]:
        hints = [p.hint for p in self.parts if p.hint is not None]
        return hints if self.palette is None else [*hints, self.palette]

    # --- where each hint goes: Textual's horizontal layout of the footer's widgets ----------
    def _key_width(self, hint: Hint) -> int:
        """Cells of a hint's text: " k " "d " (compact: "k" " d"; the palette's: compact)."""
        if not hint.description:
            return len(hint.display)
        pad = 0 if self.compact or hint.palette else 2
        return len(hint.display) + pad + 1 + len(hint.description)

    def _layout(self, groups: list[tuple[Any, list[Hint]]]) -> tuple[list[Part], Hint | None]:
        """The parts left to right, and the palette's hint (docked on the right) if shown.
        Boxes are placed as Textual's horizontal layout places widgets: between two
        neighbours the larger of their margins; a binding group is a box of its keys (their
        margins inside it) and then a box of its label."""
        boxes: list[tuple[int, int, list[Part], int]] = []  # (margin l, width, parts, margin r)
        palette = None
        for group, keys in groups:
            if group is None:
                if keys[0].palette:
                    palette = keys[0]
                    continue
                width = self._key_width(keys[0])
                boxes.append((0, width, [Part(0, width, keys[0])], int(self.compact)))
                continue
            inner = 0 if group.compact else 1  # each grouped key's margin left and right
            x = 1 if group.compact else 0  # a compact group's left padding
            parts = []
            for hint in keys:
                x += inner  # max(right margin of the one before, left margin) = inner
                parts.append(Part(x, len(hint.display), hint))
                x += len(hint.display)
            boxes.append((0, x + inner, parts, 1 if group.compact else 0))
            label = Part(0, len(group.description), label=group.description)
            boxes.append((0, label.width, [label], 0 if self.compact else 1))
        out: list[Part] = []
        x = margin = 0
        for n, (left, width, parts, right) in enumerate(boxes):
            x += left if n == 0 else max(margin, left)
            out.extend(Part(x + p.x, p.width, p.hint, p.label) for p in parts)
            x += width
            margin = right
        self._extent = x + margin  # what the hints span, scrolled if wider than the footer
        return out, palette

    def _palette_part(self) -> Part | None:
        if self.palette is None:
            return None
        width = 1 + self._key_width(self.palette) + (0 if self.compact else 1)  # border, pad
        return Part(self.size.width - width, width, self.palette)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1

    # --- drawing ---------------------------------------------------------------------------
    def _state(self, hint: Hint) -> list[str]:
        """The component classes of a hint's own styles (a FooterKey's, with its pseudo-
        classes)."""
        state = ["footer-key"]
        if hint == self.hovered:
            state.append("footer-key-hover")
        if not hint.enabled:
            state.append("footer-key-disabled")
        return state

    def _hint_segments(self, hint: Hint) -> list[Segment]:
        """A hint's segments as a FooterKey drew them: its text with the text selection's
        offsets; the palette's with its left border and right padding."""
        state = self._state(hint)
        key = self.get_visual_style(*state, "footer-key--key")
        if not hint.description:
            return [Segment(hint.display, key.rich_style_with_offset(0, 0))]
        description = self.get_visual_style(*state, "footer-key--description")
        if self.compact or hint.palette:
            key_text, description_text = hint.display, " " + hint.description
        else:
            key_text, description_text = f" {hint.display} ", hint.description + " "
        segments = [
            Segment(key_text, key.rich_style_with_offset(0, 0)),
            Segment(description_text, description.rich_style_with_offset(len(key_text), 0)),
        ]
        if hint.palette:
            # The border's colour blends over the hint's background at rest (Textual's border
            # keeps it under the mouse too); its background is the hint's.
            border = self.get_visual_style("footer-key", "footer-palette-border").rich_style
            own = self.get_visual_style(*state).rich_style
            segments.insert(0, Segment("▏", Style(color=border.color, bgcolor=own.bgcolor)))
            if not self.compact:
                segments.append(Segment(" ", Style(bgcolor=own.bgcolor)))
        return segments

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        blank = Style(bgcolor=self.visual_style.rich_style.bgcolor)  # margins: background only
        if y != 0 or width <= 0:
            return Strip.blank(width, blank)
        segments: list[Segment] = []
        x = 0
        for part in self.parts:
            if part.x > x:
                segments.append(Segment(" " * (part.x - x), blank))
            if part.hint is not None:
                segments.extend(self._hint_segments(part.hint))
            elif part.label is not None:
                label = self.get_visual_style("footer-label").rich_style_with_offset(0, 0)
                segments.append(Segment(part.label, label))
            x = part.x + part.width
        palette = self._palette_part()
        right = width if palette is None else palette.x
        scroll = self._scroll(right)
        strip = Strip([*segments, Segment(" " * max(0, scroll + right - x), blank)])
        strip = strip.crop(scroll, scroll + right)
        if palette is not None and self.palette is not None:
            strip = Strip([*strip, *self._hint_segments(self.palette)])
        return strip.crop(0, width)

    # --- the mouse -------------------------------------------------------------------------
    def hint_at(self, x: int) -> Hint | None:
        """The hint at column ``x`` of the footer, if any."""
        palette = self._palette_part()
        if palette is not None and palette.x <= x < palette.x + palette.width:
            return palette.hint  # docked on top
        x += self._scroll(self.size.width if palette is None else palette.x)
        for part in self.parts:
            if part.hint is not None and part.x <= x < part.x + part.width:
                return part.hint
        return None

    def hint_offset(self, key: str) -> int:
        """The first column of the hint of ``key``."""
        palette = self._palette_part()
        if palette is not None and palette.hint is not None and palette.hint.key == key:
            return palette.x
        scroll = self._scroll(self.size.width if palette is None else palette.x)
        for part in self.parts:
            if part.hint is not None and part.hint.key == key:
                return part.x - scroll
        raise KeyError(key)

    # Hints wider than the footer scroll sideways with the wheel, as Textual's footer (a
    # scrolling container) did, by the app's horizontal scroll sensitivity a step.
    _extent = 0
    _scroll_x = 0

    def _scroll(self, room: int) -> int:
        """The columns scrolled off on the left, within what the hints span."""
        return max(0, min(self._scroll_x, self._extent - room))

    def _scroll_by(self, event: events.MouseEvent, step: float) -> None:
        palette = self._palette_part()
        room = self.size.width if palette is None else palette.x
        now = self._scroll(room)
        new = max(0, min(int(now + step), self._extent - room))
        if new != now:
            self._scroll_x = new
            event.stop()
            event.prevent_default()
            self.refresh()

    def _on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._scroll_by(event, self.app.scroll_sensitivity_x)

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._scroll_by(event, -self.app.scroll_sensitivity_x)

    def _hover(self, hint: Hint | None) -> None:
        if hint != self.hovered:
            self.hovered = hint
            self.tooltip = (hint.tooltip or None) if hint is not None else None
            self.styles.pointer = "default" if hint is None else "pointer"
            self.refresh()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover(self.hint_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._hover(None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        hint = self.hint_at(event.x)
        if hint is None:
            return
        if hint.enabled:
            self.app.simulate_key(hint.key)
        else:
            self.app.bell()

    # --- signals ---------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def on_resize(self, event: events.Resize) -> None:
        if self.is_attached and self._ready and not self.waits_for_focus:
            self._fit(self.screen)
            self._show(self.screen)
