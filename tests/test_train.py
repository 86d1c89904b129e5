"""Training: exact gradients, loss goes down, checkpoints reload, Ctrl-C and bad options."""

from __future__ import annotations

import numpy as np
import pytest

from seqviz import cli
from seqviz.models.lm import RNNLM
from seqviz.models.lm_train import LMConfig, TrainableLM
from seqviz.training import FitConfig, Loop, fit

TINY = "the keys are here\nthe key is here\nthe dogs are gone\nthe dog is gone\n" * 3


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "tiny.txt"
    path.write_text(TINY)
    return path


@pytest.fixture
def train(monkeypatch, capsys):
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("seqviz.commands.train", "seqviz.commands.decode"))

    def call(*args: str):
        code = cli.main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return call


def sentences(level="word"):
    lines = TINY.splitlines()
    return [ln.split() if level == "word" else list(ln) for ln in lines]


@pytest.mark.slow
@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn"])
def test_gradients_match_finite_differences(cell):
    tr = TrainableLM(sentences(), LMConfig(cell=cell, hidden=4, emb=3, seq_len=100, seed=1))
    batch = tr.data[:3]
    _, g = tr.loss_and_grads(batch)
    rng = np.random.default_rng(0)
    for name, w in tr.parameters().items():
        for _ in range(3):
            idx = tuple(int(rng.integers(s)) for s in w.shape)
            old, eps = w[idx], 1e-6
            w[idx] = old + eps
            lp = tr.loss_and_grads(batch)[0]
            w[idx] = old - eps
            lm = tr.loss_and_grads(batch)[0]
            w[idx] = old
            assert abs((lp - lm) / (2 * eps) - g[name][idx]) < 1e-7, name


def test_truncation_cuts_the_gradient_path():
    full = TrainableLM(sentences(), LMConfig(hidden=4, emb=3, seq_len=100, seed=1))
    cut = TrainableLM(sentences(), LMConfig(hidden=4, emb=3, seq_len=2, seed=1))
    loss_full, g_full = full.loss_and_grads(full.data[:2])
    loss_cut, g_cut = cut.loss_and_grads(cut.data[:2])
    # Same forward states (the state is carried), different gradients (the path is cut).
    assert np.isclose(loss_full, loss_cut)
    assert np.allclose(g_full["out_weight"], g_cut["out_weight"])
    assert not np.allclose(g_full["weight_hh"], g_cut["weight_hh"])


@pytest.mark.parametrize(
    ("optimizer", "level", "factor"), [("adam", "word", 0.7), ("sgd", "char", 0.9)]
)
@pytest.mark.slow
def test_loss_decreases(optimizer, level, factor):
    tr = TrainableLM(sentences(level), LMConfig(hidden=12, emb=6, level=level, batch=4, seed=0))
    lr = 0.01 if optimizer == "adam" else 0.5
    before = tr.mean_loss()
    result = fit(tr, tr.batches, FitConfig(epochs=15, lr=lr, optimizer=optimizer, seed=0))
    assert tr.mean_loss() < factor * before
    assert result.epochs == 15 and not result.interrupted


def test_clipping_bounds_the_update():
    tr = TrainableLM(sentences(), LMConfig(hidden=4, emb=3))
    loop = Loop(tr, FitConfig(optimizer="sgd", lr=1.0, clip=1e-3))
    before = {k: v.copy() for k, v in tr.parameters().items()}
    u = loop.update(tr.data[:4])
    w = tr.parameters()
    step = np.sqrt(sum(((w[k] - before[k]) ** 2).sum() for k in before))
    assert u.grad_norm > 1e-3 and u.clipped and np.isclose(step, 1e-3)


