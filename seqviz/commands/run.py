"""`seqviz run NAME`: the lesson's printed experiments, headless."""

from __future__ import annotations

import argparse
import importlib
from typing import Any

# Experiment name -> module with HELP (str), add_arguments(parser) and run(args) -> int.
# The modules are imported when the parser is built, so they import numpy & co inside run().
# To add an experiment, write such a module and add one line here.
EXPERIMENTS: dict[str, str] = {
    "vanishing": "seqviz.commands.run_vanishing",
    "memory": "seqviz.commands.run_memory",
    "beam": "seqviz.commands.run_beam",
    "training": "seqviz.commands.run_training",
    "lyapunov": "seqviz.commands.run_lyapunov",
    "tagging": "seqviz.commands.run_tagging",
    "fixedpoints": "seqviz.commands.run_fixedpoints",
    "agreement": "seqviz.commands.run_agreement",
    "bottleneck": "seqviz.commands.run_bottleneck",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="reproduce one of the lesson's experiments in the terminal",
        description="Run one of the lesson's experiments on the seqviz core and print its table "
        "(or JSON with --json).",
    )
    experiments = parser.add_subparsers(dest="experiment", metavar="EXPERIMENT", required=True)
    for name, module_name in EXPERIMENTS.items():
        module = importlib.import_module(module_name)
        # argparse %-formats help lines (for %(default)s): a literal % in HELP is written %%
        sub = experiments.add_parser(
            name, help=module.HELP.replace("%", "%%"), description=module.HELP
        )
        module.add_arguments(sub)
        sub.add_argument("--json", action="store_true", help="print the results as JSON")
        sub.set_defaults(func=_with_compile_notice(module.run))


COMPILING = "seqviz: compiling kernels (first run only, 15-25 s; later runs load them from cache)…"
WATCH_EVERY = 0.02  # seconds between looks for Numba's import (then a compile listener is set)


def _with_compile_notice(run: Any) -> Any:
    """``run``, saying once on stderr that kernels compile when Numba really starts compiling (a
    cold cache's first run is otherwise quiet for ~16 s); a warm run loads them from the cache
    and says nothing. Never to stdout, so --json output stays clean. Numba is not imported for
    it: a run that uses no kernels (beam) does not pay for the import."""

    def wrapped(args: argparse.Namespace) -> int:
        watch = CompileWatch()
        watch.start()
        try:
            return int(run(args))
        finally:
            watch.stop()

    return wrapped


class CompileWatch:
    """Prints COMPILING at the first "numba:compile" event (a cache load sends none) while
    started. Waits in a daemon thread for Numba's event module to be imported by the run, then
    listens."""

    def __init__(self) -> None:
        import threading

        self._done = threading.Event()
        self._said = False
        self._listener: Any = None
        self._thread = threading.Thread(target=self._wait_for_numba, daemon=True,
                                        name="seqviz-compile-watch")  # fmt: skip

    def start(self) -> None:
        self._thread.start()

    def _wait_for_numba(self) -> None:
        import sys

        while not self._done.is_set():
            event = sys.modules.get("numba.core.event")
            if event is not None and hasattr(event, "Listener"):  # (fully imported)
                self._listener = _on_start(event.Listener, self.compiling)
                event.register("numba:compile", self._listener)
                return
            self._done.wait(WATCH_EVERY)

    def compiling(self) -> None:
        import sys

        if not self._said and not self._done.is_set():
            self._said = True
            print(COMPILING, file=sys.stderr, flush=True)

    def stop(self) -> None:
        import sys

        self._done.set()
        self._thread.join(1.0)
        event = sys.modules.get("numba.core.event")
        if self._listener is not None and event is not None:
            event.unregister("numba:compile", self._listener)


def _on_start(base: Any, callback: Any) -> Any:
    """A Numba event listener (a subclass of ``base``) that calls ``callback`` at each start."""

    class Listener(base):  # type: ignore[misc, valid-type]
        def on_start(self, event: Any) -> None:
            callback()

        def on_end(self, event: Any) -> None:
            pass

    return Listener()
