"""The launch timing of `seqviz bench --ui`: a real launch in a pseudo-terminal, probe to usable."""

from __future__ import annotations

import pytest

from seqviz.bench.launch import cpu_times, format_launch, launch_once, steal_percent


def test_the_floor_app_is_timed_to_its_first_frame_and_a_handled_key():
    times = launch_once(None, floor=True, timeout=120)
    assert times["first_frame"] is not None and times["usable"] is not None
    assert 0 < times["first_frame"] <= times["usable"]


@pytest.mark.slow
def test_seqviz_is_timed_to_a_usable_frame_and_its_kernels(tmp_path):
    # The environment's cache (warm in a test run that traced anything): load, not compile.
    times = launch_once(None, timeout=600)
    assert 0 < times["first_frame"] <= times["usable"]
    assert times["kernels"] is not None
    # An empty cache: usable on the reference; not waiting for the compile keeps this cheap.
    cold = launch_once(str(tmp_path), wait_kernels=False, timeout=600)
    assert 0 < cold["first_frame"] <= cold["usable"] and cold["kernels"] is None


def test_the_report_names_every_number():
    result = {
        "size": [160, 50], "usable": "first result, then + and its result", "load": 1.0,
        "cold": {"first_frame": 1.5, "usable": 2.0, "kernels": 30.0},
        "warm": {k: {"median": 0.5, "max": 0.7} for k in ("first_frame", "usable", "kernels")},
        "floor": {k: {"median": 0.3, "max": 0.4} for k in ("first_frame", "usable")},
        "warm_runs": 3,
    }  # fmt: skip
    text = format_launch(result)
    for shown in ("1.50 s", "2.00 s", "30.00 s", "0.50 s", "0.70 s", "0.30 s", "median of 3"):
        assert shown in text
    assert "stolen" not in text  # no reading: nothing said
    assert "; 12.5% of the CPU time stolen by the host:" in format_launch(
        dict(result, steal_percent=12.5)
    )


def _stat(tmp_path, name, line):
    path = tmp_path / name
    path.write_text(line + "\ncpu0 1 2 3 4 5 6 7 8 0 0\n")
    return str(path)


def test_the_host_s_steal_is_the_eighth_column_of_the_cpu_line_over_all_eight(tmp_path):
    # user nice system idle iowait irq softirq steal guest guest_nice (guest is inside user)
    before = cpu_times(_stat(tmp_path, "a", "cpu  100 0 50 800 10 0 0 40 30 0"))
    after = cpu_times(_stat(tmp_path, "b", "cpu  160 0 60 900 10 0 0 70 50 0"))
    assert before == (40, 1000) and after == (70, 1200)
    assert steal_percent(before, after) == 15.0  # 30 of the 200 ticks between them
    assert steal_percent(after, after) is None  # no time passed
    assert steal_percent(None, after) is None


@pytest.mark.parametrize("line", ["", "intr 1 2 3", "cpu  1 2 3", "cpu  1 2 3 4 5 6 7 x 9"])
def test_a_missing_or_strange_proc_stat_gives_no_reading(tmp_path, line):
    assert cpu_times(_stat(tmp_path, "s", line)) is None
    assert cpu_times(str(tmp_path / "absent")) is None


@pytest.mark.slow
def test_q_right_after_the_first_frame_ends_the_app_within_seconds():
    # A lecturer who quits at once: q lands while the kernels still load in the background.
    # Measured at load 6-7 (48 launches): 0.6-1.5 s from q to the end; 5 s is a generous bound.
    for _ in range(3):
        times = launch_once(None, quit_at_first_frame=True, timeout=300)
        assert times["first_frame"] is not None and times["usable"] is None
        assert times["quit"] is not None and times["quit"] < 5.0, times


@pytest.mark.slow
def test_the_harness_reads_the_screen_while_q_ends_the_app():
    # The app's last frame and exit sequences (~20 KB) fill an unread pty: the harness once
    # stopped reading at q, the app's write blocked, and 4 of 8 launches needed a terminate.
    for _ in range(3):
        times = launch_once(None, wait_kernels=False, timeout=300)
        assert times["quit"] is not None and times["quit"] < 5.0, times
