"""StreamControl: how a streaming compute (a generator run by the app's worker) is steered.

A scene may declare ``Scene.stream(values, control)``: a generator of results for live scenes
(training). The app's worker iterates it and shows each result; the app steers it through the
control from the main thread: pause, resume, single steps, new view-only values (parameters with
``recompute=False``, e.g. a learning rate applied from the next update), cancel. The generator
asks ``control.take(n)`` before each chunk of work and stops when it returns 0. Its results say
``done=True`` on the last one; the app treats that one as "ready". The worker notes each result
it hands on (``delivered``), so that "the stream is idle and its last result is the one on
screen" can be waited for exactly (``waiting`` and ``last``), however slow the machine.
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
        self._waiting = False
        self._last: Any = None

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

    @property
    def waiting(self) -> bool:
        """True while the stream is blocked in ``take`` (paused, no steps granted)."""
        with self._cond:
            return self._waiting

    @property
    def last(self) -> Any:
        """The last result the worker handed on (see ``delivered``)."""
        with self._cond:
            return self._last

    def delivered(self, result: Any) -> None:
        """Called by the worker for each result it passes to the app, before passing it."""
        with self._cond:
            self._last = result

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

    def _grant(self, want: int) -> int | None:
        """(Lock held.) Units of work allowed now; 0 = stop; None = none yet (paused)."""
        if self._cancelled or (self._watch is not None and self._watch()):
            self._cancelled = True
            return 0
        if self._running:
            return want
        if self._credit > 0:
            n = min(want, self._credit)
            self._credit -= n
            return n
        return None

    def take(self, want: int) -> int:
        """Block until work is allowed; how many units (<= want) to do now, 0 = stop."""
        with self._cond:
            while (n := self._grant(want)) is None:
                self._waiting = True
                try:
                    self._cond.wait(POLL)
                finally:
                    self._waiting = False
            return n

    def try_take(self, want: int) -> int:
        """Like ``take`` but never blocks: 0 also when paused without granted steps."""
        with self._cond:
            n = self._grant(want)
            return 0 if n is None else n
