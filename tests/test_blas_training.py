"""The batched BLAS kernels (float32 and float64) against the per-sequence kernels and PyTorch,
and training in float32 through FitConfig(dtype) and --dtype."""

from __future__ import annotations

import numpy as np
import pytest
from core_cases import CASES, IDS

from seqviz.core import Params, trace
from seqviz.core.blas import blas_backward, blas_record, check_dtype, uses_blas
from seqviz.core.blas_stack import stack_backward, stack_record
from seqviz.models.lagged import LagClassifier
from seqviz.tasks.lagged import make_task
from seqviz.training import FitConfig, Loop

NAMES = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")


def _weights(p: Params, dtype) -> tuple:
    return tuple(np.asarray(getattr(p, n), dtype) for n in NAMES)


def _rel(got: np.ndarray, want: np.ndarray) -> float:
    """Largest difference relative to the largest entry (entries near 0 do not blow it up)."""
    return float(np.abs(np.asarray(got, np.float64) - want).max() / max(np.abs(want).max(), 1e-300))


@pytest.mark.parametrize(("cell", "nl", "variant"), CASES, ids=IDS)
def test_blas_equals_the_per_sequence_kernels(cell, nl, variant):
    """Every state, gate and gradient of a batch with its own initial states equals the
    per-sequence trace of each sequence (the weight gradients: their sum over the batch)."""
    rng = np.random.default_rng(3)
    B, T, d_in, d = 3, 6, 3, 4
    p = Params.random(cell, d_in, d, seed=2, nonlinearity=nl, variant=variant, scale=0.8)
    p = p.replace(
        bias_ih=rng.normal(0, 0.3, p.n_gates * d), bias_hh=rng.normal(0, 0.3, p.n_gates * d)
    )
    x, g_out = rng.normal(size=(T, B, d_in)), rng.normal(size=(T, B, d))
    h0, c0, g_T = rng.normal(0, 0.5, (B, d)), rng.normal(0, 0.5, (B, d)), rng.normal(size=(B, d))
    lstm = cell == "lstm"
    rec = blas_record(cell, _weights(p, np.float64), x, h0, c0 if lstm else None,
                      nonlinearity=nl, variant=variant)  # fmt: skip
    out = blas_backward(rec, g_out, g_T, want_x=True)
    sums = dict.fromkeys(NAMES, 0.0)
    for b in range(B):
        tr = trace(p, x[:, b], h0[b], c0[b] if lstm else None, grad_hT=g_T[b], grad_out=g_out[:, b])
        close = {"rtol": 1e-12, "atol": 1e-13}
        np.testing.assert_allclose(rec.h[:, b], tr.h, **close)
        np.testing.assert_allclose(out.grad_h[:, b], tr.grad_h, **close)
        np.testing.assert_allclose(out.x[:, b], tr.grad_x, **close)
        np.testing.assert_allclose(out.h0[b], tr.grad_h0, **close)
        if lstm:
            np.testing.assert_allclose(rec.c[:, b], tr.c, **close)
            np.testing.assert_allclose(out.grad_c[:, b], tr.grad_c, **close)
            np.testing.assert_allclose(out.c0[b], tr.grad_c0, **close)
        if tr.gates is not None:
            got = rec.gates[:, b].reshape(T, p.n_gates, d)
            np.testing.assert_allclose(got, tr.gates, **close)
        for n in NAMES:
            sums[n] = sums[n] + getattr(tr, f"grad_{n}")
    for n, total in sums.items():
        np.testing.assert_allclose(out.weights()[n], total, rtol=1e-11, atol=1e-13, err_msg=n)


