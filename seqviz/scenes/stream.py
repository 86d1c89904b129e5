"""StreamControl: how a streaming compute (a generator run by the app's worker) is steered.

A scene may declare ``Scene.stream(values, control)``: a generator of results for live scenes
(training). The app's worker iterates it and shows each result; the app steers it through the
control from the main thread: pause, resume, single steps, new view-only values (parameters with
``recompute=False``, e.g. a learning rate applied from the next update), cancel. The generator
asks ``control.take(n)`` before each chunk of work and stops when it returns 0. Its results say
``done=True`` on the last one; the app treats that one as "ready".
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

POLL = 0.1  # seconds between checks of the worker's cancel flag while paused


class StreamControl:
    """Thread-safe switches between the app (main thread) and a streaming compute (worker)."""

    def __init__(self, values: Any, *, running: bool = True) -> None:
        self._cond = threading.Condition()
        self._values = values
        self._running = running
        self._credit = 0
        self._cancelled = False
        self._watch: Callable[[], bool] | None = None

    @property
    def values(self) -> Any:
        """The latest parameter values (view-only changes arrive here without a restart)."""
        with self._cond:
            return self._values

    def set_values(self, values: Any) -> None:
        with self._cond:
            self._values = values
            self._cond.notify_all()

    @property
    def running(self) -> bool:
        with self._cond:
            return self._running

    @property
    def cancelled(self) -> bool:
        with self._cond:
            return self._cancelled or (self._watch is not None and self._watch())

    def watch(self, is_cancelled: Callable[[], bool]) -> None:
        """Also stop when ``is_cancelled()`` turns true (the worker's own cancel flag)."""
        with self._cond:
            self._watch = is_cancelled

    def pause(self) -> None:
        with self._cond:
            self._running = False
            self._credit = 0

    def resume(self) -> None:
        with self._cond:
            self._running = True
            self._cond.notify_all()

    def step(self, n: int = 1) -> None:
        """Allow ``n`` more units of work while paused (one training update each)."""
        with self._cond:
            self._running = False
            self._credit += max(0, int(n))
            self._cond.notify_all()

    def cancel(self) -> None:
        with self._cond:
            self._cancelled = True
            self._cond.notify_all()

    def take(self, want: int) -> int:
        """Block until work is allowed; how many units (<= want) to do now, 0 = stop."""
        with self._cond:
            while True:
                if self._cancelled or (self._watch is not None and self._watch()):
                    self._cancelled = True
                    return 0
                if self._running:
                    return want
                if self._credit > 0:
                    n = min(want, self._credit)
                    self._credit -= n
                    return n
                self._cond.wait(POLL)
