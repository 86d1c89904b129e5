"""The benchmark measures what it claims: its PyTorch step loop computes the same dL/dh_t."""

from __future__ import annotations

import json

import numpy as np
import pytest

from seqviz.bench import traces as bench
from seqviz.core import Params, trace


def test_measure_and_format_small():
    rows = bench.measure(cells=("gru",), sizes=((4, 5),))
    assert len(rows) == 1 and rows[0].seqviz_ms > 0 and rows[0].numpy_ms > 0
    text = bench.format_rows(rows)
    assert "gru" in text and "x numpy" in text
    ratios = rows[0].ratios()
    assert ratios["numpy"] == pytest.approx(rows[0].numpy_ms / rows[0].seqviz_ms)


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_torch_step_loop_matches_seqviz(cell):
    pytest.importorskip("torch")
    p = Params.random(cell, 3, 4, seed=0, variant="pytorch" if cell == "gru" else "textbook")
    x = np.random.default_rng(0).normal(size=(6, 3))
    loop, cell_loop, fused = bench._torch_runners(cell, p, x)
    want = trace(p, x).grad_h
    for run in (loop, cell_loop):
        grads = np.array([g.numpy() for g in run()])
        np.testing.assert_allclose(grads, want, rtol=1e-10, atol=1e-12)
    fused()


def test_bench_main_json(capsys, monkeypatch):
    monkeypatch.setattr(bench, "QUICK_SIZES", ((4, 5),))
    monkeypatch.setattr(bench, "CELLS", ("rnn",))
    assert bench.main(json_output=True, quick=True) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(r["cell"], r["d"], r["T"]) for r in data["rows"]] == [("rnn", 4, 5)]
    assert set(data["rows"][0]["ratios"]) == {"numpy", "torch_loop", "torch_cell", "torch_fused"}
    assert data["environment"]["seqviz_threads"] == 1


def test_bench_decoding_reports_a_width_8_step_side_by_side(capsys):
    from seqviz.cli import main

    assert main(["bench", "--decoding", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["width"] == 8 and r["live_hypotheses"] == 8
    assert r["candidates_per_step"] == 8 * r["vocab"]
    for key in ("engine_step_ms", "seqviz_model_step_ms", "numpy_model_step_ms"):
        assert 0 < r[key] < 1000
    assert r["numpy_model_step_ratio"] == pytest.approx(
        r["numpy_model_step_ms"] / r["seqviz_model_step_ms"]
    )


def test_seqviz_bench_runs_the_trace_benchmark_module_that_exists(monkeypatch):
    """`seqviz bench` starts a fresh interpreter on the benchmark module by name: that name
    must be the module in seqviz.bench, and it must run as a script."""
    import subprocess
    import sys

    from seqviz.cli import main

    started = []
    monkeypatch.setattr(subprocess, "run", lambda argv, **kw: started.append(argv)
                        or subprocess.CompletedProcess(argv, 0))  # fmt: skip
    assert main(["bench", "--quick"]) == 0
    argv = started[0]
    assert argv[1:3] == ["-m", "seqviz.bench.traces"] and "--quick" in argv
    monkeypatch.undo()
    out = subprocess.run([sys.executable, "-m", "seqviz.bench.traces", "--help"],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert out.returncode == 0 and "usage: python -m seqviz.bench.traces" in out.stdout
