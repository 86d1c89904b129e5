"""The tagging corpus, the tagger (training through seqviz.training, save/load) and its commands."""

from __future__ import annotations

import json

import numpy as np
import pytest

from seqviz.cli import main
from seqviz.models.tagger import Tagger, batches_for, load_tagger, measure
from seqviz.tasks import tagging as task
from seqviz.training import FitConfig, fit


def test_corpus_is_deterministic_and_tags_are_bio():
    a, b = task.corpus(50, seed=3), task.corpus(50, seed=3)
    assert a == b and a != task.corpus(50, seed=4)
    for s in a:
        assert len(s.words) == len(s.tags) == len(s.right)
        for i, tag in enumerate(s.tags):
            assert tag in task.TAGS
            if tag.startswith("I-"):  # an inside tag continues a name of the same type
                assert s.tags[i - 1][2:] == tag[2:]


def test_ambiguous_words_need_the_word_to_their_right():
    data = task.corpus(2000, seed=0)
    types_by_pair: dict[tuple[str, str], set[str]] = {}
    types_by_word: dict[str, set[str]] = {}
    for s in data:
        for i, w in enumerate(s.words):
            if s.right[i]:
                assert w in task.AMBIGUOUS and i + 1 < len(s.words)
                types_by_word.setdefault(w, set()).add(s.tags[i])
                types_by_pair.setdefault((w, s.words[i + 1]), set()).add(s.tags[i])
    # Alone, the word leaves the type open; with the next word it is decided.
    assert all(len(t) == 3 for t in types_by_word.values())
    assert all(len(t) == 1 for t in types_by_pair.values())


def test_held_out_sentences_are_not_in_training():
    train = {s.words for s in task.corpus(task.MAX_TRAIN, task.TRAIN_SEED)}
    held = task.held_out(200)
    assert len(held) == 200 and not any(s.words in train for s in held)
    with pytest.raises(ValueError, match="train on 1 to 5000 sentences"):
        task.training_set(6000)


def test_unknown_words_name_the_closest_known_ones():
    vocab = task.vocabulary()
    assert task.tokenize("The dog near Morgan Street.", vocab) == [
        "the", "dog", "near", "Morgan", "Street",
    ]  # fmt: skip
    with pytest.raises(ValueError, match=r"unknown word 'Morgn' \(closest known: Morgan"):
        task.tokenize("Morgn Street", vocab)
    with pytest.raises(ValueError, match="no known word is close"):
        task.tokenize("xyzzy", vocab)
    with pytest.raises(ValueError, match="the sentence is empty"):
        task.tokenize("  ", vocab)


