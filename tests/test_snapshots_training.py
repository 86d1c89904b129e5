"""Snapshots of the Training scene: a short seeded run, finished, at 80x24 and 160x50."""

from __future__ import annotations

import pytest

SMALL = {"steps": 60, "lag": 5, "hidden": 16}


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_training_snapshot(size, snap_compare, make_app, until_drawn):
    async def finished(pilot):  # the last result of the seeded run: the same on every machine
        await pilot.app.until_done(timeout=300)
        await until_drawn(pilot)

    app = make_app("training", SMALL)
    assert snap_compare(app, terminal_size=size, run_before=finished)
