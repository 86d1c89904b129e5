"""`seqviz bench --ui`: what it reports is what it measured (tiny settings; no timing asserted)."""

from __future__ import annotations

import json

import pytest

from seqviz.bench import ui as bench

pytestmark = pytest.mark.slow  # runs the UI benchmark

LAUNCH = {
    "size": [160, 50],
    "usable": "first result, then + and its result",
    "load": 1.0,
    "cold": {"first_frame": 1.5, "usable": 2.0, "kernels": None},
    "warm": {k: {"median": 0.5, "max": 0.7} for k in ("first_frame", "usable", "kernels")},
    "floor": {k: {"median": 0.3, "max": 0.4} for k in ("first_frame", "usable")},
    "warm_runs": 1,
}  # fmt: skip  (launches are timed in fresh processes: tests/test_bench_launch.py)


@pytest.fixture(autouse=True)
def _no_launches(monkeypatch):
    from seqviz.bench import launch as bench_launch

    monkeypatch.setattr(bench_launch, "bench_launch", lambda quick: LAUNCH)


def _quotient_of(reported, num, den, places=2):
    """Whether ``reported`` (rounded to ``places``) is num/den for some unrounded num and den
    that round to the reported ones (1 decimal): the bounds come from the rounding itself, so
    a low frame rate (whose 0.05 is a large share) does not break the check."""
    lo, hi = (num - 0.05) / (den + 0.05), (num + 0.05) / max(den - 0.05, 1e-9)
    half = 0.5 * 10**-places + 1e-9
    return lo - half <= reported <= hi + half


def _tiny(monkeypatch, scenes):
    monkeypatch.setattr(bench, "TRAINING_SECONDS", 2.0)
    monkeypatch.setattr(bench, "SCENES", scenes)
    monkeypatch.setattr(bench, "FRAMES", 6)
    monkeypatch.setattr(bench, "FIRST_PLAY_FRAMES", 6)
    monkeypatch.setattr(bench, "CHANGES", 3)
    monkeypatch.setattr(bench, "QUICK_LONG_RUN_FRAMES", 7)
    monkeypatch.setattr(bench, "WARM_FRAMES", 5)
    monkeypatch.setattr(bench, "SWITCHES", 3)


def test_ui_bench_reports_each_scene_as_a_ratio_of_the_repaint_ceiling(capsys, monkeypatch):
    _tiny(monkeypatch, ("vanishing", "gates", "training"))
    assert bench.run_ui_bench(json=True, quick=True) in (0, 1)
    r = json.loads(capsys.readouterr().out)
    assert set(r["scenes"]) == {"vanishing", "gates", "training"}
    for name, s in r["scenes"].items():
        assert s["fps"] > 0 and s["ceiling_fps"] > 0, name
        assert _quotient_of(s["ratio"], s["fps"], s["ceiling_fps"]), (name, s)
    for name in ("vanishing", "gates"):  # first play: every frame new after a recompute
        s = r["scenes"][name]
        assert s["first_play_fps"] > 0 and s["first_play_ceiling_fps"] > 0, name
        ratio = s["first_play_ratio"]
        assert _quotient_of(ratio, s["first_play_fps"], s["first_play_ceiling_fps"]), (name, s)
    assert r["scenes"]["vanishing"]["first_play_param"] == "rho"
    assert "first_play_ratio" not in r["scenes"]["training"]  # live: its frames are all new
    first = {name: r["scenes"][name]["first_play_ratio"] for name in ("vanishing", "gates")}
    slowest_first = min(first, key=first.get)
    assert r["slowest_first_play"] == {"scene": slowest_first, "ratio": first[slowest_first]}
    for name in ("vanishing", "gates"):
        latency = r["scenes"][name]["latency"]
        assert latency["changes"] == 3 and 0 < latency["median_ms"] <= latency["max_ms"]
    assert r["scenes"]["vanishing"]["latency"]["param"] == "rho"
    view = r["scenes"]["gates"]["latency_view"]  # a cursor move: the view alone changes
    assert view["param"] == "unit" and 0 < view["median_ms"] <= view["max_ms"]
    assert "latency_view" not in r["scenes"]["vanishing"]  # every parameter recomputes there
    assert "latency" not in r["scenes"]["training"]  # a live scene: no recompute to wait for
    training = r["scenes"]["training"]
    assert training["updates_per_s"] > 0  # it trained meanwhile
    assert training["fps_paused"] > 0
    over = training["fps_while_training_over_paused"]
    assert _quotient_of(over, training["fps"], training["fps_paused"]), training
    ratios = {name: s["ratio"] for name, s in r["scenes"].items()}
    assert r["slowest"] == {"scene": min(ratios, key=ratios.get), "ratio": min(ratios.values())}
    memory = r["memory"]
    animated = {name: ratios[name] for name in ("vanishing", "gates")}
    assert memory["frames"]["count"] == 7  # in the slowest scene that animates frames
    assert memory["frames"]["scene"] == min(animated, key=animated.get)
    assert memory["switches"]["count"] == 3 and memory["switches"]["rss_mb_after"] > 0
    runs = (memory["frames"], memory["switches"])
    growth = max(m["rss_mb_after"] - m["rss_mb_before"] for m in runs)
    assert memory["flat"] == (growth <= bench.FLAT_MB)
    assert len(r["load_average"]) == 3
    stolen = r["steal_percent"]  # this machine has /proc/stat
    assert stolen is not None and 0.0 <= stolen <= 100.0
    assert r["launch"] == LAUNCH
    s2s = r["seq2seq_recompute_30_words"]
    assert s2s["median_ms"] > 0 and s2s["cpu_ms"] > 0


