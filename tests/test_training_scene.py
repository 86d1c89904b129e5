"""The Training scene: live controls (pause, one step, resume, restart, live knobs) and looks."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import re
import shlex
import sys

import pytest

from seqviz.scenes import get_scene
from seqviz.ui.export import screen_text

SMALL = {"steps": 60, "lag": 5, "hidden": 16}
LONG = {"steps": 20000, "lag": 3, "hidden": 8, "cells": "rnn lstm"}


def _trainer_pids() -> set[int]:
    """Training processes alive now (children of this process started for a training run)."""
    return {p.pid for p in multiprocessing.active_children() if p.name == "seqviz-trainer"}


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


@pytest.mark.slow
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
        await app.until_stream_idle()  # the chunk under way is shown, nothing else is coming
        paused_at = app.result.step
        assert app.stream_idle and app._stream.last is app.result
        await pilot.press("right")
        await _until(lambda: app.result.step > paused_at)
        await app.until_stream_idle()
        assert app.result.step == paused_at + 1  # exactly one update, then at rest again
        await pilot.press("space")
        assert app.playing
        await _until(lambda: app.result.step > paused_at + 5)
        app.set_param("lr", 0.02)  # live: no restart, applies from the next update
        before = app.result.step
        await _until(lambda: app.result.lr == 0.02)
        assert app.result.step >= before
        app.set_param("clip", 0.0)
        await _until(lambda: app.result.clip == 0.0)
        trainer, old, generation = _trainer_pids(), app.result, app._generation
        await pilot.press("r")  # restart with the same knobs, in a new training process
        await _until(lambda: app._shown_generation > generation)
        new = app.result
        assert app.values.lr == 0.02 and new.lr == 0.02
        assert len(new.cells[0].loss) == new.step  # a new run: its own curves from update 1
        if new.step:  # the same first batch on the same initial weights: the same first loss
            assert new.cells[0].loss[0] == old.cells[0].loss[0]
        await _until(lambda: not trainer & _trainer_pids())  # the old one has ended
        app.set_param("lag", 4)  # structural: restarts on the new task
        await _until(lambda: app.result.values.lag == 4 and app.result.T == 9)
        await _until(lambda: len(_trainer_pids()) == 1)  # one run, one process
        app.set_scene("gradflow")  # leaving stops the training and its process
        await app.until_ready(timeout=120)
        await _until(lambda: not _trainer_pids())


async def test_quitting_while_training_leaves_no_process(make_app):
    app = make_app("training", LONG)
    async with app.run_test(size=(120, 40)):
        await _until(lambda: app.result is not None and app.result.step >= 1)
        assert len(_trainer_pids()) == 1
    await _until(lambda: not _trainer_pids(), timeout=10)


@pytest.mark.slow
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


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads processes from /proc")
async def test_trains_under_seqviz_serve_and_leaves_no_process():
    """As `seqviz serve` runs it (textual-serve: the web driver, output on a pipe): the scene
    trains and draws its updates, and stopping the session leaves no process behind."""
    from textual_serve.app_service import AppService
    from textual_serve.download_manager import DownloadManager

    data = bytearray()

    async def write_bytes(b: bytes) -> None:
        data.extend(b)

    async def nothing(*_: object) -> None:
        return None

    command = shlex.join([sys.executable, "-m", "seqviz", "--scene", "training",
                          "--set", "lag=3", "--set", "hidden=8"])  # fmt: skip
    service = AppService(command, write_bytes=write_bytes, write_str=nothing, close=nothing,
                         download_manager=DownloadManager())  # fmt: skip
    await service.start(160, 50)
    shell = service._process.pid
    try:
        await _until(lambda: max(map(int, re.findall(rb"update (\d+)/2000", data)), default=0)
                     > 20, timeout=120)  # fmt: skip
        processes = _descendants(shell)
        assert len(processes) >= 3  # the app, and its trainer (via the forkserver)
    finally:
        await service.stop()
    await _until(lambda: not [p for p in processes if _alive(p)], timeout=30)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
