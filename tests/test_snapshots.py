"""Snapshot tests: every scene at its defaults, at 80x24 and 160x50 (no animation, no blink)."""

from __future__ import annotations

import pytest

from seqviz.scenes import scene_names

SIZES = [(80, 24), (160, 50)]
# Scenes owned by this test module; scenes added later bring their own snapshot tests.
CORE_SCENES = [
    name for name in ("vanishing", "memory", "gates", "gradflow") if name in scene_names()
]


async def _wait_until_drawn(pilot) -> None:
    app = pilot.app
    await app.until_ready()
    for field in app.query("Input"):
        field.cursor_blink = False
    await pilot.pause()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scene", CORE_SCENES)
def test_scene_at_defaults(scene, size, snap_compare, make_app):
    app = make_app(scene)
    assert snap_compare(app, terminal_size=size, run_before=_wait_until_drawn)


def test_overflow_snapshot(snap_compare, make_app):
    app = make_app("vanishing", {"rho": 3.0, "nonlinearity": "linear", "steps": 1000})
    assert snap_compare(app, terminal_size=(160, 50), run_before=_wait_until_drawn)
