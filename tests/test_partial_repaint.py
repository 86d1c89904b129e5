"""Frames repaint only what changed, and what a terminal then shows is still the whole truth.

Each scene is animated at 160x50 while every screen update the app sends is replayed onto a grid
of cells (ScreenMirror), as a terminal would apply it. Afterwards that grid must equal, cell by
cell (character and style), the screen rendered from scratch by the same app, and the screen a
fresh app draws when it is put straight at the same frame.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from seqviz.scenes import scene_names
from seqviz.ui.compat_textual import ScreenMirror, capture_updates, full_render, paint_now

SIZE = (160, 50)
WAIT_S = 900.0  # the longest wait for a live scene's trainer
FRAME_SCENES = [name for name in scene_names() if name != "training"]


def _diff(a: ScreenMirror, b: ScreenMirror) -> str:
    """The first differing cells, as a readable message (empty if equal)."""
    out = []
    for y, (row_a, row_b) in enumerate(zip(a.cells, b.cells, strict=True)):
        for x, (cell_a, cell_b) in enumerate(zip(row_a, row_b, strict=True)):
            if cell_a != cell_b:
                out.append(f"({x},{y}): {cell_a!r} != {cell_b!r}")
                if len(out) >= 5:
                    return "\n".join(out)
    return "\n".join(out)


async def _drawn(app: Any, pilot: Any) -> None:
    await app.until_ready()
    for field in app.query("Input"):
        field.cursor_blink = False
    await pilot.pause()
    await paint_now(app, pilot)


def _scratch(app: Any) -> ScreenMirror:
    return ScreenMirror.of_strips(full_render(app), SIZE[0])


async def _mirrored(app: Any, pilot: Any) -> ScreenMirror:
    """A mirror of the screen as it is now, then fed every later update of the app."""
    await _drawn(app, pilot)
    mirror = _scratch(app)
    capture_updates(app, mirror.apply)
    return mirror


async def _until(app: Any, pilot: Any, done: Any, what: str) -> None:
    """Let the app run until ``done()``; fail naming ``what`` after WAIT_S seconds (a live
    scene's trainer may be starved for a long time on a loaded machine: wait on the condition,
    never on a count of short pauses)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + WAIT_S
    while not done():
        if loop.time() > end:
            pytest.fail(f"{what}: not within {WAIT_S:.0f} s")
        await pilot.pause(0.05)


async def _fresh_at(make_app: Any, scene: str, values: Any, frame: int) -> ScreenMirror:
    from dataclasses import asdict

    app = make_app(scene, asdict(values))
    async with app.run_test(size=SIZE) as pilot:
        await _drawn(app, pilot)
        app.seek(frame)
        await paint_now(app, pilot)
        return _scratch(app)


