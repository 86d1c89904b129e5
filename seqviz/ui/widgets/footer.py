"""The key-hint footer, fitted to the width so its last hints are never overdrawn."""

from __future__ import annotations

from itertools import groupby
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

from seqviz.ui.compat_textual import FooterKey

PALETTE_HINT = 13  # "│ ^p palette " docked on the right


class FittingFooter(Footer):
    """Textual's Footer, which on a narrow screen first drops the command-palette hint (docked
    on the right, it would cover the last key hints; the help screen and the side panel name
    ctrl+p too), then the padding around each hint."""

    def _hints_width(self, screen: Screen) -> int:
        """Cells the padded key hints take, laid out as Footer.compose does (one hint per
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

    def _fit(self, screen: Screen) -> bool:
        """Choose the style for the current width; True if it changed."""
        width = self.size.width or self.app.size.width
        hints = self._hints_width(screen)
        palette = hints + PALETTE_HINT <= width
        compact = hints > width
        changed = (palette, compact) != (self.show_command_palette, self.compact)
        self.set_reactive(Footer.show_command_palette, palette)
        self.compact = compact
        return changed

    _shown: tuple[Any, ...] | None = None  # what the hints were last composed from
    waits_for_focus = False
    """Compose the first hints only once a widget has the focus (or ``stop_waiting``): the app
    focuses its first parameter row while it starts, and hints composed before that (the
    app's own keys, in another order) were mounted only to be replaced."""

    def stop_waiting(self) -> None:
        if self.waits_for_focus:
            self.waits_for_focus = False
            if self.is_attached:  # from the footer's own queue: its hints bind to it
                self.call_later(self.bindings_changed, self.screen)

    def _hints(self, screen: Screen) -> tuple[Any, ...]:
        """Everything Footer.compose shows from the bindings and the fit. An action name only
        groups the keys that share it (a focused parameter row binds ←/→ to "app.step(1)", the
        app to "step(1)": the same hint), so it enters as the number of its group."""
        groups: dict[str, int] = {}
        return (
            self.show_command_palette,
            self.compact,
            tuple(
                (b.key, groups.setdefault(b.action, len(groups)), b.description, b.group,
                 b.tooltip, enabled, tooltip)
                for _node, b, enabled, tooltip in screen.active_bindings.values()
                if b.show or b.key == self.app.COMMAND_PALETTE_BINDING
            ),
        )  # fmt: skip

    def bindings_changed(self, screen: Screen) -> None:
        if self.waits_for_focus:
            if screen.focused is None:
                return
            self.waits_for_focus = False
        self._fit(screen)
        # Textual recomposes the footer (mounts every hint anew) on each change of the bindings,
        # i.e. at every focus change, e.g. between two parameter rows, which show the same
        # hints. Only a change in what the hints show needs it.
        # Textual recomposes once per signal, and a focus change signals twice.
        hints = self._hints(screen)
        if self._bindings_ready and hints == self._shown:
            return
        self._shown = hints
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                # Born compact (Textual's default), each hint was restyled twice as it mounted:
                # compact, then not, through its data binding to the footer (which the palette
                # hint has not: it stays compact). Start it as the footer is. The palette
                # hint (compact: Textual's default) gets its class now too: its watcher adding
                # it at mount restyled it. Read before this, ``compact`` runs that watcher.
                palette = widget.has_class("-command-palette")
                if not palette:
                    widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(palette or self.compact, "-compact", update=False)
            yield widget

    async def recompose(self) -> None:
        await super().recompose()
        # Each key hint is data-bound to ``compact``; the binding's watcher holds the hint and is
        # pruned only when ``compact`` changes, so every recompose (a focus change, a scene
        # switch) would keep the old hints alive. Re-checking the watchers drops the closed ones.
        self.mutate_reactive(Footer.compact)

    def on_resize(self, event: events.Resize) -> None:
        if self.is_attached and self._fit(self.screen):
            self.call_after_refresh(self.recompose)
