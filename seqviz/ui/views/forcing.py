"""Interventions in a scene view: keys a (ablate the cursor unit), c (clamp it to the clamp
value) and x (clear), bound by the app to the view's actions; the status-line label and the
readout lines of what is forced."""

from __future__ import annotations

from typing import Any

from rich.text import Text


def forced_label(forcing: Any) -> str:
    """' │ forced: c[34] ablated' for the status line, '' when nothing is forced."""
    return "" if forcing is None else f"  │  forced: {forcing.summary}"


def forcing_lines(forcing: Any) -> list[Text]:
    """Readout lines: what is forced and the held-out accuracy beside the intact model's."""
    if forcing is None:
        return []
    lines = [Text(f"forced: {forcing.summary}", style="bold")]
    return lines + [Text(line, style="bold") for line in forcing.accuracy_lines()]


class ForceActions:
    """Mixin for a SceneView whose scene has the intervention parameters and that names the
    (state, unit) under its cursor in ``cursor_unit``."""

    def cursor_unit(self) -> tuple[str, int] | None:  # pragma: no cover - overridden
        return None

    def action_force(self, clamp: int) -> None:
        from seqviz.scenes.forcing import added

        me: Any = self
        unit = self.cursor_unit()
        values = me.values or (me.result.values if me.result is not None else None)
        if unit is None or values is None:
            return
        self._set_forced(added(values, unit[0], unit[1], bool(clamp)))

    def action_clear_forced(self) -> None:
        self._set_forced("")

    def _set_forced(self, record: str) -> None:
        app: Any = getattr(self, "app", None)
        if app is None or not hasattr(app, "if_scene"):
            return
        app.if_scene(getattr(self, "scene_name", app.scene.name), app.set_param, "intervene",
                     record)  # fmt: skip
