"""The dynamics scene: results, key pulses (Pilot), snapshots; the LRU in gradflow and vanishing."""

from __future__ import annotations

import re

import numpy as np
import pytest

from seqviz.scenes import get_scene

SIZES = [(80, 24), (160, 50)]


def test_two_unit_mode_finds_the_nine_points_and_the_flow_points_at_the_corners():
    scene = get_scene("dynamics")
    r = scene.compute(scene.make({"mode": "two-unit"}))
    kinds = [p.kind for p in r.fixed.points]
    assert (
        kinds.count("stable") == 4 and kinds.count("saddle") == 4 and kinds.count("unstable") == 1
    )
    # Every run with no input ends on a stable corner.
    ends = r.portrait.trajectory[:, -1]  # (runs, 2)
    assert np.all(np.abs(np.abs(ends) - 0.9575) < 1e-2)
    # The flow at the top-right of the picture points back inside, towards (+h*, +h*).
    assert r.portrait.flow[0, -1, 0] < 0 and r.portrait.flow[0, -1, 1] < 0


def test_rotation_has_no_stable_point():
    scene = get_scene("dynamics")
    r = scene.compute(scene.make({"mode": "two-unit", "w12": -1.0, "w21": 1.0}))
    assert [p.kind for p in r.fixed.points] == ["unstable"]


def test_chaos_mode_grid_and_edge():
    from seqviz.scenes.dynamics import edge

    scene = get_scene("dynamics")
    r = scene.compute(scene.make({"mode": "chaos", "hidden": 32, "horizon": 300}))
    assert r.grid.lyap.shape == (20, 20)
    assert r.grid.lyap[0, 0] < 0 < r.grid.lyap[-1, 0]
    lo, hi = edge(r, 0)
    i = list(r.grid.rhos).index(lo)
    assert r.grid.lyap[i, 0] < 0 <= r.grid.lyap[i + 1, 0] and hi > lo


@pytest.mark.slow
async def test_key_pulse_moves_the_state_to_another_attractor(make_app, ready):
    app = make_app("dynamics", {"mode": "two-unit"})
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        view = app.query_one("DynamicsView")
        before = view.current_state().copy()
        key = "j" if before[0] > 0 else "u"  # kick unit 1 across zero
        await pilot.press(key)
        await pilot.pause()
        after = view.current_state()
        assert np.sign(after[0]) == -np.sign(before[0])
        assert abs(abs(after[0]) - 0.9575) < 1e-2 and abs(after[1] - before[1]) < 1e-2
        from seqviz.ui.export import screen_text

        assert "after " + ("-1" if key == "j" else "+1") in screen_text(app)
        await pilot.press("o")  # the two-unit net has no third input: a notice, no crash
        await pilot.pause()
        assert np.allclose(view.current_state(), after)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_dynamics_at_defaults(size, snap_compare, make_app, until_drawn):
    assert snap_compare(make_app("dynamics"), terminal_size=size, run_before=until_drawn)


@pytest.mark.slow
def test_dynamics_chaos_snapshot(snap_compare, make_app, until_drawn):
    app = make_app("dynamics", {"mode": "chaos"})
    assert snap_compare(app, terminal_size=(160, 50), run_before=until_drawn)


@pytest.mark.slow
@pytest.mark.parametrize("instant", [False, True], ids=["computed", "instant"])
async def test_chaos_map_hands_the_keys_to_the_parameter(instant, make_app, ready, monkeypatch):
    """The chaos map hides the phase portrait, which had the focus: the mode row takes it,
    whether the result comes before the first refresh (a warm cache) or after it. The footer
    then offers the frame keys and no pulse keys.
    (Before the fix the focus ended on nothing or on the row, by timing.)"""
    from seqviz.scenes.base import Scene
    from seqviz.ui.export import screen_text
    from seqviz.ui.widgets.controls import ParamRow
    from seqviz.ui.widgets.phase import PhasePortrait

    values = {"mode": "chaos", "hidden": 8, "horizon": 100}
    if instant:
        scene = get_scene("dynamics")
        result = scene.compute(scene.make(values))

        original, chaos = Scene.results, scene.make(values)

        def results(self, asked, control=None):
            if asked == chaos:
                yield result  # no worker time at all: shown right after the view mounts
            else:
                yield from original(self, asked, control)

        monkeypatch.setattr(Scene, "results", results)
    app = make_app("dynamics", values)
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        await pilot.pause()
        assert isinstance(app.focused, ParamRow) and app.focused.spec.name == "mode"
        footer = screen_text(app).splitlines()[-1]
        assert {"step", "back", "play"} <= set(footer.split()) and "pulse" not in footer
        app.set_param("mode", "two-unit")  # the portrait is back; the row keeps the keys
        await ready(app, pilot)
        assert app.focused.spec.name == "mode"
        app.query_one(PhasePortrait).focus()
        await pilot.pause()
        app.set_param("mode", "chaos")
        await ready(app, pilot)
        await pilot.pause()
        assert isinstance(app.focused, ParamRow) and app.focused.spec.name == "mode"


