"""Headless UI benchmark (`seqviz bench --ui`): frame rates as ratios of Textual's own repaint.

Everything runs in Textual's headless harness at 160x50. A "frame" is what the animation timer
does in the terminal: move the cursor one step, let the widgets handle their refreshes, lay out
and render the changed regions, and encode the update as the terminal's bytes (Textual skips
that last step when headless; here it is done, so writing fewer cells is counted).

The ceiling is Textual repainting the whole screen: one line-API widget filling 160x50 with
coloured cells that all change every frame. It is measured in the same process, in rounds that
alternate with each scene's frames, so each scene's ratio compares two rates taken under the
same load of a shared machine.

Each animated scene gets two rates. "Replay" (``fps``, ``ratio``) cycles through the scene's
frames again and again, as a lecturer stepping back and forth does: most of those frames were
drawn before, so the widgets' line caches serve them. "First play" (``first_play_fps``,
``first_play_ratio``) draws every frame for the first time after a recompute: before each pass
through the frames one parameter changes (``first_play_param``, walking: ``Walk``; the
recompute and its first paint are not timed), so a frame costs what the first pass after a
parameter change costs a user. Both are timed in the same rounds beside the same ceiling.

A live scene (Training) has no frame cursor: its frames are the new results the training
process streams in. There a frame is timed as the app draws it when it arrives: the app's own
``_show_pending`` (the result handed to the view, whose plots add the new points and repaint
only the cells that changed) and the paint, measured while the trainer runs in its process,
with the ceiling measured in the same minute. Waiting for the next result is not counted, so
the rate says how fast the app draws what training produces, not how fast training goes (that
is ``updates_per_s``). While training runs, the view redraws its |dL/dh| plot, forget-gate map
and readout at most every ``REFRESH_S`` (TrainingView): a frame includes them exactly when the
app would draw them at that moment. The same frames with the training paused (one step per
frame, every panel drawn) tell what the running trainer costs the UI. The report is a dict of
sections (``scenes``, ``memory``, ...); a new measurement adds a section and a line to
``format_report``. No wait is unbounded: a stage that draws nothing for ``STALL_S`` (or whose
scene fails) ends the bench with `BenchStopped`, one sentence naming the stage.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json as jsonlib
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from seqviz.bench.launch import cpu_times, steal_percent, stolen_text
from seqviz.scenes import get_scene
from seqviz.scenes import scenes as registered_scenes
from seqviz.ui.compat_textual import capture_updates, paint_now

SIZE = (160, 50)
SCENES = tuple(registered_scenes())  # every registered scene; a live one is timed as it trains
LIVE = frozenset(name for name, scene in registered_scenes().items() if scene.stream is not None)
FRAMES = 120  # per scene (cycling through its frames), and as many ceiling frames beside them
FIRST_PLAY_FRAMES = 60  # per scene, each drawn for the first time after a parameter change
ROUNDS = 3  # ceiling and scene frames alternate in this many rounds
CHANGES = 21  # parameter changes per scene for the latency
LONG_RUN_FRAMES = 3000
QUICK_LONG_RUN_FRAMES = 300
WARM_FRAMES = 200  # drawn before the memory run's first reading
SWITCHES = 30
TRAINING_SECONDS = 10.0  # at most, for each of the two live-scene measurements
FLAT_MB = 10.0  # growth allowed before memory counts as not flat (RSS noise, allocator pools)
TARGET_RATIO = 0.9
STALL_S = 300.0  # no frame painted and no stage begun for this long: the bench stops, naming it
CEILING_RUN = 8  # cells per coloured run in the ceiling's lines


def _rss_mb() -> float:
    """Current resident set size in MB (Linux /proc; 0 where unavailable)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 1e6
    except (OSError, ValueError, IndexError):
        return 0.0