TORCH_CASES = [("rnn", "tanh"), ("rnn", "relu"), ("lstm", "tanh"), ("gru", "tanh")]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("cell", "nl"), TORCH_CASES, ids=[f"{c}-{n}" for c, n in TORCH_CASES])
def test_gradients_equal_torch_autograd(cell, nl, dtype):
    """float32 gradients equal PyTorch float32 autograd to 1e-4 relative, float64 to 1e-10:
    every weight, dL/dx and dL/dh0, from random initial states and a loss at every step."""
    torch = pytest.importorskip("torch")
    tdt = getattr(torch, dtype)
    torch.manual_seed(0)
    make = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[cell]
    kw = {"nonlinearity": nl} if cell == "rnn" else {}
    module = make(5, 16, dtype=tdt, **kw)  # time-major, as the kernels
    rng = np.random.default_rng(1)
    T, B = 12, 6
    x, g_out = rng.normal(size=(T, B, 5)), rng.normal(size=(T, B, 16))
    h0, c0 = rng.normal(0, 0.5, (B, 16)), rng.normal(0, 0.5, (B, 16))
    xt = torch.tensor(x, dtype=tdt, requires_grad=True)
    h0t = torch.tensor(h0[None], dtype=tdt, requires_grad=True)
    if cell == "lstm":
        out_t, _ = module(xt, (h0t, torch.tensor(c0[None], dtype=tdt)))
    else:
        out_t, _ = module(xt, h0t)
    (out_t * torch.tensor(g_out, dtype=tdt)).sum().backward()
    w = tuple(getattr(module, f"{n}_l0").detach().numpy() for n in NAMES)
    assert w[1].dtype == np.dtype(dtype)
    rec = blas_record(cell, w, x, h0, c0 if cell == "lstm" else None, nonlinearity=nl,
                      variant="pytorch" if cell == "gru" else "textbook")  # fmt: skip
    out = blas_backward(rec, g_out, want_x=True)
    assert rec.h.dtype == out.weight_hh.dtype == np.dtype(dtype)
    tol = 1e-4 if dtype == "float32" else 1e-10
    assert _rel(rec.h, out_t.detach().numpy()) < tol
    for n in NAMES:
        assert _rel(out.weights()[n], getattr(module, f"{n}_l0").grad.numpy()) < tol, n
    assert _rel(out.x, xt.grad.numpy()) < tol
    assert _rel(out.h0, h0t.grad.numpy()[0]) < tol


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_stacked_bidirectional_equals_torch(cell, dtype):
    """Two layers, both directions: every weight's gradient and dL/dx as PyTorch's."""
    torch = pytest.importorskip("torch")
    tdt = getattr(torch, dtype)
    torch.manual_seed(2)
    make = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[cell]
    module = make(4, 8, num_layers=2, bidirectional=True, dtype=tdt)
    rng = np.random.default_rng(5)
    x, g_out = rng.normal(size=(7, 3, 4)), rng.normal(size=(7, 3, 16))
    xt = torch.tensor(x, dtype=tdt, requires_grad=True)
    out_t, _ = module(xt)
    (out_t * torch.tensor(g_out, dtype=tdt)).sum().backward()
    weights = {k: v.detach().numpy() for k, v in module.named_parameters()}
    rec = stack_record(
        cell, weights, 2, True, x, variant="pytorch" if cell == "gru" else "textbook"
    )
    grads, g_x = stack_backward(rec, g_out)
    tol = 1e-4 if dtype == "float32" else 1e-10
    assert _rel(rec.out, out_t.detach().numpy()) < tol
    for k, v in module.named_parameters():
        assert grads[k].dtype == np.dtype(dtype)
        assert _rel(grads[k], v.grad.numpy()) < tol, k
    assert _rel(g_x, xt.grad.numpy()) < tol


def test_dtype_is_checked_with_a_sentence():
    with pytest.raises(ValueError, match="unknown dtype 'float16'; allowed: float64, float32"):
        FitConfig(dtype="float16")
    with pytest.raises(ValueError, match="unknown dtype"):
        check_dtype("int8")

    class Plain:  # a Trainable without set_dtype
        def parameters(self):
            return {}

    with pytest.raises(ValueError, match="a Plain trains in float64 only, not float32"):
        Loop(Plain(), FitConfig(dtype="float32"))  # type: ignore[arg-type]