@pytest.mark.slow
@pytest.mark.parametrize("scene", FRAME_SCENES)
async def test_an_animated_screen_equals_the_screen_drawn_from_scratch(scene, make_app):
    app = make_app(scene)
    async with app.run_test(size=SIZE) as pilot:
        mirror = await _mirrored(app, pilot)
        n = app.n_frames
        assert n > 0
        shown = []
        # forward one frame at a time, a jump back, then forward again: the ways play moves
        path = [*range(0, min(n, 14) + 1), max(0, n // 3), n // 3 + 1, n, n - 1]
        for frame in path:
            app.seek(frame)
            await paint_now(app, pilot)
            shown.append(app.frame)
            if frame in (min(n, 14), n):
                assert _diff(mirror, _scratch(app)) == "", f"frame {frame}"
        frame, values = app.frame, app.values
        final = _scratch(app)
        assert _diff(mirror, final) == ""
    fresh = await _fresh_at(make_app, scene, values, frame)
    assert _diff(final, fresh) == "", f"{scene} at frame {frame}: animated vs fresh"


@pytest.mark.slow
@pytest.mark.parametrize("scene", ["vanishing", "gates"])
async def test_a_parameter_change_mid_animation_repaints_every_changed_cell(scene, make_app):
    app = make_app(scene)
    async with app.run_test(size=SIZE) as pilot:
        mirror = await _mirrored(app, pilot)
        for frame in range(1, 6):
            app.seek(frame)
            await paint_now(app, pilot)
        name = {"vanishing": "rho", "gates": "scale"}[scene]
        spec = app.scene.spec(name)
        app.set_param(name, spec.nudge(getattr(app.values, name), 1))
        await _drawn(app, pilot)
        app.seek(app.frame + 1)
        await paint_now(app, pilot)
        assert _diff(mirror, _scratch(app)) == ""


@pytest.mark.slow
async def test_the_training_scene_while_it_trains_equals_its_screen_from_scratch(make_app):
    app = make_app("training", {"steps": 400})
    async with app.run_test(size=SIZE) as pilot:
        mirror = await _mirrored(app, pilot)
        seen = set()
        while len(seen) < 4 and not getattr(app.result, "done", False):
            await pilot.pause(0.05)
            await paint_now(app, pilot)
            seen.add(getattr(app.result, "step", None))
        app.pause()
        await paint_now(app, pilot)
        assert len(seen) >= 2  # several results were drawn over each other
        assert _diff(mirror, _scratch(app)) == ""


async def test_the_mirror_sees_a_cell_that_a_frame_forgot():
    """The check can fail: an update that skips a changed cell leaves the mirror stale."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Two(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("aaaa", id="a")

    app = Two()
    async with app.run_test(size=(10, 2)) as pilot:
        await paint_now(app, pilot)
        mirror = ScreenMirror.of_strips(full_render(app), 10)
        capture_updates(app, lambda update: None)  # a terminal that misses the next update
        app.query_one("#a", Static).update("bbbb")
        await paint_now(app, pilot)
        after = ScreenMirror.of_strips(full_render(app), 10)
        assert "bbbb" in after.text() and "aaaa" in mirror.text()
        assert _diff(mirror, after) != ""
        capture_updates(app, mirror.apply)
        app.query_one("#a", Static).update("cccc")
        await paint_now(app, pilot)
        assert _diff(mirror, ScreenMirror.of_strips(full_render(app), 10)) == ""


@pytest.mark.slow
async def test_a_new_training_result_repaints_only_the_newest_columns_of_its_curves(make_app):
    from textual._compositor import ChopsUpdate

    from seqviz.ui.views.training import x_bound

    app = make_app("training", {"steps": 20000, "lag": 3, "hidden": 8, "cells": "rnn lstm"})
    async with app.run_test(size=SIZE) as pilot:
        # The trainer ran while the app started, for however long that took on this machine
        # (a warm forkserver starts it at once): a run begun now and paused at once stops after
        # its first chunk, at most CHUNK_SECONDS of updates, far below update 300.
        app.restart()
        app.pause()
        await _until(app, pilot, lambda: app.stream_idle, "the new run at rest")
        step = 300  # seeded: the same curves at update 300 however the updates came in chunks
        assert app.result.step < step
        app.step(step - app.result.step)
        # every granted step is done, in as many chunks as it takes
        await _until(app, pilot, lambda: app.result.step == step and app.stream_idle,
                     f"update {step} at rest")  # fmt: skip
        await _drawn(app, pilot)
        assert app.result.step == step
        assert x_bound(step + 8, 20000) == x_bound(step, 20000)  # the axes stay: no rescale
        mirror = _scratch(app)
        updates: list[Any] = []

        def keep(update: Any) -> None:
            updates.append(update)
            mirror.apply(update)

        capture_updates(app, keep)
        drawn = 0
        for now in range(step, step + 8):  # one update at a time
            updates.clear()
            app.step(1)
            await _until(app, pilot, lambda now=now: app.result.step > now and app.stream_idle,
                         f"update {now + 1} at rest")  # fmt: skip
            await paint_now(app, pilot)
            assert app.result.step == now + 1
            assert all(isinstance(u, ChopsUpdate) for u in updates)  # no relayout
            for name in ("loss", "acc", "norm"):
                plot = app.query_one(f"#train-{name}")
                region = plot.region
                painted = {
                    x - region.x
                    for u in updates
                    for y, x1, x2 in u.spans
                    if region.y <= y < region.bottom
                    for x in range(max(x1, region.x), min(x2 + 1, region.right))
                }
                # only the cells between the previous and the newest point (none, if the new
                # point fell on pixels already lit: then the picture did not change)
                near = range(plot.column_of(now) - 1, plot.column_of(now + 1) + 2)
                assert painted <= set(near), (name, now, sorted(painted), near)
                drawn += bool(painted)
        assert drawn  # the new updates showed
        assert _diff(mirror, _scratch(app)) == ""


# --- the Training panels redrawn at a capped rate while training runs ----------------------------
# While training runs, the |dL/dh| plot, the forget-gate map and the readout are redrawn at most
# every REFRESH_S (TrainingView). What they must show: whenever training is not running (paused,
# a single step, done) and on the first result of a run, every panel shows the result on screen,
# so the screen equals that result drawn again from scratch into every panel.

TINY = {"lag": 3, "hidden": 8, "cells": "rnn lstm"}


async def _equals_its_result_from_scratch(app: Any, pilot: Any) -> str:
    """The differing cells between the screen and the result on screen drawn again into every
    panel, capped ones included (each widget's picture is a function of its data)."""
    before = _scratch(app)
    view = app._view
    view._draw(app.result)
    view._draw_capped(app.result)
    await paint_now(app, pilot)
    return _diff(before, _scratch(app))


def _capped_forever(monkeypatch: Any) -> Any:
    """While training runs, the capped panels keep the first result of the run; returns a list
    that each shown result appends to: (result, whether the capped panels show it, whether
    training was running)."""
    from seqviz.ui.views import training

    monkeypatch.setattr(training, "REFRESH_S", 1e9)
    shown: list[tuple[Any, bool]] = []
    original = training.TrainingView.show_result

    def show_result(view: Any, result: Any) -> None:
        original(view, result)
        shown.append((result, view.capped_current, view.app.playing))

    monkeypatch.setattr(training.TrainingView, "show_result", show_result)
    return shown


@pytest.mark.slow
async def test_a_pause_brings_the_capped_training_panels_up_to_the_result_on_screen(
        make_app, monkeypatch):  # fmt: skip
    shown = _capped_forever(monkeypatch)
    app = make_app("training", {"steps": 20000, **TINY})
    async with app.run_test(size=SIZE) as pilot:
        mirror = await _mirrored(app, pilot)
        await _until(app, pilot, lambda: bool(shown) and not shown[-1][1],
                     "a result drawn while training, after the run's first")  # fmt: skip
        assert app.playing and not app._view.capped_current  # capped: an older result there
        # From here arriving results stay pending (as the bench holds them): what the screen
        # shows next is the pause's own doing, not a result drawn after it.
        app._rebuilding = True
        app.pause()
        await paint_now(app, pilot)
        paused = _scratch(app)
        assert _diff(mirror, paused) == ""
        assert await _equals_its_result_from_scratch(app, pilot) == ""
        app._rebuilding = False
        app._show_pending()


@pytest.mark.slow
async def test_the_last_training_result_shows_in_every_panel(make_app, monkeypatch):
    shown = _capped_forever(monkeypatch)
    app = make_app("training", {"steps": 600, **TINY})
    async with app.run_test(size=SIZE) as pilot:
        mirror = await _mirrored(app, pilot)
        await app.until_done()
        await paint_now(app, pilot)
        assert app.result.done
        assert any(not current for _, current, _ in shown)  # the panels were capped on the way
        assert _diff(mirror, _scratch(app)) == ""
        assert await _equals_its_result_from_scratch(app, pilot) == ""


@pytest.mark.slow
async def test_while_training_the_capped_panels_take_every_second_result(make_app, monkeypatch):
    from seqviz.ui.views import training

    shown = _capped_forever(monkeypatch)
    monkeypatch.setattr(training, "REFRESH_S", 0.0)  # only the every-second-result rule left
    app = make_app("training", {"steps": 600, **TINY})
    async with app.run_test(size=SIZE) as pilot:
        await _drawn(app, pilot)
        await app.until_done()
    # between the run's first result and its last, drawn while training: every second one
    live = [current for result, current, playing in shown[1:-1] if playing]
    assert len(live) >= 2
    assert all(a != b for a, b in zip(live, live[1:], strict=False)), live
    assert shown[0][1] and shown[-1][1]  # the first and the last: every panel


@pytest.mark.slow
async def test_a_restart_shows_the_new_run_in_every_panel(make_app, monkeypatch):
    from seqviz.ui.views import training

    shown = _capped_forever(monkeypatch)
    app = make_app("training", {"steps": 20000, **TINY})
    async with app.run_test(size=SIZE) as pilot:
        await _drawn(app, pilot)
        await _until(app, pilot, lambda: len(shown) >= 2, "a second result")
        old = app.result.run
        original = training.TrainingView.show_result

        def hold_after_new_run(view: Any, result: Any) -> None:
            original(view, result)
            if result.run != old:  # keep the first result of the new run on screen
                app._rebuilding = True

        monkeypatch.setattr(training.TrainingView, "show_result", hold_after_new_run)
        app.set_param("seed", 1)  # restarts training (a restart with the same seed would begin
        # with the very result that the capped panels showed first)
        await app.until_ready()
        await paint_now(app, pilot)
        assert app.result.run != old and app.playing
        assert await _equals_its_result_from_scratch(app, pilot) == ""
        app._rebuilding = False
        app._show_pending()


@pytest.mark.slow
async def test_while_training_the_status_line_keeps_pace_with_the_capped_panels(
        make_app, monkeypatch):  # fmt: skip
    shown = _capped_forever(monkeypatch)
    app = make_app("training", {"steps": 20000, **TINY})
    results: list[tuple[bool, bool, int]] = []  # (capped panels drawn, playing, status updates)
    show_pending, update_status = app._show_pending, app._update_status
    updates = [0]

    def counted_status() -> None:
        updates[0] += 1
        update_status()

    def counted_show() -> None:
        before, drawn = updates[0], len(shown)
        show_pending()
        if len(shown) > drawn:
            _, capped, playing = shown[-1]
            results.append((capped, playing, updates[0] - before))

    app._update_status, app._show_pending = counted_status, counted_show
    async with app.run_test(size=SIZE) as pilot:
        await _until(app, pilot, lambda: sum(not c and p for c, p, _ in results) >= 3,
                     "results drawn while training, after the run's first")  # fmt: skip
        assert results[0][0] and results[0][2] == 1  # the run's first: panels and status
        assert all(n == 0 for capped, playing, n in results if playing and not capped)
        app._rebuilding = True  # from here arriving results stay pending
        app.pause()
        await paint_now(app, pilot)
        status = str(app.query_one("#status").render())
        assert f"update {app.result.step}/20000 · paused" in status  # caught up at the pause
        app._rebuilding = False
        app._show_pending()