def test_ui_bench_text_report(capsys, monkeypatch):
    _tiny(monkeypatch, ("memory",))
    code = bench.run_ui_bench(quick=True)
    out = capsys.readouterr().out
    assert "as a ratio of Textual's full-screen repaint" in out
    assert "% of the CPU time stolen by the host)" in out.splitlines()[0]  # Linux: /proc/stat
    assert "slowest: memory at" in out and "slowest first play: memory at" in out
    line = next(line for line in out.splitlines() if line.strip().startswith("memory "))
    assert "ms (w)" in line  # the latency of a change of w
    assert " replay  first " in out  # the two columns: replayed frames and first-play frames
    fps, ceiling, replay, first = (float(x) for x in line.split()[1:5])
    assert _quotient_of(replay, fps, ceiling) and first > 0
    assert "memory over 7 frames (memory)" in out and "over 3 scene switches" in out
    assert ("(flat)" in out) == (code == 0)
    assert "cold (empty Numba cache): first frame 1.50 s, usable 2.00 s" in out


def test_the_ceiling_repaints_every_cell_each_frame():
    """The ceiling is a real full repaint: consecutive frames differ in every line."""
    import asyncio

    from textual.app import App

    from seqviz.ui.compat_textual import full_render, paint_now

    async def run() -> None:
        app = App[None]()
        async with app.run_test(size=(40, 6)) as pilot:
            await app.push_screen(bench._ceiling_screen())
            await paint_now(app, pilot)
            before = [line.text for line in full_render(app)]
            styles = [[s.style for s in line] for line in full_render(app)]
            app.screen.children[0].advance()
            await paint_now(app, pilot)
            after = [[s.style for s in line] for line in full_render(app)]
            assert all(len(text) == 40 for text in before)
            assert all(a != b for a, b in zip(styles, after, strict=True))

    asyncio.run(run())


def test_latency_changes_a_parameter_the_user_can_see():
    """Gates with its shipped one-layer LSTM hides the `layer` row (it changes nothing there):
    the latency run and the first play change a shown parameter instead."""
    from seqviz.scenes import get_scene

    for name in ("vanishing", "gates", "inside", "tagging"):
        scene = get_scene(name)
        values = scene.defaults()
        spec, base, other = bench._changing_param(scene, values)
        hidden = scene.hidden(values) if scene.hidden is not None else frozenset()
        assert spec.name not in hidden and spec.name not in scene.inactive_params(values), name
        assert spec.recompute and base != other, name
    gates = get_scene("gates")
    assert "layer" in gates.hidden(gates.defaults())  # the case this guards against


def test_ui_bench_measures_only_the_scenes_asked_for(capsys, monkeypatch):
    _tiny(monkeypatch, bench.SCENES)
    bench.run_ui_bench(json=True, quick=True, scenes=("gates",))
    r = json.loads(capsys.readouterr().out)
    assert set(r["scenes"]) == {"gates"} and "launch" not in r
    assert r["memory"]["frames"]["scene"] == "gates"
    assert "seq2seq_recompute_30_words" not in r
    assert "gates" in bench.format_report(r)
    with pytest.raises(ValueError, match="unknown scene 'nope'"):
        bench.run_ui_bench(scenes=("nope",))


