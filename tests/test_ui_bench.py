"""`seqviz bench --ui`: what it reports is what it measured (tiny settings; no timing asserted)."""

from __future__ import annotations

import json

import pytest

from seqviz.ui import bench

pytestmark = pytest.mark.slow  # runs the UI benchmark

LAUNCH = {
    "size": [160, 50], "usable": "first result, then + and its result", "load": 1.0,
    "cold": {"first_frame": 1.5, "usable": 2.0, "kernels": None},
    "warm": {k: {"median": 0.5, "max": 0.7} for k in ("first_frame", "usable", "kernels")},
    "floor": {k: {"median": 0.3, "max": 0.4} for k in ("first_frame", "usable")},
    "warm_runs": 1,
}  # fmt: skip  (launches are timed in fresh processes: tests/test_bench_launch.py)


@pytest.fixture(autouse=True)
def _no_launches(monkeypatch):
    from seqviz.ui import bench_launch

    monkeypatch.setattr(bench_launch, "bench_launch", lambda quick: LAUNCH)


def test_ui_bench_reports_the_slowest_scene_and_the_memory_run(capsys, monkeypatch):
    monkeypatch.setattr(bench, "SCENES", ("vanishing", "gates"))
    monkeypatch.setattr(bench, "FRAMES", 4)
    monkeypatch.setattr(bench, "CHANGES", 3)
    monkeypatch.setattr(bench, "QUICK_LONG_RUN_FRAMES", 7)
    assert bench.run_ui_bench(json=True, quick=True) == 0
    r = json.loads(capsys.readouterr().out)
    assert set(r["fps_by_scene"]) == {"vanishing", "gates"}
    assert r["busiest_scene"] == min(r["fps_by_scene"], key=r["fps_by_scene"].get)
    assert r["fps"] == r["fps_by_scene"][r["busiest_scene"]] > 0
    assert 0 < r["param_to_repaint_ms_median"] <= r["param_to_repaint_ms_max"]
    assert r["long_run_frames"] == 7 and r["rss_mb_after"] > 0
    assert r["fps_while_training"] > 0 and r["training_updates_per_s"] > 0  # it trained meanwhile
    assert r["fps_training_paused"] > 0
    assert r["training_fps_ratio"] > 0
    assert r["seq2seq_recompute_ms_30_words"] > 0 and r["seq2seq_recompute_cpu_ms_30_words"] > 0
    assert r["launch"] == LAUNCH


def test_ui_bench_text_report(capsys, monkeypatch):
    monkeypatch.setattr(bench, "SCENES", ("memory",))
    monkeypatch.setattr(bench, "FRAMES", 3)
    monkeypatch.setattr(bench, "CHANGES", 1)
    monkeypatch.setattr(bench, "QUICK_LONG_RUN_FRAMES", 2)
    assert bench.run_ui_bench(quick=True) == 0
    out = capsys.readouterr().out
    assert "fps  (busiest scene: memory, 160x50)" in out
    assert "parameter change -> repainted frame: median" in out
    assert "memory over 2 frames" in out
    assert "fps while training (" in out and "fps paused: " in out
    assert "cold (empty Numba cache): first frame 1.50 s, usable 2.00 s" in out