def test_shipped_sizes_keep_the_per_sequence_kernels_in_float64():
    """Every shipped model (hidden 24 or 48) is trained in float64 by the per-sequence kernels,
    so its training command reproduces it bit for bit; float32 always takes the BLAS path."""
    from seqviz import models

    hidden = []
    for e in models.entries():
        with np.load(e.path) as f:
            key = "weight_hh_l0" if "weight_hh_l0" in f.files else "weight_hh"
            if key in f.files:
                hidden.append(f[key].shape[1])
    assert hidden and not any(uses_blas("float64", h) for h in hidden)
    assert uses_blas("float32", 4) and uses_blas("float64", 64)


def _lag_batches(n=4, lag=3, B=8):
    task = make_task("copy", lag)
    rng = np.random.default_rng(0)
    return task, [task.batch(rng, B) for _ in range(n)]


def test_float64_blas_path_agrees_with_the_per_sequence_path():
    """At hidden 64 the classifier's float64 gradients (BLAS) equal those of the per-sequence
    kernels (the path below hidden 64) to rounding."""
    task, batches = _lag_batches()
    a = LagClassifier("lstm", task.n_inputs, 64, task.n_classes, seed=1)
    loss, grads = a.loss_and_grads(batches[0])
    from seqviz.core import batch_trace

    b = batches[0]
    hT_model = LagClassifier("lstm", task.n_inputs, 64, task.n_classes, seed=1)
    from seqviz.core.api import batch_record

    rec = batch_record(hT_model.params, b.x)
    z = rec.h[:, -1] @ a.arrays["out_weight"].T + a.arrays["out_bias"]
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    assert loss == pytest.approx(-np.log(p[np.arange(len(b.y)), b.y]).mean(), rel=1e-12)
    dz = p.copy()
    dz[np.arange(len(b.y)), b.y] -= 1.0
    dz /= len(b.y)
    g_out = np.zeros(rec.h.shape)
    g_out[:, -1] = dz @ a.arrays["out_weight"]
    ref = batch_trace(hT_model.params, b.x, g_out)
    for n in NAMES:
        np.testing.assert_allclose(grads[n], ref[f"grad_{n}"], rtol=1e-10, atol=1e-13)


def test_float32_training_saves_and_loads_as_float64(tmp_path):
    task, batches = _lag_batches()
    model = LagClassifier("gru", task.n_inputs, 12, task.n_classes, seed=0, variant="pytorch")
    loop = Loop(model, FitConfig(lr=0.02, dtype="float32"))
    first = [loop.update(b).loss for b in batches]
    for _ in range(25):
        for b in batches:
            u = loop.update(b)
    assert u.finite and u.loss < 0.5 * np.mean(first)
    assert all(v.dtype == np.float32 for v in model.parameters().values())
    assert all(m.dtype == np.float32 for m in loop.optimizer.m.values())  # type: ignore[attr-defined]
    # the views compute in float64
    assert model.params.weight_hh.dtype == np.float64
    assert model.last is not None and model.last.grad_h.shape == (8, batches[0].x.shape[1], 12)
    from seqviz.models import load

    back = load(model.save(tmp_path / "m.npz"))
    for k, v in model.parameters().items():
        assert back.arrays[k].dtype == np.float64
        np.testing.assert_array_equal(back.arrays[k], v.astype(np.float64))


