"""The key-hint footer, fitted to the width so its last hints are never overdrawn."""

from __future__ import annotations

from itertools import groupby

from textual import events
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

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

    def bindings_changed(self, screen: Screen) -> None:
        self._fit(screen)
        super().bindings_changed(screen)

    async def recompose(self) -> None:
        await super().recompose()
        # Each key hint is data-bound to ``compact``; the binding's watcher holds the hint and is
        # pruned only when ``compact`` changes, so every recompose (a focus change, a scene
        # switch) would keep the old hints alive. Re-checking the watchers drops the closed ones.
        self.mutate_reactive(Footer.compact)

    def on_resize(self, event: events.Resize) -> None:
        if self.is_attached and self._fit(self.screen):
            self.call_after_refresh(self.recompose)
