"""Headless commands say what they assume or do: the nn.RNN nonlinearity, a cold kernel cache,
bench --quick without torch, train on a corpus smaller than one batch."""

from __future__ import annotations

import numpy as np
import pytest

from seqviz.cli import main


def test_nn_rnn_state_dict_says_which_nonlinearity_was_assumed(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    from seqviz.core import Params
    from seqviz.core.params import AssumedNonlinearity

    rnn = torch.nn.RNN(3, 4, nonlinearity="relu")
    path = tmp_path / "relu_rnn.pt"
    torch.save(rnn.state_dict(), path)
    with pytest.warns(AssumedNonlinearity, match="assumed tanh.*nonlinearity='relu'"):
        assert Params.load(path).nonlinearity == "tanh"
    np.save(tmp_path / "x.npy", np.ones((5, 3)))
    argv = ["export", "--weights", str(path), "--input", str(tmp_path / "x.npy")]
    assert main([*argv, "--out", str(tmp_path / "a.npz")]) == 0
    err = capsys.readouterr().err
    assert "does not record its nonlinearity; assumed tanh" in err and "--nonlinearity relu" in err
    assert main([*argv, "--nonlinearity", "relu", "--out", str(tmp_path / "b.npz")]) == 0
    assert "assumed" not in capsys.readouterr().err


def test_run_says_kernels_compile_only_when_numba_compiles(capsys, monkeypatch):
    """A run on a warm cache (the kernels load, nothing compiles) says nothing about compiling;
    it did on every run that took more than a second. A run that compiles says so once."""
    import numba

    import seqviz.commands.run as run_module

    assert main(["run", "memory", "--steps", "10", "--json"]) == 0  # the kernels are loaded now
    capsys.readouterr()
    assert main(["run", "memory", "--steps", "10"]) == 0
    assert "compiling" not in capsys.readouterr().err

    def compiling_run(args):  # a new kernel no cache holds: Numba compiles it here
        kernel = numba.njit(lambda x: x + 1)
        return 0 if kernel(1) > 0 and kernel(2) > 0 else 1

    assert run_module._with_compile_notice(compiling_run)(None) == 0
    out, err = capsys.readouterr()
    assert err.count("compiling kernels (first run only") == 1 and "compiling" not in out


@pytest.mark.slow
def test_run_in_a_fresh_process_on_a_cold_cache_then_a_warm_one(tmp_path):
    """A real cold cache (NUMBA_CACHE_DIR empty): the first `seqviz run` says it compiles; the
    second, on the cache the first filled, loads the kernels and does not (it said "compiling"
    on every run longer than a second)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    argv = [sys.executable, "-m", "seqviz", "run", "memory", "--steps", "10"]
    cold = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    assert cold.returncode == 0 and "compiling kernels" in cold.stderr
    warm = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    assert warm.returncode == 0 and "compiling" not in warm.stderr, warm.stderr
    assert warm.stdout == cold.stdout


@pytest.mark.parametrize("torch_ms", [None, 2.5], ids=["without-torch", "with-torch"])
def test_bench_table_columns_align_with_or_without_torch(torch_ms):
    from seqviz.bench import traces as bench

    rows = [bench.Row("rnn", 64, 100, 0.44, 3.2, torch_ms, torch_ms, torch_ms),
            bench.Row("lstm", 256, 1000, 519.49, 1438.9, torch_ms, torch_ms, torch_ms)]  # fmt: skip
    lines = bench.format_rows(rows).splitlines()
    table = lines[1:4]  # header and both rows
    assert len({len(line) for line in table}) == 1
    assert len({tuple(i for i, ch in enumerate(line) if ch == "|") for line in table}) == 1
    if torch_ms is None:
        assert "PyTorch is not installed" in "\n".join(lines) and "fused" not in lines[1]


def test_run_training_names_the_final_and_the_running_accuracy():
    """ "LSTM 97.7% … first ≥90%: never" read as a contradiction: 97.7% was the held-out accuracy
    after training, "never" was about the running accuracy on the training batches. Both are
    shown, each under its own name."""
    from seqviz.commands.run_training import format_table

    data = dict(task="copy", lag=20, steps=300, batch=32, hidden=32, optimizer="adam", lr=0.01,
                clip=1.0, seed=0, chance=0.125, seconds=3.0, cells=[dict(
                    cell="lstm", accuracy=0.977, running_accuracy=0.85, loss_first=2.0,
                    loss_last=0.1, loss_min=0.05, loss_curve=[2, 1, 0.5, 0.1], first_reached=None,
                    first_nan=None, first_spike=None)])  # fmt: skip
    lines = format_table(data).splitlines()
    header, row = lines[1], lines[2]
    assert row.split()[:3] == ["LSTM", "97.7%", "85.0%"] and row.endswith("never")
    assert header.split()[1:3] == ["held-out", "running"]
    assert "running first ≥90%" in header
    notes = "\n".join(lines[3:])
    assert "held-out: final accuracy" in notes and "running: accuracy on the last 50" in notes
