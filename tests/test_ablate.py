"""Agreement accuracy with units forced: conditions, margins against a NumPy recomputation, the
random-unit baseline and the `seqviz ablate` command."""

from __future__ import annotations

import json

import numpy as np
import pytest

from seqviz import models
from seqviz.cli import main
from seqviz.inside.ablation import (
    ablation,
    ablation_set,
    attractors,
    condition_masks,
    distance,
    random_units,
    verb_margins,
)
from seqviz.inside.intervene import ablate
from seqviz.inside.study import held_out_set, shipped_study
from seqviz.models.lm import random_lm
from tests.test_intervene import numpy_forced

S = "the keys to the cabinet are missing".split()
SENTENCES = [
    "the keys are missing".split(),  # 0 attractors, distance 1
    S,  # 1 attractor, distance 4
    "the key to the cabinets near the doors is old".split(),  # 2, distance 7
    "the dogs that chase the cat are happy".split(),  # 1, distance 5
    "the key on the table is new".split(),  # 0 (same number), distance 4
]


def test_attractors_distance_and_conditions():
    assert [attractors(s) for s in SENTENCES] == [0, 1, 2, 1, 0]
    assert [distance(s) for s in SENTENCES] == [1, 4, 7, 5, 4]
    m = condition_masks(SENTENCES)
    assert m["no attractor"].tolist() == [True, False, False, False, True]
    assert m["attractors"].tolist() == [False, True, True, True, False]
    assert m["short"].tolist() == [True, True, False, False, True]
    assert (m["short"] ^ m["long"]).all() and m["all"].all()


def grammar_lm(cell: str, seed: int = 0):
    return random_lm(models.load("agreement", kind="lm").vocab, cell=cell, hidden=6, emb=4,
                     seed=seed)  # fmt: skip


@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn"])
def test_verb_margins_match_numpy(cell):
    lm = grammar_lm(cell, seed=3)
    ivs = ablate([("c", 2), ("h", 4)] if cell == "lstm" else [("h", 4)], from_step=2)
    got = verb_margins(lm, SENTENCES, ivs)
    for k, words in enumerate(SENTENCES):
        v = words.index(next(w for w in words if w in ("is", "are", "was", "were")))
        ids = [lm.bos_id] + [lm.index[w] for w in words[:v]]
        h, _ = numpy_forced(lm.params, lm.embedding[ids], ivs)
        logits = lm.out_weight @ h[-1] + lm.out_bias
        other = {"is": "are", "are": "is"}[words[v]]
        want = logits[lm.index[words[v]]] - logits[lm.index[other]]  # softmax cancels
        assert got[k] == pytest.approx(want, abs=1e-10)


def test_random_units_are_other_units_of_the_same_states():
    rng = np.random.default_rng(0)
    for _ in range(50):
        pick = random_units([("c", 1), ("h", 1), ("h", 2)], 4, rng)
        assert [s for s, _ in pick] == ["c", "h", "h"]
        assert len(set(pick)) == 3 and not set(pick) & {("c", 1), ("h", 1), ("h", 2)}
    with pytest.raises(ValueError, match="every h unit"):
        random_units([("h", 0), ("h", 1)], 2, rng)


def test_ablation_counts_and_a_unit_nobody_reads():
    lm = grammar_lm("lstm", seed=1)
    a = ablation(lm, [("h", 0)], draws=10, sentences=SENTENCES)
    assert a.counts == {"all": 5, "no attractor": 2, "attractors": 3, "short": 3, "long": 2}
    assert all(len(r) == 10 for r in a.random.values()) and len(a.random_units) == 10
    intact = verb_margins(lm, SENTENCES) > 0
    assert a.intact["all"] == pytest.approx(intact.mean())
    assert a.intact["long"] == pytest.approx(intact[[2, 3]].mean())
    forced = verb_margins(lm, SENTENCES, ablate([("h", 0)])) > 0
    assert a.ablated["attractors"] == pytest.approx(forced[[1, 2, 3]].mean())


@pytest.mark.slow
def test_ablate_command_on_the_shipped_lstm(capsys):
    assert main(["ablate", "--units", "c34,h17", "--sentences", "40", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["units"] == ["c34", "h17"] and out["draws"] == 10 and out["cell"] == "lstm"
    sents = ablation_set(40)
    lm = models.load("agreement", kind="lm")
    want = float((verb_margins(lm, sents) > 0).mean())
    assert out["conditions"]["all"]["intact"] == pytest.approx(want)
    # the number unit and its partner matter; ten random pairs barely do
    c = out["conditions"]["all"]
    assert c["ablated"] < c["random_mean"] - 0.1
    assert all("c34" not in d and "h17" not in d for d in out["random_units"])
    assert sum(out["conditions"][k]["sentences"] for k in ("short", "long")) == 40
    # the intact accuracy on the distractor set is the study's
    assert shipped_study("agreement", 40).accuracy == pytest.approx(
        float((verb_margins(lm, held_out_set(40)) > 0).mean())
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--units", "c34,q"], "'q' is not a unit"),
        (["--units", "c99"], "units 0 to 47"),
        (["--units", "c3", "--model", "agreement-gru"], "only an lstm has"),
        (["--units", "h1", "--draws", "3"], "--draws"),
    ],
)
def test_ablate_command_refuses_bad_input_in_one_sentence(capsys, argv, message):
    assert main(["ablate", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.slow
def test_ablate_command_on_a_model_file_and_clamp(tmp_path, capsys):
    path = grammar_lm("gru", seed=2).save(tmp_path / "mine.npz")
    argv = ["ablate", "--model", str(path), "--units", "h1,h5", "--clamp", "2", "--from-step",
            "3", "--sentences", "20"]  # fmt: skip
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "h1,h5 clamped to 2 from step 3" in text and "long" in text
    char = random_lm(["<s>", "</s>", "a", "b"], level="char").save(tmp_path / "char.npz")
    assert main(["ablate", "--model", str(char), "--units", "h1"]) == 2
    assert "not a word-level LM" in capsys.readouterr().err
