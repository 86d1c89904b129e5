"""The gates scene on trained models: the shipped agreement LMs read words through their own
vocabulary and embedding; `seqviz --weights` does the same for any `seqviz train` model."""

from __future__ import annotations

import numpy as np
import pytest

from seqviz import models
from seqviz.cli import build_parser
from seqviz.commands.app import resolve
from seqviz.models.lm import random_lm
from seqviz.scenes import get_scene
from seqviz.ui.export import screen_text


def test_default_is_the_shipped_lstm_reading_words():
    scene = get_scene("gates")
    r = scene.compute(scene.defaults())
    lm = models.load("agreement")
    assert r.source == "agreement" and r.level == "word" and r.cell == "lstm"
    assert r.tokens == ("<s>", "the", "keys", "to", "the", "cabinet", "are", "missing")
    # the states are the model's own, on its own embeddings of <s> and the words
    np.testing.assert_allclose(r.h, np.asarray(lm.trace(scene.defaults().text).h))
    assert (r.hidden, r.input_size, r.vocab_size) == (48, 16, len(lm.vocab))
    # trained gates stay off the saturated extremes the random-vector input drove them to
    assert np.abs(r.c).max() < 10


def test_unknown_words_are_refused_with_the_closest_known_ones():
    scene = get_scene("gates")
    with pytest.raises(ValueError, match="'cab' is not in the vocabulary.*cabinet"):
        scene.compute(scene.make({"text": "the keys to the cab"}))
    with pytest.raises(ValueError, match="'kees'.*keys"):
        scene.compute(scene.make({"text": "the kees"}))


def test_gru_and_random_are_one_choice_away():
    scene = get_scene("gates")
    g = scene.compute(scene.make({"model": "agreement-gru"}))
    assert g.cell == "gru" and g.gate_names == ("r", "z", "n") and g.level == "word"
    r = scene.compute(scene.make({"model": "random", "text": "abc"}))
    assert r.source == "random" and r.T == 3 and r.hidden == 16
    from seqviz.scenes.gates import hidden

    assert "cell" in hidden(scene.defaults()) and "seed" in hidden(scene.defaults())
    # the weights path, and layer/direction (only a stacked weights file has them)
    assert hidden(scene.make({"model": "random"})) == frozenset({"weights", "layer", "direction"})
    assert "seed" not in hidden(scene.make({"model": "file"}))  # a bare cell's char vectors


@pytest.mark.parametrize("level, text", [("word", "b a"), ("char", "ab ba")])
def test_weights_flag_reads_a_trained_model_with_its_vocabulary(tmp_path, level, text):
    vocab = ("<s>", "</s>", "a", "b") if level == "word" else ("<s>", "</s>", "a", "b", " ")
    lm = random_lm(vocab, "gru", hidden=6, emb=3, seed=2, level=level)
    path = tmp_path / "m.npz"
    lm.save(path)
    name, values = resolve(build_parser().parse_args(["--weights", str(path), "--set",
                                                      f"text={text}"]))  # fmt: skip
    assert (name, values.model, values.weights) == ("gates", "file", str(path))
    r = get_scene("gates").compute(values)
    ids, x = lm.inputs(text)
    np.testing.assert_allclose(r.h, np.asarray(lm.trace(text).h))
    assert len(r.tokens) == len(ids) and r.level == level and r.hidden == 6
    with pytest.raises(ValueError, match="not in the vocabulary"):
        get_scene("gates").compute(get_scene("gates").make({"text": "c"}, values))


async def test_panel_shows_the_model_and_hides_the_random_knobs(make_app, ready):
    app = make_app("gates")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        text = screen_text(app)
        assert "agreement: LSTM, hidden 48," in text and "embedding 16, 61 words known" in text
        assert not app.query_one("#param-seed").display
        assert not app.query_one("#param-forget_bias").display
        assert "<s> the key" in text  # the heatmaps' columns are the words read
        # typing half a word: refused, the closest words named, the last good result kept
        field = app.query_one("#param-text")
        field.focus()
        await pilot.press("end", *" with th")
        await ready(app, pilot)
        status = str(app.query_one("#status").render())
        assert "'th' is not in the vocabulary" in status and "the" in status
        assert app.result.tokens[-2:] == ("missing", "with")
        app.set_param("model", "random")
        await ready(app, pilot)
        assert app.query_one("#param-seed").display and app.result.source == "random"
        assert "agreement: LSTM" not in screen_text(app)


@pytest.mark.parametrize("name, cell", [("agreement-gru", "gru"), ("agreement-rnn", "rnn")])
def test_shipped_comparison_models(name, cell):
    lm = models.load(name)
    assert models.resolve(name).stat().st_size < 2_000_000
    assert (lm.params.cell, lm.params.hidden_size, lm.params.input_size) == (cell, 48, 16)
    assert lm.vocab == models.load("agreement").vocab  # the same corpus, the same words
    # trained: after a plural subject and a distractor, "are" beats "is"
    p = lm.next_token_probs("the keys to the cabinet")
    assert p["are"] > 5 * p["is"]
