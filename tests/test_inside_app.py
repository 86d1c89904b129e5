"""The inside scene in the app (Pilot): the four views, the saliency row, small screens, and
the claims its demo makes, checked on the shipped models."""

from __future__ import annotations

import numpy as np
import pytest

from seqviz.scenes import get_scene
from seqviz.ui.export import screen_text

SCENE = get_scene("inside")


def test_the_number_unit_changes_sign_with_the_subject():
    """The demo says c[34] turns blue (negative) at 'keys' and red for a singular subject."""
    plural = SCENE.compute(SCENE.make({"text": "the keys to the cabinet"}))
    singular = SCENE.compute(SCENE.make({"text": "the key to the cabinets"}))
    assert plural.units[0].label() == "c[34]" == singular.units[0].label()
    assert (plural.unit_traces[0][2:] < 0).all() and (singular.unit_traces[0][2:] > 0).all()
    assert plural.subject == 2 and plural.right == "are" and singular.right == "is"
    # the saliency maps of all three models are lower-triangular T x T
    for s in plural.saliency.values():
        assert s.shape == (plural.T, plural.T) and np.all(np.triu(s, 1) == 0)


def test_knows_from():
    from seqviz.ui.views.inside import knows_from

    probs = {"are": np.array([0.2, 0.5, 0.1, 0.6, 0.7]), "is": np.array([0.1, 0.2, 0.3, 0.1, 0.1])}
    assert knows_from(probs, "are", 1, 4) == 3  # behind at t=2, ahead from t=3 on
    assert knows_from(probs, "are", 1, 2) is None  # behind at the step asked about
    assert knows_from(probs, "are", None, 4) is None and knows_from(probs, "are", 4, 3) is None


@pytest.mark.slow
async def test_all_views_and_the_saliency_row(make_app, ready):
    from seqviz.ui.widgets.heatmap import Heatmap

    app = make_app("inside")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        for panel in ("#pred-panel", "#units-panel", "#sal-panel", "#sat-panel"):
            assert app.query_one(panel).region.height > 5
        text = screen_text(app)
        assert "1. c[34]" in text and "P(are)" in text and "row t=5: after 'cabinet'" in text
        app.set_param("target", 2)
        await pilot.pause()
        assert app.query_one("#sal-agreement-gru", Heatmap)._cursor == 4  # two data rows a step
        assert "row t=2: after 'keys', the logit of 'to'" in screen_text(app)
        app.set_param("target", 40)
        await pilot.pause()
        assert "clamped to 7, the last step" in screen_text(app)
        # an unknown word is refused with the closest known ones; the last result stays
        app.set_param("text", "the keys to the cabnet")
        await ready(app, pilot)
        assert "closest: cabinet" in str(app.query_one("#status").render())
        assert app.result.words[-1] == "missing"
        app.set_param("model", "agreement-rnn")
        app.set_param("text", "the keys are here")
        await ready(app, pilot)
        text = screen_text(app)
        assert "a tanh RNN has no gates" in text and "1. h[17]" in text


@pytest.mark.slow
async def test_a_small_screen_shows_the_chosen_view(make_app, ready):
    app = make_app("inside", {"panel": "saturation"})
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        assert app.query_one("#sat-panel").display and app.query_one("#sat-panel").region.height
        assert app.query_one("#units-panel").region.height == 0
        app.set_param("panel", "prediction")
        await pilot.pause()
        await pilot.pause()
        assert app.query_one("#pred-panel").region.height > 5
        assert app.query_one("#sat-panel").region.height == 0
