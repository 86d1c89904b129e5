"""Headless UI benchmark (`seqviz bench --ui`): animation frame rate, parameter-to-repaint latency.

Everything runs in Textual's headless test harness at 160x50, so the numbers include the real
widget updates and the compositor's rendering of every changed line, but not a terminal's own
drawing. A "frame" is: move the animation cursor one step, then render the screen.
"""

from __future__ import annotations

import asyncio
import json as jsonlib
import os
import statistics
import time
from typing import Any

from seqviz.scenes import scenes
from seqviz.ui.compat_textual import paint_now

SIZE = (160, 50)
# every registered scene; a streaming one (training) is measured while it trains, below
SCENES = tuple(name for name, scene in scenes().items() if scene.stream is None)
FRAMES = 120
CHANGES = 21
LONG_RUN_FRAMES = 3000
TRAINING_SECONDS = 10.0  # at most, for each of the two training-scene measurements
QUICK_LONG_RUN_FRAMES = 300


def _rss_mb() -> float:
    """Current resident set size in MB (Linux /proc; 0 where unavailable)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 1e6
    except (OSError, ValueError, IndexError):
        return 0.0


async def _paint(app: Any, pilot: Any) -> None:
    """Lay out and render the changed regions now, without Pilot.pause's idle sleeps."""
    await paint_now(app, pilot)


async def _frame_rate(app: Any, pilot: Any, scene: str) -> float:
    app.set_scene(scene)
    await app.until_ready()
    await pilot.pause()
    n = app.n_frames
    app.seek(0)
    await _paint(app, pilot)
    count = min(FRAMES, n)
    start = time.perf_counter()
    for frame in range(1, count + 1):
        app.seek(frame)
        await _paint(app, pilot)
    elapsed = time.perf_counter() - start
    return count / elapsed if elapsed > 0 else float("inf")


async def _param_latency(app: Any, pilot: Any) -> list[float]:
    """Milliseconds from set_param to the new result painted, for alternating rho values."""
    app.set_scene("vanishing")
    await app.until_ready()
    await pilot.pause()
    times = []
    for i in range(CHANGES):
        rho = 1.05 if i % 2 == 0 else 1.0
        await pilot.pause()
        start = time.perf_counter()
        app.set_param("rho", rho)
        await app.until_ready()
        await _paint(app, pilot)
        times.append((time.perf_counter() - start) * 1000)
    return times


async def _redraw_rate(app: Any, pilot: Any, seconds: float) -> tuple[int, float]:
    """Frames of the Training scene drawn in about ``seconds``, each the newest result drawn
    from scratch: the plots' picture caches are emptied first, so that a frame costs what a new
    result costs (never a cache hit), whether or not a new one came in. Meanwhile the app's own
    drawing of arriving results is held back (private flags), so the frames are all counted."""
    from seqviz.ui.widgets.plots import SafePlot

    view = app._view
    plots = list(view.query(SafePlot))
    frames = 0
    app._rebuilding = True  # the app keeps arriving results pending instead of drawing them
    try:
        start = time.perf_counter()
        while frames < FRAMES and time.perf_counter() - start < seconds:
            for plot in plots:
                plot._pictures.clear()
            newest = app._pending.result if app._pending is not None else app.result
            view.show_result(newest)
            await _paint(app, pilot)
            frames += 1
        elapsed = time.perf_counter() - start
    finally:
        app._rebuilding = False
        app._show_pending()
    return frames, elapsed


async def _training_frame_rate(app: Any, pilot: Any) -> tuple[float, float, float]:
    """Frames per second of the Training scene while it trains, the updates per second made
    meanwhile, and the frames per second of the same redraws with the training paused (what
    the training itself costs the UI is the ratio of the two)."""
    app.set_scene("training", {"steps": 20000})
    while getattr(app.result, "step", 0) < 1:
        await pilot.pause(0.02)
    start_step = app.result.step
    start = time.perf_counter()
    frames, elapsed = await _redraw_rate(app, pilot, TRAINING_SECONDS)
    while app.result.step == start_step and time.perf_counter() - start < 2 * TRAINING_SECONDS:
        await pilot.pause(0.02)  # until a chunk of updates is in: a fast machine's short window
    updates = (app.result.step - start_step) / (time.perf_counter() - start)
    app.pause()
    await app.until_stream_idle()
    paused_frames, paused_elapsed = await _redraw_rate(app, pilot, TRAINING_SECONDS)
    app.set_scene("vanishing")  # stops the training
    await app.until_ready()
    return frames / elapsed, updates, paused_frames / paused_elapsed