def test_dtype_option_on_the_train_commands(tmp_path, capsys):
    from seqviz.cli import main
    from seqviz.models import load

    out = tmp_path / "ff.npz"
    argv = ["train-flipflop", "--hidden", "4", "--steps", "10", "--batch", "2", "--batches", "2",
            "--epochs", "1", "--dtype", "float32", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    assert "epoch 1: mean squared error" in capsys.readouterr().out
    assert load(out).parameters()["weight_hh"].dtype == np.float64
    assert main([*argv[:-4], "--dtype", "float16", "--out", str(out)]) == 2
    assert "invalid choice: 'float16'" in capsys.readouterr().err
    for cmd in ("train", "train-flipflop", "train-tagger", "train-seq2seq"):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        assert "--dtype {float64,float32}" in capsys.readouterr().out, cmd


@pytest.mark.parametrize(
    ("cell", "layers", "bi"), [("lstm", 2, True), ("gru", 1, True), ("lstm", 2, False)]
)
def test_tagger_blas_path_equals_the_per_sentence_path(cell, layers, bi):
    """Sentences of several lengths, grouped by length on the BLAS kernels: the loss and every
    gradient equal the per-sentence stack traces (float64 to rounding, float32 to 1e-4)."""
    from seqviz.models.tagger import Tagger, batches_for
    from seqviz.tasks import tagging as task

    sents = task.training_set(12)
    assert len({len(s.words) for s in sents}) > 1
    model = Tagger.random(cell, 6, 5, layers, bi, seed=1)
    batch = next(batches_for(model, sents, 12)(1, np.random.default_rng(0)))
    loss, want = model.loss_and_grads(batch)  # hidden 6, float64: the per-sentence path
    got_loss, got = model._blas_loss_and_grads(batch)
    assert got_loss == pytest.approx(loss, rel=1e-12)
    for k, v in want.items():
        np.testing.assert_allclose(got[k], v, rtol=1e-10, atol=1e-13, err_msg=k)
    model.set_dtype("float32")
    loss32, got32 = model.loss_and_grads(batch)
    assert loss32 == pytest.approx(loss, rel=1e-5)
    for k, v in want.items():
        assert got32[k].dtype == np.float32 and _rel(got32[k], v) < 1e-4, k


@pytest.mark.parametrize(("cell", "variant"), [("lstm", "textbook"), ("gru", "pytorch")])
def test_lm_blas_path_equals_the_per_sentence_path(cell, variant):
    """The LM's chunks (truncated BPTT carrying the state) on the BLAS kernels, sentences of
    one length together, give the per-sentence gradients."""
    from seqviz.models.lm_train import LMConfig, TrainableLM

    text = ["the cat sat on the mat", "a dog ran", "the dogs are here now", "cats sit",
            "a cat is on the mat today", "the dog ran"]  # fmt: skip
    m = TrainableLM([s.split() for s in text], LMConfig(cell=cell, hidden=5, emb=4, seq_len=3,
                                                         batch=6, variant=variant))  # fmt: skip
    want, loss, n = m.gradients(m.data)
    got, got_loss, got_n = m._blas_gradients(m.data)
    assert got_n == n and got_loss == pytest.approx(loss, rel=1e-12)
    for k, v in want.items():
        np.testing.assert_allclose(got[k], v, rtol=1e-10, atol=1e-13, err_msg=k)
    m.set_dtype("float32")
    got32, loss32, _ = m.gradients(m.data)
    assert loss32 == pytest.approx(loss, rel=1e-5)
    for k, v in want.items():
        assert got32[k].dtype == np.float32 and _rel(got32[k], v) < 1e-4, k


def test_seq2seq_says_it_trains_in_float64_only(tmp_path, capsys):
    from seqviz.cli import main

    argv = ["train-seq2seq", "--hidden", "4", "--emb", "3", "--epochs", "1", "--pairs", "4",
            "--batch", "2", "--dtype", "float32", "--out", str(tmp_path / "s.npz")]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "trains in float64 only, not float32" in err and "Traceback" not in err


def test_training_bench_report_lists_every_size_and_dtype():
    from seqviz.training.bench import DTYPES, SIZES, format_report

    rows = [
        {"hidden": h, "batch": b, "lag": lag, "dtype": dt, "seqviz_per_s": 60.0 if dt == "float32"
         else 40.0, "torch_per_s": None if h == 256 else 50.0,
         "ratio": None if h == 256 else (1.2 if dt == "float32" else 0.8), "rounds": 5}
        for h, b, lag in SIZES for dt in DTYPES
    ]  # fmt: skip
    text = format_report({"task": "copy", "cell": "lstm", "clip": 1.0, "target_per_s": 50.0,
                          "rows": rows})  # fmt: skip
    lines = text.splitlines()
    assert len([ln for ln in lines if ln.strip().startswith(("32 ", "64 ", "256 "))]) == 6
    assert "    64    64   105 float32    60.0/s    50.0/s  1.20x" in lines
    assert "   256    64   105 float64    40.0/s         —      —" in lines
    assert lines[-1].endswith("TOO SLOW in float64")  # 40/s at the small size is below 50/s
