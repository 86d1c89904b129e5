"""Interventions in the inside scene (Pilot): keys a, c, x; every view recomputes; the status
line lists what is forced and the readout gives the held-out accuracy beside the intact one."""

from __future__ import annotations

import numpy as np
import pytest

from seqviz.inside.ablation import ablation_set, verb_margins
from seqviz.inside.intervene import ablate
from seqviz.inside.reading import read
from seqviz.models import load
from seqviz.scenes import get_scene
from seqviz.ui.export import screen_text

SCENE = get_scene("inside")


def test_the_scene_recomputes_through_the_forced_units():
    v = SCENE.make({"text": "the keys to the cabinet", "intervene": "c34, h17"})
    r = SCENE.compute(v)
    lm = load("agreement", kind="lm")
    forced = read(lm, "the keys to the cabinet", ablate([("c", 34), ("h", 17)]))
    np.testing.assert_allclose(r.probs["are"], np.exp(forced.logp[:, lm.index["are"]]))
    assert (r.unit_traces[0] == 0).all()  # c[34], the best number unit, is held at 0
    assert r.forcing.summary == "c[34] ablated, h[17] ablated"
    want = float((verb_margins(lm, ablation_set(), ablate([("c", 34), ("h", 17)])) > 0).mean())
    assert r.forcing.effect.forced["all"] == pytest.approx(want)
    assert r.forcing.effect.intact["all"] == 1.0
    with pytest.raises(ValueError, match="only an lstm has"):
        SCENE.compute(SCENE.make({"model": "agreement-gru", "intervene": "c3"}))


@pytest.mark.slow
async def test_keys_ablate_clamp_and_clear_the_cursor_unit(make_app, ready):
    app = make_app("inside", {"text": "the keys to the cabinet", "panel": "prediction"})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        intact = app.result.probs["are"].copy()
        await pilot.press("a")
        await ready(app, pilot)
        assert app.values.intervene == "c34"
        assert not np.allclose(app.result.probs["are"], intact)
        status = str(app.query_one("#status").render())
        assert "forced: c[34] ablated" in status
        e = app.result.forcing.effect
        assert f"agreement {e.intact['all']:.1%} intact, {e.forced['all']:.1%}" in (
            screen_text(app)
        )
        app.set_param("cursor", 2)
        app.set_param("clamp", 2.5)
        app.set_param("from_step", 3)
        await pilot.pause()
        await pilot.press("k")
        await ready(app, pilot)
        assert app.values.intervene == "c34, h17=2.5@3"
        assert (app.result.unit_traces[1][3:] == 2.5).all()  # h[17], ranked second
        await pilot.press("x")
        await ready(app, pilot)
        assert app.values.intervene == "" and app.result.forcing is None
        np.testing.assert_allclose(app.result.probs["are"], intact)


def test_the_gates_scene_forces_units_of_any_cell():
    gates = get_scene("gates")
    r = gates.compute(gates.make({"text": "the keys are here", "intervene": "c34@2"}))
    assert (r.c[2:, 34] == 0).all() and (r.c[:2, 34] != 0).all()
    assert r.forcing.effect is not None and r.forcing.summary == "c[34] ablated from step 2"
    rand = gates.compute(gates.make({"model": "random", "cell": "gru", "intervene": "h3=0.5"}))
    assert (rand.h[:, 3] == 0.5).all() and rand.forcing.effect is None
    # the maps read the forced states: h_prev is h shifted by one step
    np.testing.assert_array_equal(rand.h_prev[1:], rand.h[:-1])


@pytest.mark.slow
async def test_gates_keys_force_the_cursor_unit(make_app, ready):
    app = make_app("gates", {"text": "the keys are here", "unit": 34})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        await pilot.press("a")
        await ready(app, pilot)
        assert app.values.intervene == "c34" and (app.result.c[:, 34] == 0).all()
        assert "forced: c[34] ablated" in str(app.query_one("#status").render())
        assert "agreement 100.0% intact" in screen_text(app)
        await pilot.press("x")
        await ready(app, pilot)
        assert app.result.forcing is None and (app.result.c[1:, 34] != 0).all()


@pytest.mark.slow
async def test_the_attractor_curve_takes_the_saturation_panels_place(make_app, ready):
    from seqviz.inside.attractors import shipped_curve

    app = make_app("inside", {"panel": "attractors"})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        assert app.query_one("#att-panel").region.height > 5
        assert app.query_one("#sat-panel").region.height == 0
        rnn = shipped_curve("agreement-rnn", nested=True).accuracy
        want = " ".join(f"{v:.1%}" for v in rnn.values())
        text = screen_text(app)
        assert f"RNN 0-3: 100.0% 100.0% 100.0% 100.0%  nested 1-3: {want}" in text
        assert app.query_one("#sal-panel").region.height == 0
        app.set_param("panel", "saturation")
        await pilot.pause()
        await pilot.pause()
        assert app.query_one("#att-panel").region.height == 0
        assert app.query_one("#sat-panel").region.height > 5


def test_the_saliency_readout_names_the_word_that_pushed_the_verb():
    from seqviz.inside.contrast import contrast
    from seqviz.ui.views.inside import contrast_line

    r = SCENE.compute(SCENE.make({"text": "the keys to the cabinet are missing"}))
    want = contrast(load("agreement", kind="lm"), "the keys to the cabinet", "are", "is")
    np.testing.assert_allclose(r.contrast.occlusion, want.occlusion)
    assert contrast_line(r.contrast) == (
        f"are over is after 'cabinet': grad×input 'keys' {want.gradient[2]:+.2f}, "
        f"occlusion 'keys' {want.occlusion[2]:+.2f}"
    )
    forced = SCENE.compute(SCENE.make({"text": "the keys to the", "intervene": "c34"}))
    assert "grad×input nan" in contrast_line(forced.contrast)
