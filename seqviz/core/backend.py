"""Which kernels the core runs: Numba's, or the NumPy reference until Numba's are ready.

By default (library use, the commands, the tests) the Numba kernels are used and compile on
first use, as they always did. The app calls ``use_reference_until_ready()`` first: then the core
computes with the NumPy reference (equal to the kernels to ~1e-12) until ``mark_ready()`` says
the compiled kernels are loaded, so the first screen does not wait 20-90 s for the compiler.
``seqviz.scenes.warm`` does the compiling and loading and keeps ``phase()`` current for the
status line.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

_local = threading.local()
_lock = threading.Lock()
_ready = threading.Event()
_settled = threading.Event()  # ready, or failed for good
_fallback = False
_phase = ("numba", "")  # (name, what the status line says)
_waiting: list[str] = []  # computations blocked until the compiled kernels are ready
_revision = 0  # bumped on every change the status line shows


def kernels() -> ModuleType:
    """The module whose ``*_kernel`` functions the core calls now."""
    if getattr(_local, "numba", False) or not _fallback or _ready.is_set():
        from seqviz.core import kernels as numba_kernels

        return numba_kernels
    from seqviz.core import reference_kernels

    return reference_kernels


def using_reference() -> bool:
    """Whether computations in this thread run on the NumPy reference right now."""
    return kernels().__name__.endswith("reference_kernels")


@contextmanager
def numba_only() -> Iterator[None]:
    """Within this block, this thread calls the Numba kernels (compiling or loading them)."""
    before = getattr(_local, "numba", False)
    _local.numba = True
    try:
        yield
    finally:
        _local.numba = before


def _changed() -> None:
    global _revision
    _revision += 1


def use_reference_until_ready() -> None:
    """From now on, compute with the NumPy reference until mark_ready()."""
    global _fallback
    with _lock:
        _fallback = True
        _changed()


def set_phase(name: str, message: str) -> None:
    """What the kernels are doing (e.g. "compiling") and the sentence the status line shows."""
    global _phase
    with _lock:
        _phase = (name, message)
        _changed()


def mark_ready(message: str = "") -> None:
    """The compiled kernels are loaded in this process: use them from the next call on."""
    set_phase("ready", message)
    _ready.set()
    _settled.set()


def mark_failed(message: str) -> None:
    """The compiled kernels cannot be had: stay on the NumPy reference; waiters give up."""
    set_phase("failed", message)
    _settled.set()


def release_waiters() -> None:
    """Let every wait_until_ready() return False now (the app is closing: a computation blocked
    in it must not keep the app from exiting)."""
    _settled.set()


def is_ready() -> bool:
    return _ready.is_set()


def phase() -> tuple[str, str]:
    """(name, message): "numba" (default mode), "checking", "compiling", "loading", "ready",
    "failed"."""
    return _phase


def revision() -> int:
    """A number that changes whenever phase() or waiting() does (cheap to poll)."""
    return _revision


def waiting() -> tuple[str, ...]:
    """What is blocked until the compiled kernels are ready (e.g. "the linear Lyapunov grid")."""
    with _lock:
        return tuple(_waiting)


def wait_until_ready(what: str, timeout: float | None = None) -> bool:
    """Block until the compiled kernels are ready (at once outside the app's fallback mode),
    listing ``what`` in waiting() meanwhile. False if they failed or ``timeout`` passed first."""
    if not using_reference():
        return True
    with _lock:
        _waiting.append(what)
        _changed()
    try:
        _settled.wait(timeout)
        return _ready.is_set()
    finally:
        with _lock:
            _waiting.remove(what)
            _changed()


def reset() -> None:
    """Back to the default mode (Numba kernels, compiled on first use); for tests."""
    global _fallback, _phase
    with _lock:
        _fallback = False
        _phase = ("numba", "")
        _waiting.clear()
        _ready.clear()
        _settled.clear()
        _changed()
