"""A first launch that does not wait for the compiler: the kernels compile in a subprocess.

The app calls ``start()`` once its first scene is on screen. Until the compiled kernels are
loaded, the core computes with the NumPy reference (``seqviz.core.backend``). On a cold cache a
child process (``python -m seqviz.scenes.warm``) compiles every kernel the scenes use into
Numba's on-disk cache; compiling in a thread of the app instead held the interpreter lock for up
to 0.6 s at a time (measured), which froze the screen. Then, or at once on a warm cache, this
process loads the kernels from the cache in a background thread and switches to them.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import Any

from seqviz.core import backend

COMPILING = "compiling kernels in the background; NumPy reference meanwhile"
CHECKING = "looking for compiled kernels; NumPy reference meanwhile"
LOADING = "loading compiled kernels; NumPy reference meanwhile"
READY = "compiled kernels ready: switched from the NumPy reference"
FAILED = "compiling in the background failed; compiling here (the screen may stutter)"


def warm_all() -> None:
    """Compile or load every kernel the scenes call."""
    from seqviz.core import blas, warmup
    from seqviz.core.raster_kernels import warmup as warmup_raster
    from seqviz.dynamics.lyapunov import warmup as warmup_lyapunov

    warmup()
    warmup_lyapunov()
    warmup_raster()
    blas.warmup()


def _dispatchers() -> list[Any]:
    from seqviz.core import blas_kernels, kernels, raster_kernels
    from seqviz.dynamics import lyapunov_kernels

    names = ("forward_kernel", "step_kernel", "trace_kernel", "batch_forward_kernel",
             "batch_backward_kernel")  # fmt: skip
    return [getattr(kernels, n) for n in names] + [
        lyapunov_kernels._grid,
        raster_kernels.line_raster,
        blas_kernels.blas_forward,
        blas_kernels.blas_backward,
    ]


def cache_is_warm() -> bool:
    """Whether Numba's on-disk cache holds every kernel for this machine (then loading them takes
    about a second, not a compile). Reads Numba's cache index, which Numba has no public call
    for: any surprise counts as cold (the child process then finds the cache warm quickly)."""
    try:
        for dispatcher in _dispatchers():
            magic = dispatcher.targetctx.codegen().magic_tuple()
            index = dispatcher._cache._cache_file._load_index()  # {(sig, magic, hashes): file}
            if not any(key[1] == magic for key in index):
                return False
        return True
    except Exception:
        return False


class Warmer:
    """The background thread: check the cache, compile in a child if cold, load, switch."""

    def __init__(self) -> None:
        self._thread = threading.Thread(target=self._run, name="seqviz-warm", daemon=True)
        self._child: subprocess.Popen[bytes] | None = None
        self._stopped = threading.Event()
        self._lock = threading.Lock()  # stop() and starting the child exclude each other
        self.error = ""

    def start(self) -> None:
        prepare()
        self._thread.start()

    def stop(self, timeout: float = 1.0) -> None:
        """End the child (the kernels it finished stay cached); the thread ends at its next
        check (quitting does not wait for a load in progress: the thread is a daemon)."""
        with self._lock:
            self._stopped.set()
            child = self._child
        backend.release_waiters()
        if child is not None and child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def child_argv(self) -> list[str]:
        """The command that fills the cache: this module run by this interpreter."""
        return [sys.executable, "-m", "seqviz.scenes.warm"]

    def _run(self) -> None:
        if not cache_is_warm():
            backend.set_phase("compiling", COMPILING)
            pipe, null = subprocess.PIPE, subprocess.DEVNULL
            with self._lock:
                if self._stopped.is_set():
                    return
                self._child = subprocess.Popen(
                    self.child_argv(), stdin=null, stdout=null, stderr=pipe
                )
            _, err = self._child.communicate()
            if self._stopped.is_set():
                return
            if self._child.returncode != 0:
                lines = err.decode(errors="replace").strip().splitlines()
                self.error = lines[-1] if lines else f"exit status {self._child.returncode}"
                backend.set_phase("compiling", FAILED)
            else:
                backend.set_phase("loading", LOADING)
        else:
            backend.set_phase("loading", LOADING)
        if self._stopped.is_set():
            return
        try:
            warm_all()  # loads from the cache the child filled (or compiles, if it failed)
        except Exception as exc:  # the app must go on with the reference, never crash
            self.error = f"{type(exc).__name__}: {exc}"
            backend.mark_failed(f"compiled kernels unavailable ({self.error}); NumPy reference")
            return
        if not self._stopped.is_set():
            backend.mark_ready(READY)


_warmer: Warmer | None = None


def prepare() -> None:
    """Compute with the NumPy reference from now on, unless the kernels are loaded already; call
    before the first computation, start() once it is on screen (loading competes with it)."""
    if not backend.is_ready():
        backend.use_reference_until_ready()
        if backend.phase()[0] == "numba":
            backend.set_phase("checking", CHECKING)


def start() -> Warmer:
    """Start the background warm-up once per process; later calls return the same one."""
    global _warmer
    if _warmer is None:
        _warmer = Warmer()
        _warmer.start()
    return _warmer


def stop() -> None:
    if _warmer is not None:
        _warmer.stop()


if __name__ == "__main__":
    warm_all()
