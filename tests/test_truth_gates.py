"""The gates scene says what its cell does: z and h captions per GRU variant, inactive parameters
marked, a clamped unit cursor said so."""

from __future__ import annotations

import re

import numpy as np
import pytest

from seqviz.core import Params, trace
from seqviz.scenes import get_scene
from seqviz.ui.export import screen_text

SCENE = get_scene("gates")


@pytest.mark.parametrize("variant", ["textbook", "pytorch"])
def test_z_caption_names_the_value_that_copies_h(variant):
    """Force z to each extreme with its bias and see which one copies h; the caption must agree."""
    from seqviz.ui.views.gates import caption

    long, short = caption("z", "gru", variant)
    says = re.search(r"near ([01])[^,;]*?copies h", long, re.IGNORECASE)
    assert says is not None
    x = np.random.default_rng(0).normal(size=(12, 3))
    copies = {}
    for extreme, bias in (("0", -30.0), ("1", 30.0)):
        p = Params.random("gru", 3, 4, seed=1, variant=variant)
        b = p.bias_ih.copy()
        b[4:8] = bias  # the update gate z (blocks r, z, n)
        tr = trace(p.replace(bias_ih=b), x)
        copies[extreme] = bool(np.allclose(tr.h[1:], tr.h[:-1], atol=1e-9))
    assert copies[says.group(1)] and not copies["1" if says.group(1) == "0" else "0"]
    assert ("dark" if says.group(1) == "0" else "yellow") in short  # the sequential map's ends


def test_gru_h_caption_is_about_the_gru():
    from seqviz.ui.views.gates import caption

    for variant in ("textbook", "pytorch"):
        long, _ = caption("h", "gru", variant)
        assert "LSTM" not in long and "o *" not in long and "z" in long
    assert "(1-z)*h + z*n" in caption("h", "gru", "textbook")[0]
    assert "(1-z)*n + z*h" in caption("h", "gru", "pytorch")[0]


def test_inactive_parameters():
    lstm = SCENE.make({"model": "random", "cell": "lstm"})
    gru = SCENE.make({"model": "random", "cell": "gru"})
    assert set(SCENE.inactive_params(lstm)) == {"variant"}
    assert set(SCENE.inactive_params(gru)) == {"forget_bias"}
    loaded = SCENE.make({"model": "file", "weights": "x.npz"})
    assert {"cell", "variant", "hidden", "embed", "forget_bias"} <= set(
        SCENE.inactive_params(loaded))  # fmt: skip


@pytest.mark.slow
async def test_panel_marks_inactive_rows_and_the_status_says_why(make_app, ready):
    from seqviz.ui.widgets.controls import ParamPanel

    app = make_app("gates", {"model": "random", "cell": "gru"})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        panel = app.query_one(ParamPanel)
        assert panel.row("forget_bias").inactive and not panel.row("variant").inactive
        assert "strike" in str(panel.row("forget_bias").render().style)
        app.focus_param("forget_bias")
        await pilot.pause()
        assert "forget_bias: inactive: a GRU has no forget gate" in screen_text(app)
        app.set_param("cell", "lstm")
        await ready(app, pilot)
        assert panel.row("variant").inactive and not panel.row("forget_bias").inactive


@pytest.mark.slow
async def test_unit_cursor_past_the_last_unit_says_it_was_clamped(make_app, ready):
    app = make_app("gates", {"model": "random", "hidden": 8, "unit": 40})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        text = screen_text(app)
        assert "unit 40 clamped to 7, the last unit" in text
        app.set_param("unit", 3)
        await pilot.pause()
        await pilot.pause()
        assert "clamped" not in screen_text(app)


@pytest.mark.parametrize("variant", ["textbook", "pytorch"])
@pytest.mark.parametrize("direction", ["forward", "reverse"])
def test_the_gru_parts_add_up_to_h(tmp_path, variant, direction):
    """The two maps a GRU shows in the LSTM's o and c slots are h's parts: the old state kept
    and the candidate written add up to h at every step, also for a reverse cell drawn in
    reading order (its previous state is the next column's)."""
    from seqviz.core import StackParams
    from seqviz.scenes.gates import compute, gru_parts

    path = tmp_path / "bi.npz"
    StackParams.random("gru", 8, 5, bidirectional=True, seed=3, variant=variant).save(path)
    values = SCENE.make({"model": "file", "weights": str(path), "direction": direction,
                         "text": "a gated sentence"})  # fmt: skip
    r = compute(values)
    parts = gru_parts(r)
    z, n = r.gates[:, 1, :], r.gates[:, 2, :]  # (T, d)
    keep = z if variant == "pytorch" else 1 - z
    np.testing.assert_allclose(parts["kept"] + parts["written"], r.h, atol=1e-12)
    np.testing.assert_allclose(parts["written"], (1 - keep) * n, atol=1e-15)
    # the first state read is h0 (zeros): nothing is kept at the cell's first step
    first = 0 if direction == "forward" else -1
    np.testing.assert_array_equal(parts["kept"][first], 0.0)