def _ceiling_screen() -> Any:
    """A screen holding only the repaint ceiling: a line-API widget of coloured half-blocks."""
    from rich.segment import Segment
    from rich.style import Style
    from textual.screen import Screen
    from textual.strip import Strip
    from textual.widget import Widget

    palette = [
        Style(color=f"rgb({(37 * i) % 256},{(91 * i) % 256},{(53 * i) % 256})",
              bgcolor=f"rgb({(17 * i) % 256},{(71 * i) % 256},{(29 * i) % 256})")
        for i in range(64)
    ]  # fmt: skip

    class RepaintCeiling(Widget):
        DEFAULT_CSS = "RepaintCeiling { width: 1fr; height: 1fr; }"
        shift = 0

        def advance(self) -> None:
            self.shift += 1
            self.refresh()  # the whole widget: every line, every cell changes colour

        def render_line(self, y: int) -> Strip:
            width, shift = self.size.width, self.shift
            runs = -(-width // CEILING_RUN)
            cells = "▀" * CEILING_RUN
            segments = [Segment(cells, palette[(x + y + shift) % 64]) for x in range(runs)]
            return Strip(segments).crop(0, width)

    class CeilingScreen(Screen[None]):
        def compose(self) -> Any:
            yield RepaintCeiling()

    return CeilingScreen()


class BenchStopped(RuntimeError):
    """The bench could not go on (a stage stalled or its scene failed); the message names it."""


class _Frames:
    """Paints frames and encodes each update into terminal bytes, counting both; and tells
    the watchdog (`_watched`) which stage runs and when it last made progress."""

    def __init__(self, app: Any, pilot: Any) -> None:
        from io import StringIO

        from rich.console import Console

        self.app, self.pilot = app, pilot
        self.bytes = 0
        self.painted = 0
        self.stage = "the app's start"
        width, height = SIZE
        # what a real terminal's driver encodes with (the headless console has 16 colours)
        console = Console(file=StringIO(), width=width, height=height, color_system="truecolor",
                          force_terminal=True, legacy_windows=False)  # fmt: skip
        self.console = console

        def sink(update: Any) -> None:
            self.bytes += len(update.render_segments(console))

        capture_updates(app, sink)

    async def paint(self) -> None:
        await paint_now(self.app, self.pilot)
        self.painted += 1

    def begin(self, stage: str) -> None:
        self.stage = stage
        self.painted += 1  # a new stage is progress too


async def _watched(frames: _Frames, work: Any) -> Any:
    """Run the coroutine ``work``; if it paints nothing and begins no stage for STALL_S, or
    a wait in it times out, stop it and raise BenchStopped naming the stage."""
    task = asyncio.ensure_future(work)
    seen, since = -1, time.monotonic()
    while True:
        done, _ = await asyncio.wait({task}, timeout=min(1.0, STALL_S))
        if done:
            try:
                return task.result()
            except (TimeoutError, asyncio.TimeoutError) as exc:
                why = f": {str(exc).rstrip('.')}" if str(exc) else ""
                raise BenchStopped(f"the UI bench timed out at {frames.stage}{why}.") from exc
        if frames.painted != seen:
            seen, since = frames.painted, time.monotonic()
        elif time.monotonic() - since > STALL_S:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            raise BenchStopped(f"the UI bench stalled at {frames.stage}: nothing was drawn for "
                               f"{STALL_S:.0f} s.")  # fmt: skip


async def _timed(frames: _Frames, step: Callable[[int], None], count: int, start: int) -> float:
    """Seconds for ``count`` frames, each ``step(i)`` then a paint."""
    began = time.perf_counter()
    for i in range(start, start + count):
        step(i)
        await frames.paint()
    return time.perf_counter() - began


async def _ceiling_round(frames: _Frames, count: int) -> float:
    """Seconds for ``count`` ceiling frames. A live scene's results that arrive meanwhile
    wait (the newest only; drawn after the round): drawn into its hidden view they would make
    the ceiling pay for the scene's own drawing, and flatter the scene's ratio."""
    app = frames.app
    held, app._rebuilding = app._rebuilding, True
    try:
        await app.push_screen(_ceiling_screen())
        await frames.paint()
        widget = app.screen.children[0]
        elapsed = await _timed(frames, lambda i: widget.advance(), count, 0)
        await app.pop_screen()
        await frames.paint()
    finally:
        app._rebuilding = held
    return elapsed


async def _scene_frames(frames: _Frames, scene: str) -> dict[str, Any]:
    """The scene's replay frame rate beside the ceiling's, alternating in ROUNDS rounds; then
    its first-play rate the same way (module docstring)."""
    app = frames.app
    if scene in LIVE:
        return await _live_frames(frames, scene)
    app.set_scene(scene)
    await app.until_ready()
    await frames.paint()
    n = max(1, app.n_frames)
    app.seek(0)
    await frames.paint()
    per_round = max(1, FRAMES // ROUNDS)
    scene_s = ceiling_s = 0.0
    for r in range(ROUNDS):
        ceiling_s += await _ceiling_round(frames, per_round)
        app.seek((r * per_round) % (n + 1))
        await frames.paint()
        scene_s += await _timed(frames, lambda i: app.seek(i % (n + 1)), per_round,
                                r * per_round + 1)  # fmt: skip
    count = per_round * ROUNDS
    rates = _rates(count / scene_s, count / ceiling_s)
    change = _changing_param(app.scene, app.values)
    if change is None:
        return rates
    # First play, after the replay (whose later rounds would otherwise start on a new result).
    # Ceiling rounds as long as the replay's: rounds half as long measured a lower ceiling in 7 of
    # 9 scenes of one run (vanishing 39 vs 80 fps), which flattered the first play's ratio.
    first_per_round = max(1, FIRST_PLAY_FRAMES // ROUNDS)
    first_s = ceiling_s = 0.0
    first_count = 0
    walk = Walk(change[0], change[1])
    for _ in range(ROUNDS):
        ceiling_s += await _ceiling_round(frames, per_round)
        seconds, drawn = await _first_play(frames, walk, first_per_round)
        first_s, first_count = first_s + seconds, first_count + drawn
    spec, base, _ = change
    app.set_param(spec.name, base)
    await app.until_ready()
    first, ceiling = first_count / first_s, per_round * ROUNDS / ceiling_s
    rates.update(first_play_fps=round(first, 1), first_play_ceiling_fps=round(ceiling, 1),
                 first_play_ratio=round(first / ceiling, 2),
                 first_play_param=spec.name)  # fmt: skip
    return rates


class Walk:
    """The values a bench run gives one parameter: a number steps one way and turns at a bound,
    so no value comes back while the range lasts; a choice cycles. Toggling between two values
    let the widgets' content-keyed line caches (KeptLines, a heatmap's kept colour bins) serve
    every change after the second from what they drew two changes before: neither a first
    draw nor what a user walking a parameter with `+` waits for."""

    def __init__(self, spec: Any, value: Any) -> None:
        self.spec, self.value = spec, value
        self.direction = 1 if spec.nudge(value, 1) != value else -1
        self.repeats = spec.kind == "choice"  # a few choices come back: forget before each

    def next(self) -> Any:
        value = self.spec.nudge(self.value, self.direction)
        if value == self.value:  # at a bound: turn
            self.direction = -self.direction
            value = self.spec.nudge(self.value, self.direction)
        self.value = value
        return value


def forget_kept(app: Any) -> int:
    """Make every widget on screen drop the lines and data it keeps per content, as if it had
    never shown any (the next draw of each is a first draw); returns how many forgot."""
    forgot = 0
    for node in app.screen.walk_children(with_self=False):
        forget = getattr(node, "forget_kept", None)
        if callable(forget):
            forget()
            forgot += 1
    return forgot


async def _first_play(frames: _Frames, walk: Walk, count: int) -> tuple[float, int]:
    """Seconds and frames for ``count`` frames each drawn for the first time after a recompute:
    before each pass the parameter takes its walk's next value (untimed: the recompute and the
    paint of the frame at the cursor), then the pass steps through every other frame once. A
    choice's values come back, so the widgets forget what they kept before each pass."""
    app = frames.app
    elapsed, drawn = 0.0, 0
    while drawn < count:
        if walk.repeats:
            forget_kept(app)
        app.set_param(walk.spec.name, walk.next())
        await app.until_ready()
        await frames.paint()
        n, start = max(1, app.n_frames), app.frame
        passes = min(n, count - drawn)  # frames start+1 .. start+n (mod n+1): all but start

        def step(i: int, n: int = n) -> None:
            app.seek(i % (n + 1))

        elapsed += await _timed(frames, step, passes, start + 1)
        drawn += passes
    return elapsed, drawn


def _rates(fps: float, ceiling: float) -> dict[str, Any]:
    return {"fps": round(fps, 1), "ceiling_fps": round(ceiling, 1),
            "ratio": round(fps / ceiling, 2)}  # fmt: skip


async def _new_result_frames(frames: _Frames, seconds: float, ask: Callable[[], None] | None,
                             most: int = FRAMES) -> tuple[int, float]:  # fmt: skip
    """Frames of a live scene, each what the app does when a new result arrives: the app's own
    ``_show_pending`` (the new points drawn into the widgets on screen) and the paint of what
    changed. Only those are timed: the wait for the next result is not (the app is idle then).
    ``ask`` requests each result (a step while paused; None: the running trainer sends them).
    Returns (frames, seconds spent drawing them); stops after about ``seconds`` of waiting."""
    app = frames.app
    count, drawing = 0, 0.0
    start = time.perf_counter()
    app._rebuilding = True  # arriving results stay pending (the newest only) until drawn here
    try:
        while count < most and time.perf_counter() - start < seconds:
            if ask is not None:
                ask()
            while app._pending is None and time.perf_counter() - start < seconds:
                await asyncio.sleep(0.002)
            if app._pending is None:
                break
            began = time.perf_counter()
            app._rebuilding = False
            app._show_pending()
            app._rebuilding = True
            await frames.paint()
            drawing += time.perf_counter() - began
            count += 1
    finally:
        app._rebuilding = False
        app._show_pending()
    return count, drawing


async def _live_frames(frames: _Frames, scene: str) -> dict[str, Any]:
    """A live scene (Training). A frame is what the app does when a new result arrives while
    it trains: the new points drawn and the changed cells painted (``_new_result_frames``);
    its rate is counted over the drawing time, beside the ceiling measured under the same load
    (the trainer's process keeps running meanwhile). Also: the updates per second made, and
    the same frames while paused (each result asked for with one step), whose ratio is what
    the training process costs the UI."""
    app = frames.app
    long_run = {"steps": 20000} if "steps" in get_scene(scene).param_names else None
    frames.begin(f"the {scene} scene's first result")
    app.set_scene(scene, long_run)
    while getattr(app.result, "step", 0) < 1:
        if app._error:  # e.g. the training process ended: no result will come
            raise BenchStopped(f"the UI bench stopped at {frames.stage}: "
                               f"{app._error.rstrip('.')}.")  # fmt: skip
        await asyncio.sleep(0.02)
    frames.begin(f"the {scene} scene's frames")
    start_step = app.result.step
    start = time.perf_counter()
    per_round = max(1, FRAMES // ROUNDS)
    ceiling_s = drawing = 0.0
    count = 0
    for _ in range(ROUNDS):  # alternating, as for the other scenes: the same load for both
        ceiling_s += await _ceiling_round(frames, per_round)
        n, seconds = await _new_result_frames(frames, TRAINING_SECONDS / ROUNDS, None, per_round)
        count, drawing = count + n, drawing + seconds
    updates = (app.result.step - start_step) / (time.perf_counter() - start)
    frames.begin(f"the {scene} scene's frames while paused")
    app.pause()
    await app.until_stream_idle()
    await frames.paint()
    paused_count, paused_drawing = await _new_result_frames(frames, TRAINING_SECONDS,
                                                            lambda: app.step(1))  # fmt: skip
    app.set_scene("vanishing")  # stops the training
    await app.until_ready()
    fps = count / drawing if drawing else 0.0
    paused = paused_count / paused_drawing if paused_drawing else 0.0
    result = _rates(fps, per_round * ROUNDS / ceiling_s)
    result.update(
        updates_per_s=round(updates, 1),
        fps_paused=round(paused, 1),
        frames_while_training=count,
        frames_paused=paused_count,
        fps_while_training_over_paused=round(fps / paused, 2) if paused else 0.0,
    )
    return result


def _changing_param(scene: Any, values: Any, recompute: bool = True,
                    ) -> tuple[Any, Any, Any] | None:  # fmt: skip
    """(spec, value now, another value) of the parameter that a latency run and a first play
    change: the scene's first active, shown number that recomputes and can move, else its first
    such choice (a scene with only texts and choices: tagging, inside); None if there is none.
    ``recompute=False``: the same among the parameters that only change the view (a cursor)."""
    # a hidden row (e.g. gates' layer for a one-layer model) changes nothing the user could see
    skip = set(scene.inactive_params(values))
    skip |= scene.hidden(values) if scene.hidden is not None else frozenset()
    specs = [s for s in scene.specs if s.recompute == recompute and s.name not in skip]
    for kinds in (("float", "int"), ("choice",)):
        for spec in (s for s in specs if s.kind in kinds):
            base = getattr(values, spec.name)
            other = next((v for v in (spec.nudge(base, 1), spec.nudge(base, -1)) if v != base),
                         None)  # fmt: skip
            if other is not None:
                return spec, base, other
    return None


async def _latency(frames: _Frames, scene_name: str, changes: int, recompute: bool = True,
                   ) -> dict[str, Any] | None:  # fmt: skip
    """Milliseconds from a parameter change to the new result painted, one parameter walking
    (``Walk``: a number never comes back while its range lasts, as a user pressing `+` sees;
    a choice cycles, as a user flipping models does). ``recompute=False``: a parameter that
    changes only the view (e.g. gates' unit cursor), none if the scene has none."""
    app = frames.app
    app.set_scene(scene_name)
    await app.until_ready()
    # From the last frame, everything drawn: what a user who watched the animation end, or
    # switched to the scene, changes from. A scene still shown from the frame-rate stage would
    # stand mid-animation, its maps half drawn (vanishing alone: 12.5 ms of UI CPU a change at
    # frame 59 of 120, 19-20 ms at the end), and measure less than a user waits.
    app.seek(app.n_frames)
    await frames.paint()
    change = _changing_param(app.scene, app.values, recompute)
    if change is None:
        return None
    spec, base, _ = change
    walk = Walk(spec, base)
    times = []
    for _ in range(changes):
        value = walk.next()
        await frames.paint()
        start = time.perf_counter()
        app.set_param(spec.name, value)
        await app.until_ready()
        await frames.paint()
        times.append((time.perf_counter() - start) * 1000)
    app.set_param(spec.name, base)
    await app.until_ready()
    return {"param": spec.name, "changes": changes, "median_ms": round(statistics.median(times), 1),
            "max_ms": round(max(times), 1)}  # fmt: skip


async def _long_run(frames: _Frames, scene: str, count: int) -> dict[str, Any]:
    """RSS (MB) before and after ``count`` animation frames (looping over the scene; the slowest
    scene that animates frames: a live one draws results, not frames)."""
    app = frames.app
    app.set_scene(scene)
    await app.until_ready()
    n = max(1, app.n_frames)
    for frame in range(WARM_FRAMES):  # warm caches first: only growth after that counts
        app.seek(frame % (n + 1))
        await frames.paint()
    before = _rss_mb()
    for frame in range(count):
        app.seek(frame % (n + 1))
        await frames.paint()
        if frame % 100 == 0:
            await asyncio.sleep(0)  # let queued messages run, as in a live app
    await frames.paint()
    return {"scene": scene, "count": count, "rss_mb_before": round(before, 1),
            "rss_mb_after": round(_rss_mb(), 1)}  # fmt: skip


async def _switches(frames: _Frames, count: int, among: tuple[str, ...] = SCENES,
                    ) -> dict[str, Any]:  # fmt: skip
    """RSS (MB) before and after ``count`` scene switches (each drawn), after one warm cycle."""
    app = frames.app
    names = [s for s in among if s not in LIVE] or ["vanishing"]
    for name in names:  # every view built once: imports and caches are not growth
        app.set_scene(name)
        await app.until_ready()
        await frames.paint()
    gc.collect()
    before = _rss_mb()
    for i in range(count):
        app.set_scene(names[i % len(names)] if len(names) > 1 else ("memory", "vanishing")[i % 2])
        await app.until_ready()
        await frames.paint()
    gc.collect()
    return {"count": count, "rss_mb_before": round(before, 1), "rss_mb_after": round(_rss_mb(), 1)}


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


async def _measure(long_run_frames: int, only: tuple[str, ...] | None = None) -> dict[str, Any]:
    from seqviz.ui.app import SeqvizApp

    names = SCENES if only is None else tuple(n for n in SCENES if n in only)

    app = SeqvizApp(animate=False)
    results: dict[str, Any] = {"size": list(SIZE), "load_average": _load()}
    ticks = cpu_times()
    async with app.run_test(size=SIZE) as pilot:
        frames = _Frames(app, pilot)
        scenes, long_run, switches = await _watched(
            frames, _stages(frames, names, long_run_frames))  # fmt: skip
    slowest = min(scenes, key=lambda name: scenes[name]["ratio"])
    growth = max(long_run["rss_mb_after"] - long_run["rss_mb_before"],
                 switches["rss_mb_after"] - switches["rss_mb_before"])  # fmt: skip
    results.update(
        ceiling="one line-API widget repainting all 160x50 cells in runs of "
        f"{CEILING_RUN} colours, every cell changing each frame",
        scenes=scenes,
        slowest={"scene": slowest, "ratio": scenes[slowest]["ratio"]},
        slowest_first_play=_slowest_first_play(scenes),
        target_ratio=TARGET_RATIO,
        memory={"frames": long_run, "switches": switches, "flat": growth <= FLAT_MB},
        load_average_after=_load(),
        steal_percent=steal_percent(ticks, cpu_times()),
    )
    if only is None or "seq2seq" in only:
        wall, cpu = seq2seq_recompute_ms()
        results["seq2seq_recompute_30_words"] = {"median_ms": round(wall, 1),
                                                 "cpu_ms": round(cpu, 1)}  # fmt: skip
    return results


async def _stages(frames: _Frames, names: tuple[str, ...], long_run_frames: int) -> Any:
    """The scenes' frame rates and latencies, then the memory runs (each stage named)."""
    app = frames.app
    await app.until_ready()
    scenes: dict[str, Any] = {}
    for name in names:
        frames.begin(f"the {name} scene's frame rates")
        scenes[name] = await _scene_frames(frames, name)
    for name in names:
        if name in LIVE:
            continue  # its parameters steer the running worker: no result to wait for
        frames.begin(f"the {name} scene's change -> repaint latency")
        latency = await _latency(frames, name, CHANGES)
        if latency is not None:
            scenes[name]["latency"] = latency
        view = await _latency(frames, name, CHANGES, recompute=False)
        if view is not None:  # e.g. a cursor: what a lecturer changes most
            scenes[name]["latency_view"] = view
    animated = [name for name in scenes if name not in LIVE] or ["vanishing"]
    busiest = min(animated, key=lambda name: scenes.get(name, {"ratio": 0})["ratio"])
    frames.begin(f"the memory run over {busiest}'s frames")
    long_run = await _long_run(frames, busiest, long_run_frames)
    frames.begin("the memory run over scene switches")
    switches = await _switches(frames, SWITCHES, names)
    return scenes, long_run, switches


def _slowest_first_play(scenes: dict[str, Any]) -> dict[str, Any] | None:
    played = {name: s["first_play_ratio"] for name, s in scenes.items() if "first_play_ratio" in s}
    if not played:
        return None
    name = min(played, key=played.__getitem__)
    return {"scene": name, "ratio": played[name]}


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def format_report(results: dict[str, Any]) -> str:
    """The text report: one line per scene, then the other sections present."""
    width, height = results["size"]
    load = " ".join(map(str, results["load_average"]))
    lines = [
        f"frame rates at {width}x{height}, as a ratio of Textual's full-screen repaint measured "
        f"beside each scene (target >= {results['target_ratio']}; load "
        f"{load}{stolen_text(results.get('steal_percent'))})",
        "  replay: the scene's frames again and again (drawn before: cached); first: each frame's "
        "first pass after a parameter change; change -> repaint: a parameter that recomputes, "
        "then one that changes only the view (a cursor), where the scene has one",
        f"  {'scene':<10} {'fps':>7} {'ceiling':>8} {'replay':>6} {'first':>6}   "
        "change -> repaint (median/max)",
    ]
    for name, r in results["scenes"].items():
        latency = r.get("latency")
        change = (
            f"{latency['median_ms']:6.1f} / {latency['max_ms']:6.1f} ms ({latency['param']})"
            if latency
            else (f"new results drawn while training ({r['updates_per_s']:.0f} updates/s), "
                  f"{r['fps_paused']:.1f} fps paused" if "updates_per_s" in r else "")
        )  # fmt: skip
        view = r.get("latency_view")
        if view:
            change += f"; {view['median_ms']:.1f} / {view['max_ms']:.1f} ms ({view['param']})"
        low = min(r["ratio"], r.get("first_play_ratio", r["ratio"]))
        mark = "" if low >= results["target_ratio"] else " <"
        first = f"{r['first_play_ratio']:6.2f}" if "first_play_ratio" in r else f"{'-':>6}"
        rates = f"{r['fps']:7.1f} {r['ceiling_fps']:8.1f} {r['ratio']:6.2f} {first}"
        lines.append(f"  {name:<10} {rates}{mark:2} {change}")
    slowest = results["slowest"]
    lines.append(f"slowest: {slowest['scene']} at {slowest['ratio']:.2f} of the ceiling")
    played = results.get("slowest_first_play")
    if played:
        lines.append(f"slowest first play: {played['scene']} at {played['ratio']:.2f} of the "
                     "ceiling")  # fmt: skip
    memory = results.get("memory")
    if memory:
        f, s = memory["frames"], memory["switches"]
        lines.append(
            f"memory over {f['count']} frames ({f['scene']}): {f['rss_mb_before']:.1f} -> "
            f"{f['rss_mb_after']:.1f} MB; over {s['count']} scene switches: "
            f"{s['rss_mb_before']:.1f} -> {s['rss_mb_after']:.1f} MB "
            f"({'flat' if memory['flat'] else 'NOT flat'})"
        )
    if "launch" in results:
        from seqviz.bench.launch import format_launch

        lines.append(format_launch(results["launch"]))
    s2s = results.get("seq2seq_recompute_30_words")
    if s2s:
        lines.append(
            f"seq2seq scene, 30-word source, full recompute: median {s2s['median_ms']:.1f} ms "
            f"({s2s['cpu_ms']:.1f} ms of CPU)"
        )
    return "\n".join(lines)


def run_ui_bench(json: bool = False, quick: bool = False,
                 scenes: tuple[str, ...] | None = None) -> int:  # fmt: skip
    """Run the UI benchmark and print it; returns the process exit code (1 if memory grew).

    ``quick`` shortens the memory check (QUICK_LONG_RUN_FRAMES frames) and the launch timing
    (seqviz.bench.launch); the frame rates and the latency are measured as in a full run.
    ``scenes`` measures only those (their memory too) and no launch; ValueError naming an
    unknown one.
    """
    if scenes:
        unknown = [name for name in scenes if name not in SCENES]
        if unknown:
            raise ValueError(f"unknown scene {unknown[0]!r}; the scenes are {', '.join(SCENES)}")
    only = tuple(scenes) if scenes else None
    results = asyncio.run(_measure(QUICK_LONG_RUN_FRAMES if quick else LONG_RUN_FRAMES, only))
    if only is None:
        from seqviz.bench.launch import bench_launch

        results["launch"] = bench_launch(quick=quick)  # cold and warm, in fresh processes
    print(jsonlib.dumps(results, indent=2) if json else format_report(results))
    return 0 if results["memory"]["flat"] else 1