async def _long_run(app: Any, pilot: Any, scene: str, frames: int) -> tuple[float, float]:
    """RSS (MB) before and after ``frames`` animation frames (looping over the scene)."""
    app.set_scene(scene)
    await app.until_ready()
    await pilot.pause()
    n = max(1, app.n_frames)
    for frame in range(200):  # warm caches first: only growth after that counts
        app.seek(frame % (n + 1))
        await _paint(app, pilot)
    before = _rss_mb()
    for frame in range(frames):
        app.seek(frame % (n + 1))
        await _paint(app, pilot)
        if frame % 100 == 0:
            await asyncio.sleep(0)  # let queued messages run, as in a live app
    await pilot.pause()
    return before, _rss_mb()


def seq2seq_recompute_ms(repeats: int = 21) -> tuple[float, float]:
    """Median milliseconds (wall clock, and CPU time of this process, which a busy machine does
    not inflate) of the seq2seq scene's whole compute for a 30-word source: encoder forward,
    greedy decode with attention, the teacher-forced and the free-running pass."""
    from seqviz.scenes import get_scene
    from seqviz.tasks.translation import pairs

    scene = get_scene("seq2seq")
    values = scene.make({"source": pairs(1, seed=0, min_len=30, max_len=30)[0][0]})
    scene.compute(values)  # load the model and compile the kernels first
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        scene.compute(values)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu)


async def _measure(long_run_frames: int) -> dict[str, Any]:
    from seqviz.ui.app import SeqvizApp

    app = SeqvizApp(animate=False)
    results: dict[str, Any] = {"size": list(SIZE)}
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        fps = {scene: await _frame_rate(app, pilot, scene) for scene in SCENES}
        busiest = min(fps, key=lambda name: fps[name])
        training_fps, training_updates, paused_fps = await _training_frame_rate(app, pilot)
        latency = await _param_latency(app, pilot)
        before, after = await _long_run(app, pilot, busiest, long_run_frames)
    results.update(
        fps_by_scene={k: round(v, 1) for k, v in fps.items()},
        busiest_scene=busiest,
        fps=round(fps[busiest], 1),
        fps_while_training=round(training_fps, 1),
        fps_training_paused=round(paused_fps, 1),
        training_fps_ratio=round(training_fps / paused_fps, 2),
        training_updates_per_s=round(training_updates, 1),
        param_to_repaint_ms_median=round(statistics.median(latency), 1),
        param_to_repaint_ms_max=round(max(latency), 1),
        long_run_frames=long_run_frames,
        rss_mb_before=round(before, 1),
        rss_mb_after=round(after, 1),
    )
    wall, cpu = seq2seq_recompute_ms()
    results.update(seq2seq_recompute_ms_30_words=round(wall, 1),
                   seq2seq_recompute_cpu_ms_30_words=round(cpu, 1))  # fmt: skip
    return results


def run_ui_bench(json: bool = False, quick: bool = False) -> int:
    """Run the UI benchmark and print it; returns the process exit code.

    ``quick`` shortens only the memory check (QUICK_LONG_RUN_FRAMES frames); the frame rates and
    the latency are measured as in a full run.
    """
    results = asyncio.run(_measure(QUICK_LONG_RUN_FRAMES if quick else LONG_RUN_FRAMES))
    from seqviz.ui.bench_launch import bench_launch, format_launch

    results["launch"] = bench_launch(quick=quick)  # cold and warm, in fresh processes
    if json:
        print(jsonlib.dumps(results, indent=2))
        return 0
    print(f"{results['fps']:.0f} fps  (busiest scene: {results['busiest_scene']}, 160x50)")
    for scene, fps in results["fps_by_scene"].items():
        print(f"  {scene:<10} {fps:7.1f} fps")
    print(
        f"  {'training':<10} {results['fps_while_training']:7.1f} fps while training "
        f"({results['training_updates_per_s']:.0f} updates/s in the training process), "
        f"{results['fps_training_paused']:.1f} fps paused: "
        f"{results['training_fps_ratio']:.2f} of it"
    )
    print(
        f"parameter change -> repainted frame: median {results['param_to_repaint_ms_median']:.1f}"
        f" ms, max {results['param_to_repaint_ms_max']:.1f} ms"
    )
    print(
        "seq2seq scene, 30-word source, full recompute: median "
        f"{results['seq2seq_recompute_ms_30_words']:.1f} ms "
        f"({results['seq2seq_recompute_cpu_ms_30_words']:.1f} ms of CPU)"
    )
    print(
        f"memory over {results['long_run_frames']} frames: {results['rss_mb_before']:.1f} MB -> "
        f"{results['rss_mb_after']:.1f} MB"
    )
    print(format_launch(results["launch"]))
    return 0
