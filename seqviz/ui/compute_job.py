"""A computation the app waits for in place, for at most a few milliseconds, before it paints."""

from __future__ import annotations

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
        threading.Thread(target=self._run, name="seqviz-compute", daemon=True).start()

    def _run(self) -> None:
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
