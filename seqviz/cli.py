"""Command-line entry point: argument parsing only; heavy modules are imported by the commands."""

from __future__ import annotations

import functools
import importlib
import re
import sys
from collections.abc import Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NoReturn

from seqviz.commands import UsageError

if TYPE_CHECKING:
    import argparse

# Each module here has `register(subparsers)`, which adds one sub-command and sets `func`
# (a callable taking the parsed args and returning an exit code). The modules stay light:
# they import numpy/numba/textual inside `func`, so `seqviz --help` starts fast.
COMMAND_MODULES: tuple[str, ...] = (
    "seqviz.commands.run",
    "seqviz.commands.export",
    "seqviz.commands.export_torch",
    "seqviz.commands.bench",
    "seqviz.commands.serve",
    "seqviz.commands.decode",
    "seqviz.commands.train",
    "seqviz.commands.train_tagger",
    "seqviz.commands.tag",
    "seqviz.commands.train_flipflop",
    "seqviz.commands.train_seq2seq",
    "seqviz.commands.translate",
    "seqviz.commands.demo",
    "seqviz.commands.screenshot",
    "seqviz.commands.units",
    "seqviz.commands.models",
    "seqviz.commands.ngram",
    "seqviz.commands.state",
)


__all__ = ["COMMAND_MODULES", "UsageError", "build_parser", "main"]


@functools.cache
def _parser_class() -> type[argparse.ArgumentParser]:
    """argparse's parser, whose errors are one sentence (UsageError) naming the option, with a
    hostile value (10,000 characters) cut short instead of echoed whole. Made on first use:
    a bare `seqviz` parses nothing and does not import argparse."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            from seqviz.limits import MAX_ECHO

            def cut(match: re.Match[str]) -> str:
                text = match.group(0)
                return f"{text[:MAX_ECHO]}…' ({len(text) - 2} characters)"

            message = re.sub(f"'[^']{{{MAX_ECHO + 1},}}'", cut, message)
            message = re.sub(r"^argument ([^:]+): must", r"\1 must", message)
            raise UsageError(f"{message.rstrip('.')}; see `{self.prog} --help`")

    return Parser


def build_parser(commands: bool = True) -> argparse.ArgumentParser:
    """The command line; ``commands=False``: only the app's own options and no help (what
    `seqviz` with no command needs, without importing every command module)."""
    parser = _parser_class()(
        prog="seqviz",
        add_help=commands,
        description="Watch recurrent networks think: hidden states, gates, gradients through "
        "time and decoding trees. With no command, opens the app.",
    )
    parser.add_argument("--scene", help="scene to open the app on (for example: vanishing)")
    parser.add_argument(
        "--set",
        dest="settings",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a scene parameter, e.g. --set rho=1.2 (repeatable)",
    )
    parser.add_argument("--weights", help="open the gates scene on a saved model (.pt or .npz)")
    parser.add_argument("--vocab", help="the vocabulary of a whole PyTorch LM given as --weights")
    parser.add_argument("--state", help="open the screen a state string (or an SVG screenshot) "
                        "names; see `seqviz state`")  # fmt: skip
    if not commands:
        return parser
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _launch_app(args: Any) -> int:
    from seqviz.commands.app import launch

    return launch(args)


def _app_args(argv: Sequence[str] | None) -> Any:
    """The parsed options when ``argv`` only opens the app (no command, no --help), else None.

    Opening the app is the launch users wait for: this skips importing the command modules,
    and with no arguments at all, argparse.
    Anything else (a command, --help, a bad option) goes to the full parser, which words it.
    """
    if not (sys.argv[1:] if argv is None else argv):
        # the parser's defaults
        return SimpleNamespace(scene=None, settings=[], weights=None, vocab=None, state=None)
    try:
        args, rest = build_parser(commands=False).parse_known_args(argv)
    except UsageError:
        return None
    return None if rest else args


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _app_args(argv) or build_parser().parse_args(argv)
        func = getattr(args, "func", None) or _launch_app
        return int(func(args) or 0)
    except (UsageError, ValueError, FileNotFoundError) as exc:
        # Bad input ends in one sentence on stderr, never a traceback.
        print(f"seqviz: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        print("seqviz: error: out of memory; use smaller sizes (see `seqviz COMMAND --help`).",
              file=sys.stderr)  # fmt: skip
        return 2
    except RecursionError:
        print("seqviz: error: the input is nested too deeply to read.", file=sys.stderr)
        return 2
    except OSError as exc:
        # A full disk, a vanished folder, a permission changed mid-run: one sentence.
        from seqviz.limits import shorten

        where = f" ({shorten(str(exc.filename))})" if exc.filename else ""
        print(f"seqviz: error: {exc.strerror or exc}{where}.", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
