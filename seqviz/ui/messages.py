"""Messages the compute worker posts to the app (thread-safe; newer results replace stale ones)."""

from __future__ import annotations

from typing import Any

from textual.message import Message


class TraceReady(Message):
    """A worker finished computing ``result`` for ``values`` of ``scene_name``."""

    def __init__(self, generation: int, scene_name: str, values: Any, result: Any,
                 cost: tuple[float, int] | None = None) -> None:  # fmt: skip
        super().__init__()
        self.generation = generation
        self.scene_name = scene_name
        self.values = values
        self.result = result
        self.cost = cost
        """(CPU seconds the compute took on its thread, the kernel backend's revision then), if it
        was timed. CPU time, not wall time: on a busy machine a 3 ms compute often took 7 ms of
        wall time, and the scene flipped to the slower worker path every few changes."""

    def can_replace(self, message: Message) -> bool:
        # A newer result makes an older one still in the queue worthless.
        return isinstance(message, TraceReady)


class ComputeFailed(Message):
    """A worker's computation raised; ``error`` is shown in the status line."""

    def __init__(self, generation: int, error: str) -> None:
        super().__init__()
        self.generation = generation
        self.error = error

    @classmethod
    def of(cls, generation: int, exc: Exception) -> ComputeFailed:
        """The message for ``exc``: a ValueError or OSError is bad input whose text already says
        what was wrong and what is allowed, shown as it is; any other exception is a fault, shown
        with its class name so that it can be reported."""
        text = str(exc)
        if not text or not isinstance(exc, (ValueError, OSError)):
            text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        return cls(generation, text)