@pytest.mark.slow
def test_cli_trains_and_checkpoint_reloads(train, corpus, tmp_path):
    out = tmp_path / "m.npz"
    code, _, err = train(
        "train", str(corpus), "--cell", "gru", "--variant", "pytorch", "--hidden", "8",
        "--emb", "4", "--epochs", "3", "--seq-len", "3", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert "epoch 3" in err and "tokens/s" in err
    losses = [
        float(ln.split("mean loss ")[1].split()[0]) for ln in err.splitlines() if "mean loss" in ln
    ]
    assert len(losses) == 3 and losses[-1] < losses[0]
    m = RNNLM.load(out)
    assert m.params.cell == "gru" and m.params.hidden_size == 8 and "keys" in m.vocab
    assert m.params.variant == "pytorch"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz", "tiny.txt"]
    code, outp, _ = train("decode", "--model", str(out), "--prompt", "the", "--json")
    assert code == 0 and '"best"' in outp


def test_ctrl_c_keeps_last_checkpoint(train, corpus, tmp_path, monkeypatch):
    out = tmp_path / "m.npz"
    calls = {"n": 0}
    real = TrainableLM.loss_and_grads

    def interrupt_in_epoch_two(self, batch):
        calls["n"] += 1
        if calls["n"] > 2:  # 12 sentences in batches of 8: two batches per epoch
            raise KeyboardInterrupt
        return real(self, batch)

    monkeypatch.setattr(TrainableLM, "loss_and_grads", interrupt_in_epoch_two)
    code, _, err = train(
        "train", str(corpus), "--hidden", "4", "--emb", "2", "--batch", "8", "--epochs", "5",
        "--out", str(out),
    )  # fmt: skip
    assert code == 130
    assert "checkpoint of epoch 1" in err and "Traceback" not in err
    RNNLM.load(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz", "tiny.txt"]


def test_ctrl_c_before_first_checkpoint(train, corpus, tmp_path, monkeypatch):
    def boom(self, batch):
        raise KeyboardInterrupt

    monkeypatch.setattr(TrainableLM, "loss_and_grads", boom)
    code, _, err = train("train", str(corpus), "--out", str(tmp_path / "m.npz"))
    assert code == 130 and "no model was written" in err
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("--hidden", "0"), "hidden must be"),
        (("--emb", "-1"), "emb must be"),
        (("--seq-len", "0"), "seq-len must be"),
        (("--epochs", "0"), "epochs must be"),
        (("--lr", "0"), "learning rate"),
        (("--clip", "-1"), "clip must be"),
    ],
)
def test_bad_options_one_sentence(train, corpus, tmp_path, args, match):
    code, _, err = train("train", str(corpus), *args, "--out", str(tmp_path / "m.npz"))
    assert code == 2 and match in err and err.count("\n") == 1


def test_bad_corpus_and_output(train, tmp_path, corpus):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    code, _, err = train("train", str(empty), "--out", str(tmp_path / "m.npz"))
    assert code == 2 and "has no text" in err
    code, _, err = train("train", str(tmp_path / "missing.txt"), "--out", str(tmp_path / "m.npz"))
    assert code == 2 and "cannot read the corpus" in err
    marked = tmp_path / "marked.txt"
    marked.write_text("the </s> keys\n")
    code, _, err = train("train", str(marked), "--out", str(tmp_path / "m.npz"))
    assert code == 2 and "<s> or </s>" in err
    code, _, err = train("train", str(corpus), "--out", str(tmp_path / "no" / "m.npz"))
    assert code == 2 and "does not exist" in err


def test_corpus_smaller_than_one_batch_warns(train, corpus, tmp_path):
    args = ["train", str(corpus), "--hidden", "4", "--emb", "4", "--epochs", "1",
            "--seq-len", "3"]  # fmt: skip
    code, _, err = train(*args, "--batch", "64", "--out", str(tmp_path / "a.npz"))
    assert code == 0, err
    assert "fewer than one batch of 64" in err and "single update" in " ".join(err.split())
    code, _, err = train(*args, "--batch", "2", "--out", str(tmp_path / "b.npz"))
    assert code == 0 and "fewer than one batch" not in err