def test_gradflow_has_the_linear_recurrence_and_its_scan():
    scene = get_scene("gradflow")
    r = scene.compute(scene.make({"steps": 200, "lru_rmin": 0.5, "lru_rmax": 0.99}))
    assert r.lru.scan_rounds == 8 and r.lru.max_diff < 1e-12
    mods = np.abs(r.lru.eigenvalues)
    assert np.all((mods >= 0.5) & (mods <= 0.99))
    # A diagonal linear recurrence keeps |dL/dh| = sqrt(mean |lambda|^2k): no tanh slopes.
    k = 50
    assert r.lru.norms[k] == pytest.approx(np.sqrt(np.mean(mods ** (2 * k))))
    assert r.lru.norms[k] > r.norms["rnn"][k]


def test_vanishing_shows_lru_eigenvalues_inside_the_circle():
    scene = get_scene("vanishing")
    r = scene.compute(scene.defaults())
    assert r.lru.shape == (r.values.hidden,)
    assert np.all(np.abs(r.lru) < 1) and np.all(np.abs(r.lru) >= 0.9)


@pytest.mark.slow
def test_ui_bench_measures_the_dynamics_scene(capsys, monkeypatch):
    import json

    from seqviz.bench import launch as bench_launch
    from seqviz.bench import ui as bench

    assert "dynamics" in bench.SCENES
    # Launch times (a cold kernel compile in a fresh process, then warm ones) do not depend on
    # the scenes measured; tests/test_bench_launch.py times them, so they are not run again here.
    monkeypatch.setattr(bench_launch, "bench_launch", lambda quick: {})
    monkeypatch.setattr(bench, "SCENES", ("dynamics",))
    monkeypatch.setattr(bench, "FRAMES", 3)
    monkeypatch.setattr(bench, "FIRST_PLAY_FRAMES", 3)
    monkeypatch.setattr(bench, "CHANGES", 1)
    monkeypatch.setattr(bench, "QUICK_LONG_RUN_FRAMES", 3)
    monkeypatch.setattr(bench, "WARM_FRAMES", 3)
    monkeypatch.setattr(bench, "SWITCHES", 1)
    bench.run_ui_bench(json=True, quick=True)
    dynamics = json.loads(capsys.readouterr().out)["scenes"]["dynamics"]
    assert dynamics["ratio"] > 0 and dynamics["first_play_ratio"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("size", [(100, 30), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_demo_numbers_are_visible_at_lecture_sizes(size):
    # 160x50 and 80x24 are covered for every demo by test_demo_run.
    from seqviz.lecture import find_demo
    from seqviz.lecture.runner import check_demo

    assert await check_demo(find_demo("dynamics"), size) == []


BOUNDS = (-2.8, 3.2, -3.1, 3.1)
NAMES = ("PC1 (36%)", "PC2 (21%)")


@pytest.mark.parametrize("room", range(0, 60))
def test_the_portraits_axis_line_fits_and_never_cuts_a_number(room):
    # At 80x24 the line was cut at the panel's edge: "… 3." beside the fixed points' row 14
    # read "3.14" for a range that ends at 3.2.
    from seqviz.ui.widgets.phase import axis_label

    label = axis_label(BOUNDS, NAMES, room)
    assert len(label) <= room
    rest = label.replace(NAMES[0], " ").replace(NAMES[1], " ")
    numbers = re.findall(r"-?\d+(?:\.\d*)?", rest)
    assert all(n in ("-2.8", "3.2", "-3.1", "3.1") for n in numbers), label  # whole, never cut
    if room >= len("-2.8…3.2"):
        assert "-2.8" in label and "3.2" in label  # the x range at least
    if room >= len("-2.8 … PC1 (36%) → … 3.2   ↑ PC2 (21%) -3.1 … 3.1"):
        assert label == "-2.8 … PC1 (36%) → … 3.2   ↑ PC2 (21%) -3.1 … 3.1"


async def test_the_portraits_axis_line_leaves_its_last_column_blank(make_app, ready):
    from seqviz.ui.widgets.phase import PhasePortrait

    app = make_app("dynamics")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        portrait = app.query_one(PhasePortrait)
        width, height = portrait.content_size
        line = "".join(ch for ch, _ in portrait.cells(width, height)[-1])
        assert "…" in line and len(line) < width, line  # the panel beside starts after a blank
