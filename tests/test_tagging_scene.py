"""The tagging scene: its computation, Pilot tests of the view, snapshots, and its demo."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from seqviz.scenes import get_scene
from seqviz.scenes.tagging import compute, explain, frames

SCENE = get_scene("tagging")


def test_bidirectional_result_holds_both_sweeps_of_every_layer():
    r = compute(SCENE.defaults())
    assert r.bidirectional and r.layers == 2 and frames(r) == 2 * r.T
    assert r.tags == ("B-ORG", "I-ORG", "O", "O", "O", "O", "B-LOC", "I-LOC")
    assert r.mistakes == () and len(r.backward) == 2
    assert r.concatenated(1).shape == (r.T, 48)
    # The backward state at the last word has read only that word; at the first, all of them.
    assert not np.allclose(r.backward[0][0], r.backward[0][-1])


def test_the_left_to_right_tagger_goes_wrong_on_names_decided_later():
    r = compute(SCENE.make({"model": "tagger-uni"}))
    assert not r.bidirectional and r.backward == () and frames(r) == r.T
    wrong = {m.word: m for m in r.mistakes}
    assert set(wrong) == {"Morgan", "Austin"}
    assert wrong["Morgan"].decider == "Labs" and wrong["Morgan"].right_tag == "B-ORG"
    assert wrong["Morgan"].prob < 0.6  # a guess, not a decision
    text = explain(r)
    assert f"2 of {r.T} tags differ" in text and "'Labs', the word that decides" in text
    # The words after the ambiguous one are tagged as the bidirectional tagger does.
    assert r.tags[1] == r.reference_tags[1] == "I-ORG"


def test_unknown_words_are_read_and_named():
    r = compute(SCENE.make({"text": "Austn Street is old"}))
    assert r.tags == ("B-LOC", "I-LOC", "O", "O") and r.unknown == ("Austn",)
    assert "Never seen, so tagged by their shape and context: 'Austn'." in explain(r)
    r = compute(SCENE.make({"text": "Ada Lovelace visited London"}))
    assert r.tags == ("B-PER", "I-PER", "O", "B-LOC")
    assert r.unknown == ("Ada", "Lovelace", "London")


def _text(app) -> str:
    from seqviz.ui.export import screen_text

    return " ".join(screen_text(app).split())


@pytest.mark.slow
async def test_typing_switching_and_layers(make_app, ready):
    app = make_app("tagging")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        assert "B-ORG I-ORG O O O O B-LOC I-LOC" in _text(app)
        field = app.query_one("#param-text")
        field.focus()
        field.value = ""
        await pilot.press(*"Kent Hill")
        await ready(app, pilot)
        assert app.result.words == ("Kent", "Hill") and "B-LOC I-LOC" in _text(app)
        await pilot.press(*" is olx")
        await ready(app, pilot)
        assert "tagged by their shape and context: 'olx'" in _text(app)
        await pilot.press("backspace", "d")
        await ready(app, pilot)
        assert "Never seen" not in _text(app)
        app.set_param("model", "tagger-uni")
        await ready(app, pilot)
        text = _text(app)
        assert "bi B-LOC" in text and "1 of 4 tags differs" in text and "'Kent' gets B-ORG" in text
        app.set_param("layer", 0)
        await pilot.pause()
        title = str(app.query_one("#tag-forward-panel").border_title)
        assert "layer 0 of 2" in title
        # Frames: the forward map fills from the left; tags appear as the words are read.
        app.set_param("model", "tagger-bi")
        await ready(app, pilot)
        app.seek(1)
        await pilot.pause()
        backward = app.query_one("#tag-backward")
        assert backward._from_end and backward._visible == 1
        assert "sweeps 1/4" in app._view.frame_label(1)
        assert "B-LOC" not in _text(app)  # no tag before both sweeps are done


SIZES = [(80, 24), (160, 50)]


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("model", ["tagger-bi", "tagger-uni"])
def test_tagging_snapshots(size, model, snap_compare, make_app, until_drawn):
    app = make_app("tagging", {"model": model})
    assert snap_compare(app, terminal_size=size, run_before=until_drawn)


@pytest.mark.slow
def test_demo_numbers_are_on_screen_at_every_size():
    from seqviz.lecture import find_demo
    from seqviz.lecture.runner import SIZES as DEMO_SIZES
    from seqviz.lecture.runner import check_demo

    assert {(100, 30), (120, 40), (160, 50)} <= set(DEMO_SIZES)
    assert asyncio.run(check_demo(find_demo("tagging"))) == []


def test_the_gates_scene_reads_words_through_a_shipped_tagger():
    from seqviz.models import get
    from seqviz.scenes.gates import SCENE as GATES
    from seqviz.scenes.gates import compute as gates_compute
    from seqviz.scenes.gates import describe

    path = str(get("tagger-bi").path)
    v = GATES.make({"model": "file", "weights": path, "text": "Morgan Labs sees the dog",
                    "layer": 1, "direction": "reverse"})  # fmt: skip
    r = gates_compute(v)
    assert r.tokens == ("Morgan", "Labs", "sees", "the", "dog") and r.level == "word"
    assert r.input_size == 48 and r.gates.shape == (5, 4, 24)
    # The reverse cell's state at the last word has read that word only: the tagging scene's.
    tagging = compute(SCENE.make({"text": "Morgan Labs sees the dog", "layer": 1}))
    np.testing.assert_allclose(r.h, tagging.backward[1])
    assert "a tagger, 2-layer bidirectional lstm" in describe(v)


def test_tagger_choices_are_the_registry_taggers():
    from seqviz.models import entries
    from seqviz.scenes.tagging import MODELS

    assert MODELS == tuple(e.name for e in entries("tagger")) == SCENE.spec("model").choices
    assert MODELS[0] == "tagger-bi" and "tagger-uni" in MODELS  # the reference comes first
