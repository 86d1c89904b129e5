"""The UI bench's parameter walk and forgetting: a first play draws for the first time.

Widgets keep lines, colour bins and plot pictures per content, so a bench that toggled between
two values measured, from the second change on, redraws served from what was drawn two changes
before. These tests check that the walk brings no number back while its range lasts and that
forgetting really leaves nothing kept (and changes nothing on screen).
"""

from __future__ import annotations

import pytest

from seqviz.bench.ui import Walk, forget_kept
from seqviz.scenes import get_scene
from seqviz.scenes.base import ParamSpec
from seqviz.ui.compat_textual import full_render
from seqviz.ui.widgets.curves import CurvePlot
from seqviz.ui.widgets.heatmap import Heatmap
from seqviz.ui.widgets.kept import KeptLines
from seqviz.ui.widgets.plots import SafePlot


def _spec(scene: str, name: str) -> ParamSpec:
    return next(s for s in get_scene(scene).specs if s.name == name)


def test_a_walked_number_never_comes_back_while_its_range_lasts():
    rho = _spec("vanishing", "rho")
    walk = Walk(rho, rho.default)
    values = [walk.next() for _ in range(21)]  # as many as the bench's latency run
    assert len(set(values)) == len(values) and rho.default not in values
    assert values[0] > rho.default and values == sorted(values)


def test_a_walk_turns_at_a_bound_and_each_value_differs_from_the_last():
    spec = ParamSpec("k", "k", "int", 2, 1, 3, 1)
    walk = Walk(spec, 3)  # at the top: it starts downwards
    values = [walk.next() for _ in range(6)]
    assert values == [2, 1, 2, 3, 2, 1]
    assert not walk.repeats


def test_a_walked_choice_cycles_and_says_its_values_come_back():
    model = _spec("gates", "model")
    walk = Walk(model, model.default)
    values = [walk.next() for _ in range(2 * len(model.choices))]
    assert walk.repeats
    assert set(values) == set(model.choices)
    assert all(a != b for a, b in zip(values, values[1:], strict=False))


@pytest.mark.parametrize(
    ("scene", "param", "values", "kind"),
    [("gates", "model", None, Heatmap), ("memory", "w", (1.0, 0.9), SafePlot)],
)
async def test_forgetting_leaves_nothing_kept_and_the_screen_unchanged(
    make_app, scene, param, values, kind
):
    # gates keeps heatmap data per model; memory's plotext figures keep pictures per content
    app = make_app(scene)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_ready()
        await pilot.pause()
        spec = _spec(scene, param)
        for value in values or (spec.choices[1], spec.default):  # two contents shown: both kept
            app.set_param(param, value)
            await app.until_ready()
            await pilot.pause()
        maps = list(app.screen.query(Heatmap))
        plots = list(app.screen.query(SafePlot))
        curves = list(app.screen.query(CurvePlot))  # gates' unit plots keep their frames' grids
        if kind is Heatmap:
            assert any(len(m._kept_data) > 1 for m in maps)
            assert curves and all(c._reveals for c in curves)
        else:
            assert any(len(p._pictures) > 1 for p in plots)
        before = full_render(app)
        forgot = forget_kept(app)
        kept = [w for w in app.screen.walk_children() if isinstance(w, KeptLines)]
        assert forgot >= len(kept) + len(plots)
        assert all("_kept_lines" not in w.__dict__ for w in kept)
        assert all(not m._kept_data for m in maps) and all(not p._pictures for p in plots)
        assert all(not c._reveals for c in curves)
        for widget in app.screen.walk_children():
            widget.refresh()
        await pilot.pause()
        assert full_render(app) == before


async def test_changes_are_timed_from_the_last_frame_whatever_frame_the_scene_stood_at(
    make_app,
):
    # The frame-rate stage leaves a scene mid-animation; a change timed there redraws half the
    # maps. The bench times every change from the last frame, as a user who watched it end.
    from seqviz.bench.ui import _Frames, _latency

    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_ready()
        app.seek(app.n_frames // 2)
        await pilot.pause()
        assert 0 < app.frame < app.n_frames
        seen: list[tuple[int, int]] = []
        set_param = app.set_param

        def recorded(name, value):
            seen.append((app.frame, app.n_frames))
            set_param(name, value)

        app.set_param = recorded
        result = await _latency(_Frames(app, pilot), "vanishing", changes=3)
        assert result is not None and result["changes"] == 3
        assert len(seen) == 4  # three timed changes, then back to the base value
        assert all(frame == n for frame, n in seen[:3]), seen
