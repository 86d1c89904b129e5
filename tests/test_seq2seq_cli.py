"""seqviz translate, run bottleneck and train-seq2seq; the shipped models' accuracy."""

from __future__ import annotations

import json

import numpy as np
import pytest

from seqviz.cli import main
from seqviz.models.seq2seq import Seq2Seq, Seq2SeqConfig
from seqviz.models.seq2seq_train import Seq2SeqTrainConfig, make_batches, new_model
from seqviz.models.translate import evaluate, load_curve, load_seq2seq
from seqviz.tasks.translation import pairs, reference

SOURCE = "the dogs near the old box chased the cat"


def run(capsys, *argv):  # type: ignore[no-untyped-def]
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_translate_greedy_and_beam(capsys):
    code, out, _ = run(capsys, "translate", SOURCE)
    assert code == 0 and out.split("  [")[0] == reference(SOURCE)
    code, out, _ = run(capsys, "translate", SOURCE, "--strategy", "beam", "--width", "3",
                       "--alpha", "0.7", "--json")  # fmt: skip
    obj = json.loads(out)
    assert code == 0 and obj["source"] == SOURCE
    assert " ".join(obj["best"]["tokens"]) == reference(SOURCE)
    assert obj["best"]["logprob"] <= 0
    attn = np.array(obj["attention"])
    assert attn.shape == (len(obj["best"]["tokens"]) + 1, len(SOURCE.split()))
    np.testing.assert_allclose(attn.sum(axis=1), 1.0, atol=1e-5)


def test_translate_input_file_one_json_per_line(capsys, tmp_path):
    f = tmp_path / "in.txt"
    f.write_text("the cat slept\n\nthe birds saw the key\n")
    code, out, _ = run(capsys, "translate", "--input", str(f), "--json", "--model", "bottleneck")
    lines = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and [x["source"] for x in lines] == ["the cat slept", "the birds saw the key"]
    assert all(x["attention"] is None for x in lines)  # the bottleneck model has none


@pytest.mark.parametrize(
    "argv, words",
    [
        (["translate", "the dgo slept"], ["'dgo'", "closest known", "dog"]),
        (["translate", "  "], ["empty", "1 to 40 words"]),
        (["translate", " ".join(["the cat"] * 21)], ["42 words", "at most 40"]),
        (["translate", SOURCE, "--model", "nope.npz"], ["no model", "attention"]),
        (["translate", SOURCE, "--width", "0", "--strategy", "beam"], ["--width", "from 1 to 100"]),
        (["translate"], ["either one SOURCE"]),
    ],
)
def test_translate_bad_input_is_one_sentence(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out
    assert err.count("\n") == 1 and "Traceback" not in err
    assert all(w in err for w in words), err


def test_translate_input_names_the_bad_line(capsys, tmp_path):
    f = tmp_path / "in.txt"
    f.write_text("the cat slept\nthe cat slpet\n")
    code, out, err = run(capsys, "translate", "--input", str(f))
    assert code == 2 and not out and "line 2" in err and "'slpet'" in err


def test_run_bottleneck_json(capsys):
    code, out, _ = run(capsys, "run", "bottleneck", "--pairs", "3", "--json")
    rows = json.loads(out)
    assert code == 0 and [r["lengths"] for r in rows][0] == [3, 8]
    assert all(set(r["exact"]) == {"attention", "bottleneck"} and r["pairs"] == 3 for r in rows)


# --- training -------------------------------------------------------------------------------


def test_training_lowers_the_loss_and_the_checkpoint_reloads(tmp_path):
    from seqviz.training import FitConfig, fit

    cfg = Seq2SeqTrainConfig(Seq2SeqConfig("gru", hidden=12, emb=6), pairs=48, batch=8, max_len=8)
    assert cfg.record()["hidden"] == 12 and cfg.record()["attention"]  # the flat meta entry
    model = new_model(cfg)
    data = next(iter(make_batches(model, cfg, 1)(1, np.random.default_rng(5))))
    before = model.loss_and_grads(data)[0]
    out = tmp_path / "m.npz"
    result = fit(model, make_batches(model, cfg, 4), FitConfig(epochs=4, lr=0.02, checkpoint=out))
    after = model.loss_and_grads(data)[0]
    assert after < before - 0.3 and result.losses[-1] < result.losses[0]
    back = Seq2Seq.load(out)
    assert back.loss_and_grads(data)[0] == pytest.approx(after, abs=1e-12)


def test_train_command_and_ctrl_c_keeps_the_last_checkpoint(capsys, tmp_path, monkeypatch):
    out = tmp_path / "m.npz"
    args = ["train-seq2seq", "--hidden", "8", "--emb", "4", "--pairs", "16", "--batch", "8",
            "--max-len", "8", "--out", str(out)]  # fmt: skip
    code, _, err = run(capsys, *args, "--epochs", "2", "--no-attention", "--teacher-forcing", "0.5")
    assert code == 0 and "epoch 2: mean loss" in err
    m = Seq2Seq.load(out)
    assert not m.config.attention and m.meta["train"]["teacher_forcing"] == 0.5
    calls = {"n": 0}
    real = Seq2Seq.loss_and_grads

    def interrupted(self, batch):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:  # in the second epoch (two steps per epoch)
            raise KeyboardInterrupt
        return real(self, batch)

    monkeypatch.setattr(Seq2Seq, "loss_and_grads", interrupted)
    code, _, err = run(capsys, *args, "--epochs", "5")
    assert code == 130 and "checkpoint of epoch 1" in err
    assert Seq2Seq.load(out).config.attention  # the new run's epoch-1 checkpoint
    try:  # argparse's error (exit status 2) names the allowed range
        code = main(["train-seq2seq", "--teacher-forcing", "1.5", "--out", str(out)])
    except SystemExit as exc:
        code = int(exc.code or 0)
    assert code == 2 and "from 0 to 1" in capsys.readouterr().err


def test_scheduled_sampling_ratio_decays_to_the_setting():
    from seqviz.models.seq2seq_train import ratio_at

    cfg = Seq2SeqTrainConfig(teacher_forcing=0.5)
    assert [ratio_at(cfg, e, 3) for e in (1, 2, 3)] == [1.0, 0.75, 0.5]


# --- the shipped models (inference only) ----------------------------------------------------


@pytest.mark.slow
def test_shipped_models_accuracy_by_length():
    att, bot = load_seq2seq("attention"), load_seq2seq("bottleneck")
    buckets = ((3, 8), (20, 30))
    held = pairs(120, seed=77, min_len=3, max_len=8, split="heldout") + pairs(
        150, seed=78, min_len=20, max_len=30, split="heldout"
    )
    a, b = evaluate(att, held, buckets), evaluate(bot, held, buckets)
    assert a[1].exact >= 0.90, a
    assert b[1].exact <= a[1].exact - 0.30, (a, b)
    assert abs(a[0].exact - b[0].exact) <= 0.10, (a, b)  # close on short sources


@pytest.mark.slow
def test_saved_curve_is_what_run_bottleneck_computes():
    from seqviz.models.translate import length_curve

    saved = load_curve()
    assert saved, "seqviz/data/seq2seq_curve.json is missing: seqviz run bottleneck --save"
    fresh = length_curve()
    assert [(r.lo, r.hi, r.n) for r in fresh] == [(r.lo, r.hi, r.n) for r in saved]
    for f, s in zip(fresh, saved, strict=True):
        assert f.exact == pytest.approx(s.exact) and f.token == pytest.approx(s.token)
