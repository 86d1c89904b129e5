"""Live training in chunks: in-process and in a child process give the same curves; the child
process never outlives its run; the stream control's rest state."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time

import numpy as np
import pytest

from seqviz.scenes.stream import StreamControl
from seqviz.training.live import Curves, LocalTrainer
from seqviz.training.race import Race, RaceConfig
from seqviz.training.remote import RemoteTrainer, TrainerGone

CONFIG = RaceConfig(task="copy", lag=3, cells=("rnn", "lstm"), hidden=8, seed=3)
REQUESTS = [(0, 0.01, 1.0), (3, 0.01, 1.0), (4, 0.05, 0.0), (2, 0.05, 0.5)]


def _chunks(trainer):
    out = []
    try:
        for n, lr, clip in REQUESTS:
            trainer.send(n, lr, clip)
            out.append(trainer.receive())
    finally:
        trainer.close()
    return out


def test_chunks_add_up_to_the_race_and_the_child_process_trains_the_same():
    from seqviz.core import backend

    # The child computes with the compiled kernels, so this process must too: an app test
    # before this one can leave the process on the NumPy reference (equal only to ~1e-12)
    # until the app's kernel warm-up has finished.
    with backend.numba_only():
        _chunks_equal_the_race_and_the_child()


def _chunks_equal_the_race_and_the_child():
    local = _chunks(LocalTrainer(CONFIG, seconds=600))  # no chunk cut short by its budget
    assert [c.step for c in local] == [0, 3, 7, 9]
    assert (local[2].lr, local[2].clip) == (0.05, 0.0)
    curves = Curves()
    for chunk in local:
        curves.add(chunk)
    race = Race(CONFIG)  # the same updates in one go, with the same rate changes
    for n, lr, clip in REQUESTS:
        race.set_rates(lr, clip)
        for _ in range(n):
            race.update()
    for cell, run in race.runs.items():
        np.testing.assert_array_equal(curves.view(cell, "loss"), run.losses)
        np.testing.assert_array_equal(curves.view(cell, "accuracy"), run.running)
        np.testing.assert_array_equal(curves.view(cell, "clipped"), run.clipped)
    assert not curves.view("rnn", "loss").flags.writeable
    remote = _chunks(RemoteTrainer(CONFIG, seconds=600))
    for a, b in zip(local, remote, strict=True):
        assert a.step == b.step
        for ca, cb in zip(a.cells, b.cells, strict=True):
            np.testing.assert_array_equal(ca.loss, cb.loss)
            np.testing.assert_array_equal(ca.probs, cb.probs)
            np.testing.assert_array_equal(ca.grad_back, cb.grad_back)


def _children() -> list[int]:
    return [p.pid for p in multiprocessing.active_children() if p.name == "seqviz-trainer"]


def test_the_child_process_ends_with_close_and_a_killed_one_is_reported():
    trainer = RemoteTrainer(CONFIG)
    trainer.send(0, 0.01, 1.0)
    assert trainer.receive().step == 0
    pid = trainer.process.pid
    assert pid in _children()
    trainer.close()
    trainer.close()  # twice is fine
    assert pid not in _children()

    # Killed while a chunk is on its way: `receive` reports it. The child is stopped first, so
    # it cannot answer the request; killed before it was asked, `send` would report it instead
    # (below), and which one did depended on how soon the kill landed.
    trainer = RemoteTrainer(CONFIG)
    try:
        trainer.send(0, 0.01, 1.0)
        trainer.receive()
        os.kill(trainer.process.pid, signal.SIGSTOP)
        _wait_until_stopped(trainer.process.pid)
        trainer.send(1, 0.01, 1.0)
        os.kill(trainer.process.pid, signal.SIGKILL)
        with pytest.raises(
            TrainerGone, match=r"training process ended unexpectedly \(exit code -9"
        ):
            trainer.receive()
    finally:
        trainer.close()
    # Killed between chunks: once it has ended, asking for the next chunk reports it.
    trainer = RemoteTrainer(CONFIG)
    try:
        trainer.send(0, 0.01, 1.0)
        trainer.receive()
        os.kill(trainer.process.pid, signal.SIGKILL)
        trainer.process.join()
        with pytest.raises(
            TrainerGone, match=r"training process ended unexpectedly \(exit code -9"
        ):
            trainer.send(1, 0.01, 1.0)
    finally:
        trainer.close()
    assert not _children()


def _wait_until_stopped(pid: int) -> None:
    """Return once the process is in the stopped state (SIGSTOP has taken effect)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        if state in ("T", "t"):
            return
        time.sleep(0.001)
    raise AssertionError(f"process {pid} did not stop")


def test_receive_gives_up_when_cancelled():
    trainer = RemoteTrainer(CONFIG)
    try:
        trainer.send(0, 0.01, 1.0)
        trainer.receive()
        trainer.send(10**6, 0.01, 1.0)  # long, but the chunk ends after CHUNK_SECONDS anyway
        assert trainer.receive(lambda: True) is None
    finally:
        start = time.perf_counter()
        trainer.close()
        assert time.perf_counter() - start < 10
    assert not _children()


def test_stream_control_rests_only_while_paused_without_steps():
    control = StreamControl(None)
    assert control.try_take(5) == 5 and not control.waiting
    control.pause()
    assert control.try_take(5) == 0
    taken: list[int] = []
    worker = threading.Thread(target=lambda: taken.append(control.take(5)))
    worker.start()
    deadline = time.monotonic() + 10
    while not control.waiting and time.monotonic() < deadline:
        time.sleep(0.01)
    assert control.waiting and not taken
    control.step(2)
    worker.join(10)
    assert taken == [2] and not control.waiting
    control.step(1)
    assert control.try_take(5) == 1 and control.try_take(5) == 0
    control.delivered("r")
    assert control.last == "r"
    control.cancel()
    assert control.take(5) == 0 and control.try_take(5) == 0


SCRIPT_WITHOUT_GUARD = """
import sys
from seqviz.training.race import RaceConfig
from seqviz.training.remote import RemoteTrainer

with open(sys.argv[1], "a") as marker:  # at import: a second run of this script shows here
    marker.write("ran\\n")
trainer = RemoteTrainer(RaceConfig(task="copy", lag=3, cells=("rnn",), hidden=8, seed=3))
try:
    trainer.send(1, 0.01, 1.0)
    print("step", trainer.receive().step)
finally:
    trainer.close()
"""


@pytest.mark.slow
def test_a_main_script_without_a_guard_is_not_run_again_in_the_trainer(tmp_path):
    # multiprocessing runs the parent's main script again in a forkserver child: one without
    # an `if __name__ == "__main__"` guard (a wrapper around seqviz's cli) then ran a second
    # benchmark in the trainer's place, and the parent waited for a chunk forever.
    import subprocess
    import sys

    script, marker = tmp_path / "launch.py", tmp_path / "marker"
    script.write_text(SCRIPT_WITHOUT_GUARD)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, str(script), str(marker)], capture_output=True,
                          text=True, timeout=180, env=env, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["step", "1"]
    assert marker.read_text() == "ran\n"
