"""The seq2seq scene: its computation (no Textual) and Pilot tests of its view."""

from __future__ import annotations

import numpy as np
import pytest

from seqviz.scenes import get_scene, scene_names
from seqviz.scenes.seq2seq import compute, frames
from seqviz.tasks.translation import reference

SCENE = get_scene("seq2seq")


def make(**changes):
    return SCENE.make(changes)


def test_defaults_translate_the_default_source_with_attention():
    r = compute(SCENE.defaults())
    assert r.error is None and r.attention_model
    assert r.S == len(SCENE.defaults().source.split())
    assert frames(r) == r.S + r.T
    assert r.attn.shape == (r.T, r.S)
    np.testing.assert_allclose(r.attn.sum(axis=1), 1.0)
    assert np.array_equal(r.context, r.enc_h[-1])
    assert " ".join(r.output) == reference(" ".join(r.source)) + " </s>"
    # the alignment is not a diagonal: the most-attended source position goes back and forth
    peaks = r.attn.argmax(axis=1)
    assert (np.diff(peaks) < 0).sum() >= 2


def test_teacher_forcing_and_free_running_agree_without_a_forced_error():
    r = compute(SCENE.defaults())
    ref = r.reference
    assert r.forced.inputs == ("<s>", *ref[:-1])
    assert r.free.outputs == ref  # the attention model gets the default source right
    np.testing.assert_allclose(r.free.loss[: len(ref)], r.forced.loss, atol=1e-9)


def test_a_forced_error_changes_free_running_only():
    plain = compute(SCENE.defaults())
    r = compute(make(force=2))
    assert r.free.outputs[1] != r.reference[1]  # the forced wrong word
    assert r.free.inputs[2] == r.free.outputs[1]  # ... is fed back to the next step
    assert r.forced.outputs == plain.forced.outputs  # teacher forcing feeds the reference anyway
    # the wrong word fed back raises the loss of the steps after it
    assert np.nanmean(r.free.loss[2:]) > np.nanmean(plain.free.loss[2:])


def test_bottleneck_model_has_no_attention():
    r = compute(make(model="bottleneck"))
    assert r.error is None and not r.attention_model and r.attn is None
    assert r.context.shape == (r.enc_h.shape[1],)


def test_beam_decoding_in_the_scene():
    r = compute(make(decoding="beam", width=3))
    assert r.error is None and r.attn.shape == (r.T, r.S)


@pytest.mark.parametrize(
    "source, words",
    [
        ("", ["empty"]),
        ("the dgo slept", ["'dgo'", "dog"]),
        (" ".join(["the dog"] * 25), ["50 words", "at most 40"]),
    ],
)
def test_bad_sources_are_one_sentence(source, words):
    r = compute(make(source=source))
    assert r.error is not None and frames(r) == 0
    assert all(w in r.error for w in words)
    assert "\n" not in r.error and "Traceback" not in r.error


def test_ungrammatical_source_translates_without_reference():
    r = compute(make(source="the dog the cat"))
    assert r.error is None and r.reference is None and r.forced is None


# --- Pilot tests of the view ----------------------------------------------------------------


@pytest.mark.slow
async def test_switching_to_the_scene(make_app, ready):
    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        number = scene_names().index("seq2seq") + 1
        if number <= 9:
            await pilot.press(str(number))
        else:  # past the number keys: as the palette or the scene bar would
            app.set_scene("seq2seq")
        await ready(app, pilot)
        assert app.scene.name == "seq2seq"
        text = str(app.query_one("#tf").render_line(0).text)
        assert "teacher forcing: mean loss" in text


@pytest.mark.slow
async def test_a_changed_source_is_validated(make_app, ready):
    app = make_app("seq2seq")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        app.set_param("source", "the dgo")
        await ready(app, pilot)
        assert app.result.error is not None and "'dgo'" in app.result.error
        shown = "".join(str(app.query_one("#attn").render_line(i).text) for i in range(3))
        assert "dgo" in shown
        app.set_param("source", "the dog slept")
        await ready(app, pilot)
        assert app.result.error is None and app.result.output[-2] == "dorma"


@pytest.mark.slow
async def test_frames_fill_the_encoder_then_the_attention_rows(make_app, ready):
    app = make_app("seq2seq")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        r = app.result
        app.seek(3)
        await pilot.pause()
        assert "encoder word 3/" in str(app.query_one("#status").render())
        app.seek(r.S + 2)
        await pilot.pause()
        lines = [str(app.query_one("#attn").render_line(i).text) for i in range(40)]
        marked = [ln for ln in lines if ln.startswith("▸")]
        assert len(marked) == 1 and marked[0][1:].startswith(r.output[1][:6])
        app.set_param("model", "bottleneck")
        await ready(app, pilot)
        lines = [str(app.query_one("#attn").render_line(i).text) for i in range(10)]
        assert any("No attention here" in ln for ln in lines)
        from seqviz.ui.views.base import Panel

        panel = app.query_one("#attn-panel", Panel)  # title and caption say it too
        assert "no attention" in str(panel.border_title) and "no attention" in panel._caption
        assert "row" not in panel._caption
        app.set_param("model", "attention")
        await ready(app, pilot)
        assert str(panel.border_title).startswith("attention: one row per output word")
