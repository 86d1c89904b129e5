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


@pytest.mark.slow
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


def _cell_of(model):
    """The cell a loaded model runs (LM, flip-flop: params; tagger: stack; seq2seq: config)."""
    for inner in ("params", "stack", "config"):
        if hasattr(model, inner):
            return getattr(model, inner).cell
    raise AssertionError(f"no cell on {model!r}")


def test_every_registry_entry_names_the_cell_its_file_holds():
    for e in models.entries():
        assert e.cell == _cell_of(models.load(e.name)), e.name


def test_model_choices_are_the_registry_models_with_gates(monkeypatch):
    import dataclasses

    from seqviz.models import registry
    from seqviz.scenes import gates

    shown = [e.name for e in models.entries() if e.kind in ("lm", "tagger")
             and e.cell in ("lstm", "gru")]  # fmt: skip
    assert gates.MODELS == (*shown, "random", "file") == gates.SCENE.spec("model").choices
    assert {"agreement", "agreement-gru", "tagger-bi", "tagger-uni"} <= set(shown)
    assert "agreement-rnn" not in gates.MODELS and "attention" not in gates.MODELS
    # a new shipped model needs only its registry line: a gated LM or tagger appears, others not
    monkeypatch.setattr(registry, "_ENTRIES", dict(registry._ENTRIES))
    gru = models.get("agreement-gru")
    models.register(dataclasses.replace(gru, name="extra-gru", choice="extra"))
    models.register(dataclasses.replace(gru, name="extra-rnn", choice="xr", cell="rnn"))
    models.register(dataclasses.replace(gru, name="extra-s2s", choice="xs", kind="seq2seq"))
    assert gates.model_choices() == (*shown, "extra-gru", "random", "file")
    # and the scene loads it by that name
    v = dataclasses.replace(gates.SCENE.defaults(), model="extra-gru")
    r = gates.compute(v)
    assert r.cell == "gru" and r.source == "extra-gru" and r.level == "word"
    same = gates.compute(gates.SCENE.make({"model": "agreement-gru"}))
    np.testing.assert_array_equal(r.h, same.h)


def test_a_shipped_tagger_is_a_choice_and_reads_like_its_file():
    from seqviz.scenes.gates import SCENE, compute, describe, hidden

    text = {"text": "Morgan Labs sees the dog", "layer": 1, "direction": "reverse"}
    named = SCENE.make({"model": "tagger-bi", **text})
    by_file = SCENE.make({"model": "file", "weights": str(models.get("tagger-bi").path), **text})
    a, b = compute(named), compute(by_file)
    np.testing.assert_array_equal(a.h, b.h)
    np.testing.assert_array_equal(a.gates, b.gates)
    assert a.tokens == b.tokens and a.level == "word" and a.vocab_size == b.vocab_size
    assert a.source.startswith("tagger-bi, layer 1 reverse of a 2-layer bidirectional lstm")
    assert describe(named).startswith("tagger-bi: a tagger, 2-layer bidirectional lstm")
    # its layer and direction are shown; the random network's knobs and the path are not
    assert {"layer", "direction"}.isdisjoint(hidden(named))
    assert {"seed", "cell", "weights"} <= hidden(named)
