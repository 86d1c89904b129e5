"""Snapshot tests: every scene at its defaults, at 80x24 and 160x50 (no animation, no blink)."""

from __future__ import annotations

import pytest

from seqviz.scenes import scene_names

SIZES = [(80, 24), (160, 50)]
# Scenes owned by this test module; scenes added later bring their own snapshot tests
# (tests/test_scene_contract.py fails for a registered scene without one).
CORE_SCENES = ["vanishing", "memory", "gates", "gradflow"]


def test_core_scenes_are_registered():
    assert set(CORE_SCENES) <= set(scene_names())


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scene", CORE_SCENES)
def test_scene_at_defaults(scene, size, snap_compare, make_app, until_drawn):
    app = make_app(scene)
    assert snap_compare(app, terminal_size=size, run_before=until_drawn)


@pytest.mark.slow
def test_overflow_snapshot(snap_compare, make_app, until_drawn):
    # Input 3.0 keeps the tanh network out of chaos at rho 3 (at the default 0.5 it is chaotic:
    # its gradient curve past ~100 steps follows round-off, which differs between CPUs).
    values = {"rho": 3.0, "nonlinearity": "linear", "steps": 1000, "input_scale": 3.0}
    app = make_app("vanishing", values)
    assert snap_compare(app, terminal_size=(160, 50), run_before=until_drawn)
