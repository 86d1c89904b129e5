"""Command-palette provider: "rho 1.2" sets a parameter, "scene memory" switches, "speed 30"."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from seqviz.ui.app import SeqvizApp


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
                f"{spec.name} {current}",
                partial(app.focus_param, spec.name),
                help=f"{spec.label}: {spec.help}. Type '{spec.name} VALUE' ({spec.allowed()})",
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
                yield Hit(0.5, f"speed {rest}: {exc}", app.bell)
                return
            yield Hit(1.0, f"speed {speed:g} frames/s", partial(app.set_speed, speed))
            return
        specs = {s.name: s for s in app.scene.specs}
        if name in specs and rest:
            spec = specs[name]
            try:
                value: Any = spec.parse(rest)
            except ValueError as exc:
                yield Hit(0.5, f"{exc}", app.bell, help="not applied")
                return
            yield Hit(1.0, f"set {name} = {spec.format(value)}",
                      partial(app.set_param, name, value), help=spec.help)  # fmt: skip
            return
        matcher = self.matcher(name)
        for spec in app.scene.specs:
            score = matcher.match(spec.name)
            if score > 0:
                yield Hit(score, matcher.highlight(f"{spec.name} VALUE"),
                          partial(app.focus_param, spec.name),
                          help=f"{spec.label}: {spec.allowed()}")  # fmt: skip
