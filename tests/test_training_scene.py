"""The Training scene: live controls (pause, one step, resume, restart, live knobs) and looks."""

from __future__ import annotations

import asyncio

from seqviz.scenes import get_scene
from seqviz.ui.export import screen_text

SMALL = {"steps": 60, "lag": 5, "hidden": 16}
LONG = {"steps": 20000, "lag": 3, "hidden": 8, "cells": "rnn lstm"}


async def _until(predicate, timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError("timed out waiting for the training scene")
        await asyncio.sleep(0.02)


def test_scene_is_registered_with_a_stream():
    scene = get_scene("training")
    assert scene.stream is not None and scene.view.endswith(":TrainingView")
    assert not scene.spec("lr").recompute and not scene.spec("clip").recompute
    assert scene.spec("lag").recompute and scene.spec("hidden").recompute


async def test_finishes_and_shows_the_numbers(make_app):
    app = make_app("training", SMALL)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_done(timeout=120)
        await pilot.pause()
        r = app.result
        assert r.done and r.step == 60 and not app.playing
        text = screen_text(app)
        assert "update 60/60 · done" in text
        for c in r.cells:
            assert f"{c.accuracy[-1]:.0%}" in text and c.cell.upper() in text
        assert " ".join(r.sample).split(" ?")[0] in text.replace("  ", " ")


async def test_pause_one_step_resume_restart(make_app):
    app = make_app("training", LONG)
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(lambda: app.result is not None and app.result.step >= 3)
        await pilot.press("space")
        assert not app.playing
        await asyncio.sleep(0.3)  # a chunk already running finishes and is shown
        await pilot.pause()
        paused_at = app.result.step
        await asyncio.sleep(0.3)
        await pilot.pause()
        assert app.result.step == paused_at  # paused: no more updates
        await pilot.press("right")
        await _until(lambda: app.result.step == paused_at + 1)
        await asyncio.sleep(0.2)
        await pilot.pause()
        assert app.result.step == paused_at + 1  # exactly one update
        await pilot.press("space")
        assert app.playing
        await _until(lambda: app.result.step > paused_at + 5)
        app.set_param("lr", 0.02)  # live: no restart, applies from the next update
        before = app.result.step
        await _until(lambda: app.result.lr == 0.02)
        assert app.result.step >= before
        app.set_param("clip", 0.0)
        await _until(lambda: app.result.clip == 0.0)
        await pilot.press("r")  # restart with the same knobs
        await _until(lambda: app.result.step < before)
        assert app.values.lr == 0.02
        app.set_param("lag", 4)  # structural: restarts on the new task
        await _until(lambda: app.result.values.lag == 4 and app.result.T == 9)
        app.set_scene("gradflow")  # leaving stops the worker
        await app.until_ready(timeout=120)


async def test_a_spike_is_drawn_and_named_in_the_status(make_app):
    values = {"steps": 30, "lag": 10, "hidden": 32, "cells": "rnn", "lr": 2.0,
              "optimizer": "sgd", "clip": 0.0}  # fmt: skip
    app = make_app("training", values)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_done(timeout=120)
        await pilot.pause()
        r = app.result
        spike = r.cells[0].first_spike
        assert spike is not None
        status = str(app.query_one("#status").render())
        assert f"RNN loss spike at update {spike}" in status
        assert "x spike or nan" in screen_text(app)  # the marker's legend in the loss panel
