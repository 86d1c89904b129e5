"""Launch timing for `seqviz bench --ui`: the app writes what it painted to an inherited pipe."""

from __future__ import annotations

import os

ENV = "SEQVIZ_LAUNCH_PROBE"  # the number of a pipe's write end the app inherited


class LaunchProbe:
    """One line per event; the bench timestamps each line as it arrives."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def painted(self, generation: int) -> None:
        """A computed result for parameter set ``generation`` is on screen (after its refresh)."""
        self._write(f"painted {generation}")

    def kernels(self, phase: str) -> None:
        self._write(f"kernels {phase}")

    def _write(self, line: str) -> None:
        try:
            os.write(self._fd, f"{line}\n".encode())
        except OSError:
            pass  # the bench stopped listening: timing is not the app's business


def launch_probe() -> LaunchProbe | None:
    value = os.environ.get(ENV, "")
    return LaunchProbe(int(value)) if value.isdigit() else None
