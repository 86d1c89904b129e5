"""A computation the app waits for in place, for at most a few milliseconds, before it paints."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from textual.message import Message

from seqviz.ui.messages import ComputeFailed, TraceReady


class ComputeJob:
    """One scene's compute on a thread of its own, which the app can wait for.

    Handing a fast computation (a couple of milliseconds) to Textual's worker cost more than the
    computation: the worker starts in a later turn of the event loop, its result comes back as a
    message in another, and in between the screen painted the new parameter value alone (two
    paints per change). Waiting for the thread instead (``wait``: the UI thread sleeps, so the
    computation has the interpreter to itself) shows the result in the same turn as the change.
    A computation that takes longer than the wait (a kernel compiling, a large network) is not
    lost: the thread posts its message to the app when it is done, as the worker would.

    The thread is kept between jobs (``KeptThread``): starting one per job cost a thread's
    creation and a handshake with it, about 0.15 ms on an idle machine and up to a millisecond
    on a busy one, on the path from the key to the paint. A job that finds it busy (the one
    before is still computing) gets a thread of its own, as before.
    """

    def __init__(self, post: Callable[[Message], Any], generation: int, scene: Any,
                 values: Any, revision: int) -> None:  # fmt: skip
        self._post = post
        self._args = (generation, scene, values, revision)
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._message: Message | None = None
        self._abandoned = False  # the app stopped waiting: the thread posts the message

    def start(self) -> None:
        if not KEPT.offer(self._run):
            threading.Thread(target=self._run, name="seqviz-compute", daemon=True).start()

    def _run(self, idle: Callable[[], None] | None = None) -> None:
        """Compute and hand the message over; ``idle`` (the kept thread's) is called before the
        app can see the message, so the app's next job finds the thread free."""
        generation, scene, values, revision = self._args
        start = time.thread_time()
        message: Message
        try:
            result = scene.compute(values)
            cost = (time.thread_time() - start, revision)
            message = TraceReady(generation, scene.name, values, result, cost=cost)
        except Exception as exc:  # a bad combination must show as text, never crash the app
            message = ComputeFailed.of(generation, exc)
        with self._lock:
            self._message = message
            post = self._abandoned
        if idle is not None:
            idle()
        self._done.set()
        if post:
            self._post(message)

    def wait(self, timeout: float) -> Message | None:
        """The job's message if it is done within ``timeout`` seconds, else None (the thread
        then posts it when it is done)."""
        self._done.wait(timeout)
        with self._lock:
            if self._message is None:
                self._abandoned = True
            return self._message


Job = Callable[[Callable[[], None]], None]  # a job, given the call that frees the thread


class KeptThread:
    """One thread, started with the first job and kept, that runs one job at a time; ``stop``
    ends it after its job (the app's quit: no thread of seqviz is left behind)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._busy = False
        self._thread: threading.Thread | None = None

    def offer(self, job: Job) -> bool:
        """Run ``job(idle)`` on the kept thread if it is free (True), else leave it (False).
        The job calls ``idle`` once it no longer needs the thread."""
        with self._lock:
            if self._busy:
                return False
            self._busy = True
            if self._thread is None or not self._thread.is_alive():  # none yet, or it died
                self._jobs = queue.SimpleQueue()  # its own: a stopped thread may still take one
                self._thread = threading.Thread(target=self._serve, args=(self._jobs,),
                                                name="seqviz-compute", daemon=True)  # fmt: skip
                self._thread.start()
            self._jobs.put(job)
        return True

    def stop(self) -> None:
        """End the thread once its job (if any) is done; the next offer starts a new one."""
        with self._lock:
            if self._thread is not None:
                self._jobs.put(None)
                self._thread = None

    @property
    def thread(self) -> threading.Thread | None:
        return self._thread

    def _serve(self, jobs: queue.SimpleQueue[Job | None]) -> None:
        while (job := jobs.get()) is not None:
            freed = False

            def idle() -> None:
                nonlocal freed
                with self._lock:
                    if not freed:  # once: a later job may hold the thread already
                        freed, self._busy = True, False

            try:
                job(idle)
            finally:
                idle()  # also if the job raised past its own handler


KEPT = KeptThread()
