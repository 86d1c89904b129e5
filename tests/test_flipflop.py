"""The flip-flop task, its network (trained through seqviz.training) and the shipped model."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from seqviz.tasks import flipflop as task


def test_task_targets_hold_the_last_pulse_and_are_deterministic():
    a, b = task.dataset(3, 4, 50), task.dataset(3, 4, 50)
    np.testing.assert_array_equal(a.x, b.x)
    x = np.zeros((1, 6, 1))
    x[0, 1, 0], x[0, 4, 0] = 1.0, -1.0
    np.testing.assert_array_equal(task.targets(x)[0, :, 0], [0, 1, 1, 1, -1, -1])
    with pytest.raises(ValueError, match="steps must be"):
        task.batch(np.random.default_rng(0), 2, 0)


def test_gradients_match_finite_differences():
    from seqviz.models.flipflop import FlipFlopRNN

    model = FlipFlopRNN.random(hidden=5, seed=1)
    batch = task.dataset(0, 3, 12)
    _, grads = model.loss_and_grads(batch)
    params = model.parameters()
    rng = np.random.default_rng(0)
    for name in ("weight_hh", "weight_ih", "bias_ih", "w_out", "b_out"):
        idx = tuple(rng.integers(0, n) for n in params[name].shape)
        old = params[name][idx]
        params[name][idx] = old + 1e-6
        up = model.loss_and_grads(batch)[0]
        params[name][idx] = old - 1e-6
        down = model.loss_and_grads(batch)[0]
        params[name][idx] = old
        assert grads[name][idx] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-9)


def test_a_tiny_network_learns_through_the_one_trainer(tmp_path):
    from seqviz.models import load
    from seqviz.models.flipflop import FlipFlopRNN, TrainSettings, batches_for
    from seqviz.training import FitConfig, fit

    model = FlipFlopRNN.random(hidden=8, seed=0)
    settings = TrainSettings(hidden=8, steps=30, batch=8, batches=10)
    out = tmp_path / "ff.npz"
    result = fit(model, batches_for(settings), FitConfig(epochs=3, lr=0.02, clip=1.0,
                                                         checkpoint=out))  # fmt: skip
    assert result.losses[-1] < result.losses[0]
    again = load(out)
    np.testing.assert_array_equal(again.parameters()["weight_hh"], model.parameters()["weight_hh"])


def test_loading_a_wrong_file_is_one_sentence(tmp_path):
    from seqviz.models import load, save_model

    path = tmp_path / "bad.npz"
    save_model(path, "flipflop", {"weight_hh": np.zeros((2, 2))})
    with pytest.raises(ValueError, match="not a flip-flop model: it lacks"):
        load(path)


def test_shipped_model_has_the_eight_memories_at_the_cube_corners():
    from seqviz.commands.run_fixedpoints import find

    model, fixed = find("flipflop")
    assert len(fixed.stable) == 8
    corners = {tuple(np.sign(model.readout(p.h)).astype(int)) for p in fixed.stable}
    assert corners == set(itertools.product((-1, 1), repeat=3))
    for p in fixed.stable:
        assert p.q < 1e-20 and abs(p.top_eigenvalue) < 1
    assert fixed.saddles and all(1 <= p.n_unstable <= 3 for p in fixed.saddles)
    # Every stable point is a memory: from it, with no input, the outputs keep their signs.
    h = model.run(np.zeros((200, 3)), h0=fixed.stable[0].h)
    assert np.all(np.sign(model.readout(h[-1])) == np.sign(model.readout(fixed.stable[0].h)))


def test_shipped_model_quality():
    from seqviz import models

    model = models.load("flipflop")
    scores = model.evaluate(task.dataset(12345, 64, 200))
    assert scores["bit_accuracy"] > 0.99 and scores["mse"] < 0.06


def test_run_fixedpoints_json(capsys):
    from seqviz.cli import main

    assert main(["run", "fixedpoints", "--json", "--starts", "256"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["stable"] == 8 and doc["hidden"] == 24
    saddle = next(p for p in doc["points"] if p["kind"] == "saddle")
    assert saddle["top_modulus"] > 1 and saddle["unstable_directions"] >= 1
    assert main(["run", "fixedpoints", "--model", "nope.npz"]) == 2
    assert "nope.npz" in capsys.readouterr().err


def test_train_flipflop_command_writes_a_loadable_model(tmp_path, capsys):
    from seqviz.cli import main
    from seqviz.models import load

    out = tmp_path / "ff.npz"
    argv = ["train-flipflop", "--hidden", "4", "--steps", "10", "--batch", "2", "--batches", "2",
            "--epochs", "1", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "epoch 1: mean squared error" in text and "held-out:" in text
    assert load(out).hidden == 4
    assert main([*argv[:-1], str(tmp_path / "missing" / "ff.npz")]) == 2
    assert "the folder of --out, " in capsys.readouterr().err
