"""The app's side of the kernel warm-up: start it, say on the status line what it does."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text

from seqviz.core import backend
from seqviz.scenes import warm

FIRST_RESULT = "computing the first scene (NumPy reference while the kernels get ready)…"
SHOW_READY_FOR = 6.0  # seconds the "switched" message stays on the status line
START_AFTER = 1.0  # seconds after the first frame


def _waits_line(what: str) -> str:
    doing = {"checking": "looking for them", "compiling": "compiling in the background",
             "loading": "loading them"}  # fmt: skip
    return f"{what} waits for the compiled kernels ({doing.get(backend.phase()[0], 'soon')})…"


class KernelStatus:
    """Owned by the app when it starts without waiting for the compiler (``warm_kernels``)."""

    def __init__(self, app: Any) -> None:
        self._app = app
        self._seen: tuple[int, bool] | None = None
        self._ready_at: float | None = None
        self._started = False
        warm.prepare()  # before the first computation: it runs on the reference

    def first_paint(self) -> None:
        """The first result is on screen: load or compile the kernels START_AFTER seconds later
        (earlier, importing numba and loading would compete for the interpreter with the first
        frame and with the first key pressed after it)."""
        if not self._started:
            self._started = True
            self._app.set_timer(START_AFTER, warm.start)

    def poll(self) -> bool:
        """Called by a timer: refresh the status line when the warm-up moved on. True once
        there is nothing more to show (the timer can stop). A computation that waits for the
        compiled kernels (the chaos map's Lyapunov grid) starts the warm-up at once: its result
        is the first paint, which would otherwise never come."""
        if not self._started and backend.waiting():
            self._started = True
            warm.start()
        if backend.phase()[0] == "ready" and self._ready_at is None:
            self._ready_at = time.monotonic()
        state = (backend.revision(), self._show_ready())
        if state != self._seen:
            self._seen = state
            self._app.refresh_kernel_status()
        return self._ready_at is not None and not state[1]

    def _show_ready(self) -> bool:
        return self._ready_at is not None and time.monotonic() - self._ready_at <= SHOW_READY_FOR

    def notice(self) -> str:
        """The line shown above the empty view before the first result."""
        waits = backend.waiting()
        return _waits_line(waits[0]) if waits else FIRST_RESULT

    def text(self) -> Text | None:
        """The status line's part about the kernels (None once the switch is old news)."""
        name, message = backend.phase()
        if name == "numba" or not message:
            return None
        if name == "ready":
            return Text(message, style="bold green") if self._show_ready() else None
        waits = backend.waiting()
        return Text(_waits_line(waits[0]) if waits else message, style="bold yellow")

    def stop(self) -> None:
        warm.stop()
