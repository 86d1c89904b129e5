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
    "cells": "seqviz.commands.run_cells",
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


NOTICE_AFTER = 1.0  # seconds of silence before saying the kernels are compiling
COMPILING = "seqviz: compiling kernels (first run only, 15-25 s; later runs load them from cache)…"


def _with_compile_notice(run: Any) -> Any:
    """``run``, saying on stderr that kernels compile when it is silent for NOTICE_AFTER seconds
    on a cold cache (a first run is otherwise quiet for ~16 s). Printed once, never to stdout,
    so --json output stays clean."""

    def wrapped(args: argparse.Namespace) -> int:
        import sys
        import threading

        timer = threading.Timer(NOTICE_AFTER, lambda: print(COMPILING, file=sys.stderr, flush=True))
        timer.daemon = True
        if not _kernels_loaded():
            timer.start()
        try:
            return int(run(args))
        finally:
            timer.cancel()

    return wrapped


def _kernels_loaded() -> bool:
    """Whether this process already has compiled kernels (then nothing will compile)."""
    import sys

    kernels = sys.modules.get("seqviz.core.kernels")
    return kernels is not None and bool(getattr(kernels.forward_kernel, "signatures", ()))
