"""What keeps an animation frame cheap: no frame re-lays the screen out, caches are right."""

from __future__ import annotations

import pytest

from seqviz.ui.compat_textual import paint_now
from seqviz.ui.widgets.readout import Readout

SIZE = (160, 50)


@pytest.mark.parametrize("scene", ["gates", "inside"])
async def test_no_animation_frame_changes_a_readout_height(scene, make_app):
    # A readout whose line count changed between frames (a values line that wraps, after a
    # one-line "nothing read yet") re-laid the whole screen out on that frame and the next.
    app = make_app(scene)
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await pilot.pause()
        heights = {}
        for frame in range(app.n_frames + 1):
            app.seek(frame)
            await paint_now(app, pilot)
            for readout in app.query(Readout):
                heights.setdefault(readout.id, set()).add(readout.size.height)
        assert heights
        assert all(len(h) == 1 for h in heights.values()), heights
