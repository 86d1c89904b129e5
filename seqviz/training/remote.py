"""A Trainer in a child process, steered over a pipe: the UI's interpreter stays free to draw.

Training in a thread of the UI's process would share its interpreter lock: the Python between
the kernels (the trainer, the optimiser, the chunk summaries) then takes turns with every frame.
Here each training run gets its own process, forked from a forkserver that has imported the
trainer and loaded its compiled kernels once (`seqviz.training.warm`), so that a restart is
quick. The protocol is a request/reply per chunk: ``("run", n, lr, clip)`` -> a `Chunk`, or
``("stop",)``. The child also stops when the pipe closes (the UI's process ended), so it never
outlives it; `RemoteTrainer.close` ends it at once (stop, then terminate, then kill).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.forkserver
import multiprocessing.resource_tracker
import os
import sys
import threading
import types
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

from seqviz.training.live import CHUNK_SECONDS, Chunk, Trainer
from seqviz.training.race import RaceConfig

POLL = 0.05  # seconds between checks of the caller's cancel flag while a chunk is on its way
PRELOAD = ["seqviz.training.warm"]
NICE = 3  # the trainer's priority below the UI's: the UI gets about 2/3 of a shared core
_context: Any = None
_starting = threading.Lock()  # sys.stderr is swapped while the helpers start: one at a time


def context() -> Any:
    """The multiprocessing context for trainer processes: forkserver where there is one (forking
    the UI's process itself would copy its threads' locks), else spawn."""
    global _context
    if _context is None:
        if "forkserver" in multiprocessing.get_all_start_methods():
            _context = multiprocessing.get_context("forkserver")
            _context.set_forkserver_preload(PRELOAD)
        else:
            _context = multiprocessing.get_context("spawn")
    return _context


def _helpers_running() -> None:
    """Start multiprocessing's helper processes (resource tracker, forkserver) if they are not
    running. They keep ``sys.stderr``'s descriptor open, and a Textual app's stand-in for it
    has none (fileno -1: "bad value(s) in fds_to_keep"), so one with a real descriptor stands
    in while they start; that takes milliseconds (the forkserver preloads after its start)."""
    with _starting, contextlib.ExitStack() as stack:
        try:
            usable = sys.stderr is None or sys.stderr.fileno() >= 0
        except (OSError, ValueError, AttributeError):
            usable = True  # no descriptor at all is fine: the helpers then keep none
        if not usable:
            stack.enter_context(contextlib.redirect_stderr(stack.enter_context(
                open(os.devnull, "w"))))  # fmt: skip
        if context().get_start_method() == "forkserver":
            multiprocessing.forkserver.ensure_running()  # starts the resource tracker too
        else:
            multiprocessing.resource_tracker.ensure_running()


@contextlib.contextmanager
def _main_left_out() -> Iterator[None]:
    """Keep the parent's ``__main__`` out of the child while it starts. multiprocessing runs
    the parent's main script again in a forkserver or spawn child (as ``__mp_main__``) before
    the target; a script without an ``if __name__ == "__main__"`` guard (a lecturer's own
    launcher, a wrapper around ``seqviz.cli.main``) would then start a second app or benchmark
    in the trainer's place, and the parent would wait for a chunk forever. `serve` and its
    config need nothing from ``__main__``. Called under ``_starting``."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")  # no __file__, no __spec__
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def serve(conn: Connection, config: RaceConfig, seconds: float = CHUNK_SECONDS) -> None:
    """The child's loop: answer each request until told to stop or the pipe closes."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # the parent's terminal (or `seqviz serve`'s pipe) is not ours to write
    os.dup2(devnull, 2)
    with contextlib.suppress(OSError):
        os.nice(NICE)  # frames first: on a busy machine the UI wins the CPU over its training
    try:
        trainer = Trainer(config)
        while True:
            request = conn.recv()
            if request[0] != "run":
                return
            _, n, lr, clip = request
            conn.send(("chunk", trainer.run(n, lr, clip, seconds)))
    except (EOFError, BrokenPipeError, ConnectionResetError, KeyboardInterrupt):
        return  # the parent is gone or ended the run
    except Exception as exc:  # shown by the parent as the scene's error text
        try:
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
        except OSError:
            pass
    finally:
        conn.close()


class TrainerGone(RuntimeError):
    """The training process ended without being asked to."""


class RemoteTrainer:
    """The parent's handle on one training process (one run of a Race)."""

    def __init__(self, config: RaceConfig, seconds: float = CHUNK_SECONDS) -> None:
        """Start the process; a chunk of updates ends after ``seconds``."""
        ctx = context()
        _helpers_running()
        self._conn, child = ctx.Pipe()
        self.process = ctx.Process(target=serve, args=(child, config, seconds), daemon=True,
                                   name="seqviz-trainer")  # fmt: skip
        with _starting, _main_left_out():
            self.process.start()
        child.close()  # only the child holds its end: its exit shows here as end of file
        self._busy = False
        self._closed = False

    def send(self, n: int, lr: float, clip: float) -> None:
        """Ask for a chunk of up to ``n`` updates (answered by ``receive``)."""
        try:
            self._conn.send(("run", n, lr, clip))
        except OSError:
            raise TrainerGone(self._gone()) from None
        self._busy = True

    @property
    def busy(self) -> bool:
        return self._busy

    def receive(self, cancelled: Any = lambda: False) -> Chunk | None:
        """The chunk asked for; None if ``cancelled()`` turned true while waiting."""
        while not self._conn.poll(POLL):
            if cancelled():
                return None
            if not self.process.is_alive() and not self._conn.poll(0):
                raise TrainerGone(self._gone())
        try:
            kind, payload = self._conn.recv()
        except (EOFError, OSError):
            raise TrainerGone(self._gone()) from None
        self._busy = False
        if kind == "error":
            raise RuntimeError(payload)
        return payload

    def _gone(self) -> str:
        self.process.join(1.0)
        return f"the training process ended unexpectedly (exit code {self.process.exitcode})."

    def close(self, timeout: float = 2.0) -> None:
        """End the process and wait for it (idempotent)."""
        if self._closed:
            return
        self._closed = True
        try:
            self._conn.send(("stop",))
        except OSError:
            pass
        self._conn.close()
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.process.close()
