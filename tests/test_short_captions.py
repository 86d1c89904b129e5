"""A panel's short caption is made when the screen is compact: a screen resized to a compact
size equals a fresh one at that size, and a large screen has none."""

from __future__ import annotations

from typing import Any

import pytest
from test_partial_repaint import _diff, _drawn

from seqviz.ui.compat_textual import ScreenMirror, full_render
from seqviz.ui.views.base import Panel


async def _screen(app: Any, pilot: Any, width: int) -> ScreenMirror:
    await _drawn(app, pilot)
    return ScreenMirror.of_strips(full_render(app), width)


@pytest.mark.parametrize("scene", ["vanishing", "decoding"])
async def test_a_screen_resized_to_compact_equals_a_fresh_one(make_app, scene):
    size = (80, 24)
    app = make_app(scene)
    async with app.run_test(size=(160, 50)) as pilot:
        await _drawn(app, pilot)
        panels = list(app.query(Panel))
        assert panels and not app.query(".caption-short")  # none made on a large screen
        await pilot.resize_terminal(*size)
        await pilot.pause()
        resized = await _screen(app, pilot, size[0])
        assert len(app.query(".caption-short")) == len(panels)
    fresh_app = make_app(scene)
    async with fresh_app.run_test(size=size) as pilot:
        fresh = await _screen(fresh_app, pilot, size[0])
        assert len(fresh_app.query(".caption-short")) == len(panels)
    assert resized.cells == fresh.cells, _diff(resized, fresh)
