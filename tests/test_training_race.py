"""Live training: one update equals PyTorch's, clipping, the RNN/LSTM outcome, stream control."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

from seqviz.models.lagged import LagClassifier
from seqviz.scenes.stream import StreamControl
from seqviz.tasks.lagged import make_task
from seqviz.training import FitConfig, Loop
from seqviz.training.race import Race, RaceConfig, summary


def _torch_step(model, batch, optimizer, lr):
    torch = pytest.importorskip("torch")
    a = {k: torch.tensor(v.copy(), requires_grad=True) for k, v in model.arrays.items()}
    make = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[model.cell]
    d = model.hidden
    net = make(batch.x.shape[2], d, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(net, f"{name}_l0").copy_(a[name])
    out, _ = net(torch.tensor(batch.x))
    logits = out[:, -1] @ a["out_weight"].T + a["out_bias"]
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor(batch.y))
    params = [*(getattr(net, f"{n}_l0") for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")),
              a["out_weight"], a["out_bias"]]  # fmt: skip
    opt = (torch.optim.Adam if optimizer == "adam" else torch.optim.SGD)(params, lr=lr)
    for _ in range(2):  # two steps: Adam's moments and bias correction take part
        opt.zero_grad()
        out, _ = net(torch.tensor(batch.x))
        logits = out[:, -1] @ a["out_weight"].T + a["out_bias"]
        loss = torch.nn.functional.cross_entropy(logits, torch.tensor(batch.y))
        loss.backward()
        opt.step()
    names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "out_weight", "out_bias")
    return {n: p.detach().numpy() for n, p in zip(names, params, strict=True)}


@pytest.mark.slow
@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_update_equals_torch_autograd_and_optimizer(cell, optimizer):
    pytest.importorskip("torch")
    task = make_task("copy", 4)
    batch = task.batch(np.random.default_rng(0), 8)
    variant = "pytorch" if cell == "gru" else "textbook"
    model = LagClassifier(cell, task.n_inputs, 5, task.n_classes, seed=3, variant=variant)
    want = _torch_step(model, batch, optimizer, 0.05)
    loop = Loop(model, FitConfig(lr=0.05, optimizer=optimizer, clip=0.0))
    loop.update(batch)
    loop.update(batch)
    for name, value in want.items():
        np.testing.assert_allclose(model.arrays[name], value, rtol=1e-9, atol=1e-11, err_msg=name)


def test_gradients_match_finite_differences():
    task = make_task("agreement", 3)
    batch = task.batch(np.random.default_rng(1), 4)
    model = LagClassifier("gru", task.n_inputs, 4, task.n_classes, seed=1)
    _, grads = model.loss_and_grads(batch)
    rng = np.random.default_rng(0)
    for name, arr in model.arrays.items():
        for _ in range(3):
            i = tuple(int(rng.integers(s)) for s in arr.shape)
            old = arr[i]
            arr[i] = old + 1e-6
            up = model.loss_and_grads(batch)[0]
            arr[i] = old - 1e-6
            down = model.loss_and_grads(batch)[0]
            arr[i] = old
            assert grads[name][i] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-8)


def test_clipping_rescales_to_the_threshold():
    config = RaceConfig(task="copy", lag=3, cells=("rnn",), hidden=8, lr=0.01, clip=1e-3)
    race = Race(config)
    model = race.runs["rnn"].model
    batch = race.task.batch(np.random.default_rng(5), 32)
    before = {k: v.copy() for k, v in model.arrays.items()}
    _, grads = model.loss_and_grads(batch)
    norm = float(np.sqrt(sum((g * g).sum() for g in grads.values())))
    assert norm > 1e-3
    loop = Loop(model, FitConfig(lr=1.0, optimizer="sgd", clip=1e-3))
    u = loop.update(batch)
    assert u.clipped and u.grad_norm == pytest.approx(norm)
    step = np.sqrt(sum(((model.arrays[k] - before[k]) ** 2).sum() for k in before))
    assert step == pytest.approx(1e-3, rel=1e-9)  # SGD lr 1: the step is the clipped gradient


def test_lr_and_clip_apply_from_the_next_update():
    race = Race(RaceConfig(task="copy", lag=3, cells=("lstm",), hidden=8, clip=1.0))
    race.update()
    race.set_rates(0.5, 0.0)
    loop = race.runs["lstm"].loop
    assert loop.optimizer.lr == 0.5 and loop.config.clip == 0.0
    race.update()
    assert race.runs["lstm"].clipped[-1] is False
    with pytest.raises(ValueError, match="clip"):
        race.set_rates(0.5, -1.0)


@pytest.mark.slow
def test_lstm_learns_the_lag_the_rnn_does_not():
    """Small and seeded: copy at lag 15, hidden 16; the LSTM gets there (running accuracy 90% at
    update 225), the RNN stays at chance (1/8)."""
    race = Race(RaceConfig(task="copy", lag=15, cells=("rnn", "lstm"), hidden=16, seed=0))
    for _ in range(400):
        race.update()
    rows = {r["cell"]: r for r in summary(race)}
    assert rows["lstm"]["first_reached"] is not None and rows["lstm"]["accuracy"] > 0.9
    assert rows["rnn"]["first_reached"] is None and rows["rnn"]["accuracy"] < 0.25


@pytest.mark.slow
def test_the_training_demos_lag_30_step_says_what_the_race_does():
    """The training demo's second step: at lag 30 the RNN stays at chance and the LSTM passes
    90% "after some 550 updates". Where exactly follows the CPU's rounding over hundreds of
    updates of Adam (557 and 563 with two of OpenBLAS's kernel families on one machine), so the
    caption gives it roughly and the demo expects no update number: this runs the step's own
    settings and checks the range. (At lag 40 the update moved from 549 to 1171, past the
    step's 800, with the kernel family: too near the edge of what the LSTM learns to cite.)"""
    from seqviz.lecture.script import find_demo
    from seqviz.scenes.training import _config

    step = find_demo("training").steps[1]
    assert "after some 550 updates" in step.caption
    values = SimpleNamespace(**step.values)
    race = Race(_config(values))
    for _ in range(values.steps):
        race.update()
    rows = {r["cell"]: r for r in summary(race)}
    assert rows["rnn"]["first_reached"] is None
    assert rows["rnn"]["accuracy"] < 0.25
    assert 450 <= rows["lstm"]["first_reached"] <= 700


def test_high_lr_without_clipping_spikes_and_is_reported_with_clipping_not():
    runs = {}
    for clip in (0.0, 1.0):
        race = Race(RaceConfig(task="copy", lag=10, cells=("rnn",), hidden=32, lr=2.0,
                               optimizer="sgd", clip=clip))  # fmt: skip
        for _ in range(30):
            race.update()
        runs[clip] = race.runs["rnn"]
    off, on = runs[0.0], runs[1.0]
    assert off.first_spike is not None and len(off.losses) == 30
    assert max(off.losses) > 5 * max(on.losses[:5])
    assert on.first_spike is None and any(on.clipped)


def test_bad_race_settings_are_one_sentence():
    with pytest.raises(ValueError, match="cells must be"):
        RaceConfig(cells=("rnn", "transformer"))
    with pytest.raises(ValueError, match="lag must be"):
        RaceConfig(lag=0)
    with pytest.raises(ValueError, match="optimizer"):
        RaceConfig(optimizer="rmsprop")


def test_stream_control_pause_step_resume_cancel():
    control = StreamControl(None, running=False)
    got: list[int] = []

    def worker():
        while True:
            n = control.take(5)
            if n == 0:
                return
            got.append(n)

    thread = threading.Thread(target=worker)
    thread.start()
    time.sleep(0.05)
    assert got == []  # paused: nothing happens
    control.step(1)
    time.sleep(0.05)
    assert got == [1]
    control.cancel()
    thread.join(timeout=2)
    assert not thread.is_alive()
    c2 = StreamControl(None)
    assert c2.take(7) == 7
    flag = [False]
    c2.watch(lambda: flag[0])
    flag[0] = True
    assert c2.take(7) == 0 and c2.cancelled


def test_model_saves_and_loads_through_the_registry(tmp_path):
    from seqviz.models import load

    race = Race(RaceConfig(task="copy", lag=3, cells=("lstm",), hidden=6))
    race.update()
    model = race.runs["lstm"].model
    model.save(tmp_path / "m.npz")
    back = load(str(tmp_path / "m.npz"))
    assert isinstance(back, LagClassifier) and back.cell == "lstm"
    for name, arr in model.arrays.items():
        np.testing.assert_array_equal(back.arrays[name], arr)
