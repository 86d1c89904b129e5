"""The app's side of the kernel warm-up: start it, say on the status line what it does."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text

from seqviz.core import backend
from seqviz.scenes import warm

FIRST_RESULT = "computing the first scene (NumPy reference while the kernels get ready)…"
SHOW_READY_FOR = 6.0  # seconds the "switched" message stays on the status line


class KernelStatus:
    """Owned by the app when it starts without waiting for the compiler (``warm_kernels``)."""

    def __init__(self, app: Any) -> None:
        self._app = app
        self._seen: tuple[int, bool] | None = None
        self._ready_at: float | None = None
        self._started = False
        warm.prepare()  # before the first computation: it runs on the reference

    def first_paint(self) -> None:
        """The first result is on screen: now load or compile the kernels (earlier, loading
        them would compete with the first frame for the interpreter)."""
        if not self._started:
            self._started = True
            warm.start()

    def poll(self) -> bool:
        """Called by a timer: refresh the status line when the warm-up moved on. True once
        there is nothing more to show (the timer can stop)."""
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
        if waits:
            return f"{waits[0]} waits for the compiled kernels ({backend.phase()[1]})…"
        return FIRST_RESULT

    def text(self) -> Text | None:
        """The status line's part about the kernels (None once the switch is old news)."""
        name, message = backend.phase()
        if name == "numba" or not message:
            return None
        if name == "ready":
            return Text(message, style="bold green") if self._show_ready() else None
        waits = backend.waiting()
        if waits:
            return Text(f"{waits[0]} waits for the compiled kernels: {message}", style="bold")
        return Text(message, style="bold yellow")

    def stop(self) -> None:
        warm.stop()
