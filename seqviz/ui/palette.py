"""Command-palette provider: "rho 1.2" sets a parameter, "scene memory" switches, "speed 30"."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

from seqviz.ui.compat_textual import SafeCommandPalette

__all__ = ["ParamCommands", "SafeCommandPalette", "plain"]

if TYPE_CHECKING:
    from seqviz.ui.app import SeqvizApp


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
                partial(app.if_scene, app.scene.name, app.focus_param, spec.name),
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
            from seqviz.scenes import scene_names

            for i, scene_name in enumerate(scene_names(), start=1):
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
            set_it = partial(app.if_scene, app.scene.name, app.set_param, name, value)
            yield Hit(1.0, plain(shown), set_it,
                      help=escape(spec.help), text=shown)  # fmt: skip
            return
        matcher = self.matcher(name)
        for spec in app.scene.specs:
            score = matcher.match(spec.name)
            if score > 0:
                yield Hit(score, matcher.highlight(f"{spec.name} VALUE"),
                          partial(app.if_scene, app.scene.name, app.focus_param, spec.name),
                          help=escape(f"{spec.label}: {spec.allowed()}"))  # fmt: skip
