"""The top-level demos/ folder: its example scripts run, its template demo passes its checks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from seqviz.lecture import load_demo
from seqviz.lecture.runner import check_demo

DEMOS = Path(__file__).resolve().parents[1] / "demos"


def run_example(name: str) -> str:
    done = subprocess.run([sys.executable, str(DEMOS / name)], capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_notebook_example_runs_and_finds_the_number_units():
    out = run_example("lstm_in_a_notebook.py")
    assert "gates (50, 4, 16)" in out
    assert "saved and reloaded: True" in out
    assert "units that still remember the subject's number" in out
    assert "'are': 0.963" in out


@pytest.mark.slow
def test_pytorch_comparison_agrees():
    pytest.importorskip("torch")
    out = run_example("compare_with_pytorch.py")
    assert out.strip().endswith("agree")
    assert [line.split()[0] for line in out.splitlines()[1:4]] == ["rnn", "lstm", "gru"]


@pytest.mark.slow
async def test_template_demo_checks_out_at_every_lecture_size():
    from seqviz.lecture.runner import SIZES

    demo = load_demo(DEMOS / "five_minute_tour.toml")
    assert len(demo) == 4 and {s.scene for s in demo.steps} >= {"vanishing", "decoding"}
    assert SIZES == ((100, 30), (120, 40), (160, 50))
    assert await check_demo(demo, SIZES) == []


def test_readme_lists_every_shipped_demo():
    from seqviz.lecture import demo_names

    text = (DEMOS / "README.md").read_text()
    for name in demo_names():
        assert f"`{name}`" in text
