"""Command-palette provider: "rho 1.2" sets a parameter, "scene memory" switches, "speed 30"."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual import events
from textual.command import CommandList, CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

if TYPE_CHECKING:
    from seqviz.ui.app import SeqvizApp


class SafeCommandPalette(CommandPalette):
    """Textual's command palette, minus the crashes a fast burst of keys found (the
    2,000-random-key test).

    The palette gathers hits in a worker. Closed (Escape) while that worker still gathers, the
    worker's next update toggles the list's visibility on a palette whose list is already gone;
    the NoMatches error fails the worker, and a failed worker ends the app. Without the list
    there is nothing to show, so those updates are skipped. A palette closed before it mounted
    skips its set-up. (Reopening while one closes is handled in SeqvizApp.action_command_palette.)
    """

    def _on_mount(self, event: events.Mount) -> None:
        # Closed again before it was mounted (ctrl+p and Escape or Enter in one burst): there is
        # no calling screen above which to set up, so skip Textual's set-up (an IndexError).
        if self not in self.app.screen_stack[1:]:
            event.prevent_default()

    def _watch__list_visible(self) -> None:
        if self.query(CommandList):
            super()._watch__list_visible()

    async def _watch__show_busy(self) -> None:
        if self.query(CommandList):
            await super()._watch__show_busy()


def plain(text: str) -> Content:
    """A palette line shown as typed: Textual reads a str prompt as markup, so a value such as
    the gates text "keys [to]" would lose its brackets, and "[/]" would end the app."""
    return Content(text)


class ParamCommands(Provider):
    """Type a parameter name and a value; the scene's parameters are offered as you type."""

    @property
    def _app(self) -> SeqvizApp:
        return cast("SeqvizApp", self.app)

    async def discover(self) -> Hits:
        app = self._app
        for spec in app.scene.specs:
            current = spec.format(getattr(app.values, spec.name))
            yield DiscoveryHit(
                plain(f"{spec.name} {current}"),
                partial(app.focus_param, spec.name),
                help=escape(
                    f"{spec.label}: {spec.help}. Type '{spec.name} VALUE' ({spec.allowed()})"
                ),
                text=f"{spec.name} {current}",
            )

    async def search(self, query: str) -> Hits:
        app = self._app
        name, _, rest = query.strip().partition(" ")
        rest = rest.strip()
        if name == "scene":
            from seqviz.scenes import scenes

            for i, scene_name in enumerate(scenes(), start=1):
                if not rest or rest in scene_name or rest == str(i):
                    yield Hit(1.0, f"scene {scene_name}", partial(app.set_scene, scene_name),
                              help=f"switch to scene {i}")  # fmt: skip
            return
        if name == "speed" and rest:
            try:
                speed = float(rest)
                app.check_speed(speed)
            except ValueError as exc:
                yield Hit(0.5, plain(f"speed {rest}: {exc}"), app.bell, text=f"speed {rest}")
                return
            yield Hit(1.0, f"speed {speed:g} frames/s", partial(app.set_speed, speed))
            return
        specs = {s.name: s for s in app.scene.specs}
        if name in specs and rest:
            spec = specs[name]
            try:
                value: Any = spec.parse(rest)
            except ValueError as exc:
                yield Hit(0.5, plain(str(exc)), app.bell, help="not applied", text=query)
                return
            shown = f"set {name} = {spec.format(value)}"
            yield Hit(1.0, plain(shown), partial(app.set_param, name, value),
                      help=escape(spec.help), text=shown)  # fmt: skip
            return
        matcher = self.matcher(name)
        for spec in app.scene.specs:
            score = matcher.match(spec.name)
            if score > 0:
                yield Hit(score, matcher.highlight(f"{spec.name} VALUE"),
                          partial(app.focus_param, spec.name),
                          help=escape(f"{spec.label}: {spec.allowed()}"))  # fmt: skip
