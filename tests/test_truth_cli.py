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


def test_run_says_kernels_compile_when_silent_on_a_cold_cache(capsys, monkeypatch):
    import seqviz.commands.run as run_module

    monkeypatch.setattr(run_module, "_kernels_loaded", lambda: False)  # as in a fresh process
    monkeypatch.setattr(run_module, "NOTICE_AFTER", 0.0)  # this process compiled long ago
    assert main(["run", "memory", "--json"]) == 0
    out, err = capsys.readouterr()
    assert "compiling kernels (first run only" in err and "compiling" not in out
    monkeypatch.setattr(run_module, "NOTICE_AFTER", 30.0)  # a fast (warm) run says nothing
    assert main(["run", "memory"]) == 0
    assert "compiling" not in capsys.readouterr().err


@pytest.mark.slow
def test_run_in_a_fresh_process_on_a_cold_cache(tmp_path):
    """A real cold cache (NUMBA_CACHE_DIR empty): the first `seqviz run` says it compiles."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "seqviz", "run", "memory", "--steps", "10"],
                          capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
    assert proc.returncode == 0 and "compiling kernels" in proc.stderr


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
