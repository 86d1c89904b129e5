"""ComputeJob: a computation the app waits for in place, or gets later as a message."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from seqviz.ui.compute_job import ComputeJob
from seqviz.ui.messages import ComputeFailed, TraceReady


def _scene(compute):
    return SimpleNamespace(name="fake", compute=compute)


def test_a_job_done_within_the_wait_is_handed_back_and_not_posted():
    posted = []
    job = ComputeJob(posted.append, 7, _scene(lambda values: values * 2), 21, revision=3)
    job.start()
    message = job.wait(10.0)
    assert isinstance(message, TraceReady)
    assert (message.generation, message.scene_name, message.values, message.result) == (
        7, "fake", 21, 42)  # fmt: skip
    seconds, revision = message.cost
    assert 0 <= seconds < 10.0 and revision == 3
    assert posted == []  # the app has it: posting it too would show it twice


def _slow_job():
    """(job, release, posted, done): a job whose compute waits for ``release``, then returns
    "late"; what it posts goes to ``posted``, and ``done`` is set then."""
    release, done = threading.Event(), threading.Event()
    posted: list = []

    def slow(values):
        release.wait(10.0)
        return "late"

    job = ComputeJob(lambda m: (posted.append(m), done.set()), 1, _scene(slow), None, revision=0)
    return job, release, posted, done


def test_a_job_slower_than_the_wait_posts_its_result_once_when_done():
    job, release, posted, done = _slow_job()
    job.start()
    assert job.wait(0.01) is None  # not done: the app goes on without it
    release.set()
    assert done.wait(10.0)
    assert len(posted) == 1 and isinstance(posted[0], TraceReady) and posted[0].result == "late"


def test_its_cost_is_cpu_time_not_the_wait_for_a_core():
    """A compute that waits (here: sleeps 50 ms) costs what it computed: on a busy machine a
    3 ms compute took 7 ms of wall time, and the scene flipped to the slower worker path."""
    import time

    job = ComputeJob(lambda m: None, 3, _scene(lambda values: time.sleep(0.05)), None, revision=0)
    job.start()
    message = job.wait(10.0)
    assert isinstance(message, TraceReady)
    seconds, _ = message.cost
    assert 0 <= seconds < 0.025


def test_an_error_comes_back_as_one_sentence_not_an_exception():
    def bad(values):
        raise ValueError("rho must be positive")

    job = ComputeJob(lambda m: None, 2, _scene(bad), None, revision=0)
    job.start()
    message = job.wait(10.0)
    assert isinstance(message, ComputeFailed) and message.generation == 2
    assert message.error == "rho must be positive"  # bad input: its own sentence, no class name


def test_a_fault_keeps_its_class_name():
    # Not bad input but a bug: the status line says which exception, so it can be reported.
    def broken(values):
        raise ZeroDivisionError("division by zero")

    def silent(values):
        raise KeyError()

    for compute, shown in ((broken, "ZeroDivisionError: division by zero"), (silent, "KeyError")):
        job = ComputeJob(lambda m: None, 3, _scene(compute), None, revision=0)
        job.start()
        message = job.wait(10.0)
        assert isinstance(message, ComputeFailed) and message.error == shown


def test_jobs_one_after_another_run_on_one_kept_thread():
    # A thread started per job cost its creation and a handshake on the key-to-paint path.
    seen = []

    def where(values):
        seen.append(threading.current_thread())  # kept alive here: no ident reused
        return values

    for generation in range(3):
        job = ComputeJob(lambda m: None, generation, _scene(where), generation, revision=0)
        job.start()
        message = job.wait(10.0)
        assert isinstance(message, TraceReady) and message.result == generation
    assert all(t is seen[0] for t in seen) and seen[0] is not threading.current_thread()


def test_a_job_started_while_the_kept_thread_computes_runs_beside_it():
    first, release, posted, done = _slow_job()
    first.start()
    assert first.wait(0.01) is None  # still computing: it posts its message later
    second = ComputeJob(lambda m: None, 2, _scene(lambda values: "quick"), None, revision=0)
    second.start()
    message = second.wait(10.0)  # not queued behind the slow one
    assert isinstance(message, TraceReady) and message.result == "quick"
    release.set()
    assert done.wait(10.0)
    assert [m.result for m in posted] == ["late"]
    third = ComputeJob(lambda m: None, 3, _scene(lambda values: "again"), None, revision=0)
    third.start()  # the kept thread is free again
    assert third.wait(10.0).result == "again"


def test_a_stopped_kept_thread_ends_after_its_job_and_a_new_one_starts():
    from seqviz.ui.compute_job import KEPT

    release = threading.Event()

    def slow(values):
        release.wait(10.0)
        return "done"

    job = ComputeJob(lambda m: None, 1, _scene(slow), None, revision=0)
    job.start()
    thread = KEPT.thread
    assert thread is not None and thread.is_alive()
    KEPT.stop()  # the app quits while it computes
    release.set()
    assert job.wait(10.0).result == "done"  # its job finishes
    thread.join(10.0)
    assert not thread.is_alive()
    again = ComputeJob(lambda m: None, 2, _scene(lambda values: "new"), None, revision=0)
    again.start()
    assert again.wait(10.0).result == "new" and KEPT.thread not in (None, thread)
    KEPT.stop()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_kept_thread_ended_by_an_escaping_exception_is_replaced():
    # An exception the job does not catch (KeyboardInterrupt) ends the kept thread; the next
    # job must not be handed to its queue, where nobody would take it.
    from seqviz.ui.compute_job import KEPT

    KEPT.stop()

    def escape(idle):
        raise KeyboardInterrupt

    assert KEPT.offer(escape)
    dead = KEPT.thread
    assert dead is not None
    dead.join(10.0)
    assert not dead.is_alive()
    job = ComputeJob(lambda m: None, 4, _scene(lambda values: "after"), None, revision=0)
    job.start()
    assert job.wait(10.0).result == "after" and KEPT.thread is not dead
    KEPT.stop()