def test_module_prints_and_writes_a_corpus(tmp_path, capsys):
    assert task.main(["--sentences", "3", "--seed", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all("/" in w for w in lines[0].split())
    assert task.main(["--sentences", "4", "--out", str(tmp_path / "c.txt")]) == 0
    assert len((tmp_path / "c.txt").read_text().splitlines()) == 4


@pytest.mark.slow
@pytest.mark.parametrize("cell, bi", [("lstm", True), ("gru", False)])
def test_a_tiny_tagger_learns_through_the_one_trainer(tmp_path, cell, bi):
    model = Tagger.random(cell, hidden=6, emb=5, layers=2, bidirectional=bi, seed=1)
    train = task.training_set(60)
    before = model.evaluate(train)["accuracy"]
    result = fit(model, batches_for(model, train, 10), FitConfig(epochs=8, lr=0.05, seed=0,
                 checkpoint=tmp_path / "t.npz"))  # fmt: skip
    assert result.losses[-1] < result.losses[0]
    assert model.evaluate(train)["accuracy"] > max(before, 0.75)
    again = load_tagger(str(tmp_path / "t.npz"))
    assert again.settings["bidirectional"] == bi and again.stack.cell == cell
    words = ["Morgan", "Labs", "sees", "the", "dog"]
    np.testing.assert_allclose(again.tag_words(words).probs, model.tag_words(words).probs)


def test_loss_gradient_matches_finite_differences():
    model = Tagger.random("gru", hidden=3, emb=2, layers=2, bidirectional=True, seed=2)
    batch = model.encode(task.corpus(2, seed=5))
    _, grads = model.loss_and_grads(batch)
    params = model.parameters()
    eps = 1e-6
    for name in ("emb", "weight_hh_l1_reverse", "weight_ih_l0", "w_out", "b_out"):
        idx = tuple(int(i) for i in np.argwhere(grads[name] != 0)[0])
        old = params[name][idx]
        params[name][idx] = old + eps
        up, _ = model.loss_and_grads(batch)
        params[name][idx] = old - eps
        down, _ = model.loss_and_grads(batch)
        params[name][idx] = old
        assert grads[name][idx] == pytest.approx((up - down) / (2 * eps), rel=1e-5, abs=1e-9)


def test_bad_model_files_are_refused(tmp_path):
    np.savez(tmp_path / "x.npz", format=np.array("seqviz-tagger-1"), emb=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="is not a seqviz tagger: it lacks"):
        load_tagger(str(tmp_path / "x.npz"))


# --- the shipped models, by inference only ---------------------------------------------------


def test_shipped_taggers_reach_the_reported_accuracy():
    rows = {r["model"]: r for r in measure(400)}
    bi, uni = rows["tagger-bi"], rows["tagger-uni"]
    assert "bidirectional" in bi["network"] and "bidirectional" not in uni["network"]
    assert bi["accuracy"] >= 0.97
    assert bi["right_context_accuracy"] - uni["right_context_accuracy"] >= 0.10
    from seqviz.models import entries

    for e in entries("tagger"):
        assert e.path.stat().st_size < 2_000_000 and e.name in e.command or "tagger_" in e.command


def test_tag_command_text_and_json(capsys):
    assert main(["tag", "Morgan Street is old", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tokens"] == ["Morgan", "Street", "is", "old"]
    assert out["tags"] == ["B-LOC", "I-LOC", "O", "O"]
    assert all(0.5 < p <= 1 for p in out["probs"])
    assert main(["tag", "Morgan Street is old", "--model", "tagger-uni"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:2] == ["Street", "I-LOC"] and len(lines) == 4
    capsys.readouterr()
    assert main(["tag", "Morgn Street", "--json"]) == 0  # read as <unk>, by its shape
    assert json.loads(capsys.readouterr().out)["unknown"] == ["Morgn"]
    assert main(["tag", "the dog", "--model", "nope.npz"]) == 2


def test_run_tagging_reports_both_models(capsys):
    assert main(["run", "tagging", "--sentences", "200", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["model"] for r in rows] == ["tagger-bi", "tagger-uni"]
    assert main(["run", "tagging", "--sentences", "200"]) == 0
    out = capsys.readouterr().out
    gap = 100 * (rows[0]["right_context_accuracy"] - rows[1]["right_context_accuracy"])
    assert f"bi beats uni by {gap:.1f} points" in out
    assert f"{rows[0]['accuracy']:.1%}" in out


def test_train_tagger_command(tmp_path, capsys):
    out = tmp_path / "m.npz"
    args = ["train-tagger", "--hidden", "4", "--emb", "3", "--sentences", "20", "--epochs", "1",
            "--bidirectional", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "1-layer bidirectional lstm" in text and "held-out token accuracy" in text
    assert load_tagger(str(out)).bidirectional
    assert main([*args[:-2], "--out", str(tmp_path / "no" / "m.npz")]) == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.parametrize(("n", "batch"), [(7, 3), (6, 3), (2, 5), (1, 1)])
def test_every_training_sentence_is_used_once_per_epoch(n, batch):
    """The last batch may be short; it is trained on, not dropped (its sentences would never
    be seen, epoch after epoch, in the orders that put them last)."""
    from collections import Counter

    model = Tagger.random("gru", hidden=2, emb=2, layers=1, bidirectional=False, seed=0)
    sentences = task.corpus(n, seed=11)
    want = Counter((tuple(s.words), tuple(s.tags)) for s in sentences)
    tag_of = dict(enumerate(model.tags))
    make = batches_for(model, sentences, batch)
    rng = np.random.default_rng(0)
    for epoch in (1, 2, 3):
        left = list(want.elements())
        sizes = []
        for b in make(epoch, rng):
            sizes.append(len(b.words))
            for ids, tags in zip(b.words, b.tags, strict=True):
                # Word dropout reads some words as <unk> (tests/test_tagger_shapes.py): such a
                # word stands for whatever the sentence had there.
                words = tuple(model.vocab[i] for i in ids)
                tagged = tuple(tag_of[t] for t in tags)
                match = next(
                    k
                    for k, (w, t) in enumerate(left)
                    if t == tagged
                    and len(w) == len(words)
                    and all(a in (b, task.UNK) for a, b in zip(words, w, strict=True))
                )
                left.pop(match)
        assert left == [], epoch
        assert sizes == [batch] * (n // batch) + ([n % batch] if n % batch else [])