def test_the_scene_option_names_a_scene_and_goes_with_ui(capsys):
    from seqviz.cli import main

    assert main(["bench", "--ui", "--scene", "nope"]) == 2
    assert "unknown scene 'nope'; the scenes are vanishing" in capsys.readouterr().err
    assert main(["bench", "--scene", "gates"]) == 2
    assert "use it with --ui" in capsys.readouterr().err


def _stopped(monkeypatch, receive):
    """The BenchStopped a Training-only bench ends with when the trainer's ``receive`` is this;
    bounded here too, so a bench that waits forever fails the test instead of hanging it."""
    import asyncio

    from seqviz.training.remote import RemoteTrainer

    _tiny(monkeypatch, bench.SCENES)
    monkeypatch.setattr(bench, "STALL_S", 3.0)
    monkeypatch.setattr(RemoteTrainer, "receive", receive)
    with pytest.raises(bench.BenchStopped) as stopped:
        asyncio.run(asyncio.wait_for(bench._measure(7, ("training",)), 120))
    return str(stopped.value)


def test_a_trainer_that_never_answers_stops_the_bench_naming_the_stage(monkeypatch, capsys):
    import time

    def never(self, cancelled=lambda: False):
        while not cancelled():
            time.sleep(0.02)
        return None

    message = _stopped(monkeypatch, never)
    assert message == ("the UI bench stalled at the training scene's first result: nothing was "
                       "drawn for 3 s.")  # fmt: skip
    from seqviz.cli import main

    assert main(["bench", "--ui", "--quick", "--scene", "training"]) == 1
    assert capsys.readouterr().err == f"seqviz: error: {message}\n"


def test_a_trainer_that_ends_stops_the_bench_with_its_error(monkeypatch):
    from seqviz.training.remote import TrainerGone

    def gone(self, cancelled=lambda: False):
        raise TrainerGone("the training process ended unexpectedly (exit code 1).")

    message = _stopped(monkeypatch, gone)
    assert message.startswith("the UI bench stopped at the training scene's first result: ")
    assert "the training process ended unexpectedly (exit code 1)." in message


def test_a_wait_that_times_out_stops_the_bench_naming_the_stage():
    import asyncio
    from types import SimpleNamespace

    async def waits():
        raise TimeoutError("the live scene's stream did not come to rest")

    frames = SimpleNamespace(painted=0, stage="the training scene's frames while paused")
    with pytest.raises(bench.BenchStopped) as stopped:
        asyncio.run(bench._watched(frames, waits()))
    assert str(stopped.value) == (
        "the UI bench timed out at the training scene's frames while paused: the live scene's "
        "stream did not come to rest."
    )


def test_a_live_scenes_results_wait_while_the_ceiling_is_timed(monkeypatch):
    # Drawn into the hidden Training view, they made the ceiling pay for the scene's own
    # drawing (and flattered the scene's ratio).
    import asyncio

    from seqviz.ui.app import SeqvizApp
    from seqviz.ui.views.training import TrainingView

    drawn = []
    show = TrainingView.show_result
    monkeypatch.setattr(TrainingView, "show_result",
                        lambda self, r: (drawn.append(r.step), show(self, r))[1])  # fmt: skip
    timed = bench._timed

    async def after_a_result(frames, step, count, start):
        for _ in range(3000):  # a result arrives while the ceiling is up
            if frames.app._pending is not None:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # and a few more may
        return await timed(frames, step, count, start)

    monkeypatch.setattr(bench, "_timed", after_a_result)

    async def run():
        app = SeqvizApp(animate=False)
        async with app.run_test(size=bench.SIZE) as pilot:
            await app.until_ready()
            frames = bench._Frames(app, pilot)
            app.set_scene("training", {"steps": 20000, "lag": 3, "hidden": 8})
            while getattr(app.result, "step", 0) < 1:
                await asyncio.sleep(0.02)
            before = len(drawn)
            await bench._ceiling_round(frames, 3)
            assert len(drawn) == before  # none drawn while the ceiling was timed
            assert app._pending is not None  # the newest waits
            n, _ = await bench._new_result_frames(frames, 30.0, None, 1)
            assert n == 1 and len(drawn) > before  # drawn in the scene's own timed frame
            app.set_scene("vanishing")
            await app.until_ready()

    asyncio.run(asyncio.wait_for(run(), 180))
