"""The one trainer: steps, clipping, optimizers, divergence, checkpoints, Ctrl-C, callbacks."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from seqviz.files import atomic_write
from seqviz.training import (
    SGD,
    Adam,
    Diverged,
    FitConfig,
    Loop,
    Trainable,
    clip_global_norm,
    fit,
)


class Quadratic:
    """A tiny Trainable: loss = mean over the batch of |w - target|^2 / 2."""

    def __init__(self, w0=(3.0, -4.0)) -> None:
        self.w = {"w": np.array(w0, dtype=float)}
        self.saves: list[list[str]] = []

    def parameters(self):
        return self.w

    def loss_and_grads(self, batch):
        t = np.asarray(batch, dtype=float)  # (B, 2) targets
        diff = self.w["w"] - t
        return float(0.5 * (diff**2).sum(axis=1).mean()), {"w": diff.mean(axis=0)}

    def save(self, path):
        self.saves.append([str(v) for v in self.w["w"]])
        atomic_write(path, " ".join(self.saves[-1]))


def zeros(epoch, rng):
    for _ in range(4):
        yield np.zeros((2, 2))


def test_quadratic_is_trainable():
    assert isinstance(Quadratic(), Trainable)


def test_clip_global_norm_scales_in_place_and_reports():
    g = {"a": np.array([3.0, 0.0]), "b": np.array([[4.0]])}
    norm, scale = clip_global_norm(g, 1.0)
    assert norm == pytest.approx(5.0) and scale == pytest.approx(0.2)
    assert math.sqrt(sum(float((v**2).sum()) for v in g.values())) == pytest.approx(1.0)
    g = {"a": np.array([0.3, 0.4])}
    assert clip_global_norm(g, 1.0) == (pytest.approx(0.5), 1.0)
    assert clip_global_norm({"a": np.array([30.0, 40.0])}, 0.0) == (pytest.approx(50.0), 1.0)
    bad = {"a": np.array([np.inf, 1.0])}
    norm, scale = clip_global_norm(bad, 1.0)
    assert math.isinf(norm) and scale == 1.0 and bad["a"][1] == 1.0


def test_sgd_and_adam_steps_match_the_formulas():
    p = {"w": np.array([1.0, -2.0])}
    SGD(0.1).step(p, {"w": np.array([10.0, 20.0])})
    assert np.allclose(p["w"], [0.0, -4.0])
    # Adam's first step moves every weight by lr (times the sign of its gradient)
    p = {"w": np.array([1.0, -2.0])}
    opt = Adam(0.01)
    opt.step(p, {"w": np.array([1e-3, -50.0])})
    assert np.allclose(p["w"], [1.0 - 0.01, -2.0 + 0.01], atol=1e-7)
    opt.step(p, {"w": np.array([1e-3, -50.0])})
    assert np.allclose(p["w"], [1.0 - 0.02, -2.0 + 0.02], atol=1e-7) and opt.t == 2


@pytest.mark.slow
def test_adam_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w0 = rng.normal(size=(3, 2))
    grads = [rng.normal(size=(3, 2)) for _ in range(5)]
    p = {"w": w0.copy()}
    opt = Adam(0.05)
    tw = torch.tensor(w0.copy(), requires_grad=True)
    topt = torch.optim.Adam([tw], lr=0.05)
    for g in grads:
        opt.step(p, {"w": g.copy()})
        tw.grad = torch.tensor(g)
        topt.step()
    assert np.allclose(p["w"], tw.detach().numpy(), atol=1e-12)


def test_loop_update_reports_each_step():
    m = Quadratic()
    loop = Loop(m, FitConfig(lr=0.5, optimizer="sgd", clip=0))
    u = loop.update(np.zeros((1, 2)))
    assert (u.step, u.loss, u.grad_norm, u.clipped, u.finite) == (1, 12.5, 5.0, False, True)
    assert np.allclose(m.w["w"], [1.5, -2.0])
    u = Loop(m, FitConfig(lr=0.5, optimizer="sgd", clip=1.0)).update(np.zeros((1, 2)))
    assert u.clipped and np.allclose(m.w["w"], [1.5 - 0.5 * 0.6, -2.0 + 0.5 * 0.8])


def test_fit_converges_and_calls_back(tmp_path):
    m = Quadratic()
    seen, epochs = [], []

    class Cb:
        def on_update(self, u):
            seen.append(u.step)

        def on_epoch_end(self, epoch, info):
            epochs.append((epoch, info.steps, info.checkpoint))

    ck = tmp_path / "m.txt"
    r = fit(m, zeros, FitConfig(epochs=3, lr=0.5, optimizer="sgd", checkpoint=ck), [Cb()])
    assert seen == list(range(1, 13)) and r.steps == 12 and r.epochs == 3
    assert epochs == [(1, 4, ck), (2, 4, ck), (3, 4, ck)]
    assert len(r.losses) == 3 and r.losses[0] > r.losses[1] > r.losses[2]
    assert len(m.saves) == 3 and ck.read_text().split() == [str(v) for v in m.w["w"]]
    assert not r.interrupted and r.checkpoint == ck


def test_fit_shuffles_with_the_seeded_rng():
    def draws(seed):
        got = []

        def batches(epoch, rng):
            got.append(float(rng.random()))
            yield np.zeros((1, 2))

        fit(Quadratic(), batches, FitConfig(epochs=2, seed=seed))
        return got

    assert draws(3) == draws(3) != draws(4)


def test_divergence_is_a_clear_error_and_leaves_the_weights():
    m = Quadratic()

    def exploding(epoch, rng):
        yield np.zeros((1, 2))
        yield np.full((1, 2), np.inf)

    with pytest.raises(Diverged, match=r"diverged in epoch 1 at step 2 \(the loss became inf"):
        fit(m, exploding, FitConfig(epochs=2, lr=0.1, optimizer="sgd", clip=0))
    assert np.isfinite(m.w["w"]).all()
    assert issubclass(Diverged, ValueError)


def test_ctrl_c_keeps_the_last_checkpoint(tmp_path):
    m = Quadratic()
    ck = tmp_path / "m.txt"

    def interrupted(epoch, rng):
        yield np.zeros((1, 2))
        if epoch == 2:
            raise KeyboardInterrupt

    r = fit(m, interrupted, FitConfig(epochs=5, lr=0.5, optimizer="sgd", checkpoint=ck))
    assert r.interrupted and r.epochs == 1 and r.checkpoint == ck
    # epoch 2 took a step before Ctrl-C: the weights moved on, the checkpoint is epoch 1's
    assert len(m.saves) == 1 and ck.read_text().split() == m.saves[0]
    assert m.saves[0] != [str(v) for v in m.w["w"]]
    assert sorted(os.listdir(tmp_path)) == ["m.txt"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epochs": 0}, "epochs must be"),
        ({"lr": 0.0}, "learning rate"),
        ({"lr": float("nan")}, "learning rate"),
        ({"optimizer": "rmsprop"}, "allowed: adam, sgd"),
        ({"clip": -1.0}, "clip must be"),
    ],
)
def test_bad_config_one_sentence(kwargs, match):
    with pytest.raises(ValueError, match=match):
        FitConfig(**kwargs)


class _FiniteLossInfiniteGradient(Quadratic):
    """A finite loss whose gradient overflows (what an exploding BPTT gives at a sane loss)."""

    def loss_and_grads(self, batch):
        loss, grads = super().loss_and_grads(batch)
        if np.isinf(np.asarray(batch)).any():
            return loss if math.isfinite(loss) else 1.0, {"w": np.array([np.inf, 1.0])}
        return loss, grads


def test_a_finite_loss_with_an_infinite_gradient_norm_diverges_and_leaves_the_weights():
    m = _FiniteLossInfiniteGradient()
    for clip in (0.0, 1.0):
        for optimizer in ("sgd", "adam"):
            before = m.w["w"].copy()
            u = Loop(m, FitConfig(lr=0.1, optimizer=optimizer, clip=clip)).update(
                np.full((1, 2), np.inf)
            )
            assert math.isfinite(u.loss) and math.isinf(u.grad_norm) and not u.finite
            np.testing.assert_array_equal(m.w["w"], before)

    def exploding(epoch, rng):
        yield np.zeros((1, 2))
        yield np.full((1, 2), np.inf)

    m = _FiniteLossInfiniteGradient()
    with pytest.raises(Diverged, match=r"at step 2 \(the gradient became inf or nan\)"):
        fit(m, exploding, FitConfig(epochs=2, lr=0.1, optimizer="sgd", clip=0))
    assert np.isfinite(m.w["w"]).all()
