"""The tagger's <unk> and word shapes: names it never saw are tagged by their form and context."""

from __future__ import annotations

import json

import numpy as np
import pytest

from seqviz.cli import main
from seqviz.models.tagger import (
    N_SHAPE,
    SHAPES,
    Tagger,
    batches_for,
    load_tagger,
    shape_features,
)
from seqviz.tasks import tagging as task


def test_shape_features_by_hand():
    f = shape_features(["Ada", "NASA", "R2D2", "visited", "wanted", "42"])
    flags = f[:, : len(SHAPES)]  # capitalised, all caps, digits, lower case
    assert flags.tolist() == [
        [1, 0, 0, 0],
        [0, 1, 0, 0],
        [0, 1, 1, 0],
        [0, 0, 0, 1],
        [0, 0, 0, 1],
        [0, 0, 1, 0],
    ]
    suffix = f[:, len(SHAPES) :]
    assert f.shape == (6, N_SHAPE) and (suffix.sum(axis=1) == 1).all()
    assert (suffix[3] == suffix[4]).all()  # "-ted" and "-ted": the same bucket


def test_word_dropout_keeps_shapes():
    model = Tagger.random("lstm", hidden=3, emb=2, layers=1, seed=0)
    sents = task.corpus(40, seed=3)
    batches = list(batches_for(model, sents, 40)(0, np.random.default_rng(0)))
    (batch,) = batches
    unk = model.unk_id
    assert unk is not None
    ids = np.concatenate(batch.words)
    share = float((ids == unk).mean())
    assert 0.1 < share < 0.3  # about WORD_DROPOUT of the words
    # the shapes are those of the words themselves, dropped or not
    encoded = model.encode(sents)
    assert not any((w == unk).any() for w in encoded.words)  # the corpus itself has none
    order = np.random.default_rng(0).permutation(40)  # the batch's order (the same rng draws)
    for k, i in enumerate(order):
        np.testing.assert_array_equal(batch.shapes[k], shape_features(sents[i].words))


def test_taggers_without_shapes_still_load(tmp_path):
    old = Tagger.random("gru", hidden=3, emb=2, layers=1, seed=1, shape=False)
    path = old.save(tmp_path / "old.npz")
    back = load_tagger(str(path))
    assert not back.shapes and back.unk_id is None
    assert back.tag_words(["the", "dog"]).probs.shape == (2, len(task.TAGS))
    with pytest.raises(ValueError, match="unknown word 'Ada'"):
        back.tag("Ada sees the dog")


@pytest.mark.slow
def test_shipped_tagger_tags_names_it_never_saw(capsys):
    assert main(["tag", "Ada Lovelace visited London", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tags"] == ["B-PER", "I-PER", "O", "B-LOC"]
    assert out["unknown"] == ["Ada", "Lovelace", "London"]
    assert main(["tag", "Ada Lovelace visited London"]) == 0
    text = capsys.readouterr().out
    assert text.count("unknown word") == 3


def test_verbs_that_choose_their_names_types():
    """A person visited a place, a place hosted an organisation, an organisation hired a person:
    the name after such a verb needs no right context, and each type is as often a subject."""
    seen = {v: 0 for v in task.SELECT}
    for s in task.corpus(900, seed=2):
        for i, w in enumerate(s.words):
            if w in task.SELECT:
                seen[w] += 1
                subject, obj = task.SELECT[w]
                assert s.tags[0] == f"B-{subject}" and s.tags[i + 1] == f"B-{obj}"
                assert not s.right[i + 1]
    assert min(seen.values()) > 40
    assert sorted(sub for sub, _ in task.SELECT.values()) == sorted(task.TYPES)
    assert sorted(obj for _, obj in task.SELECT.values()) == sorted(task.TYPES)
