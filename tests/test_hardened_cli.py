"""Command-line holes: --help of every command, --out checked before the work, a top-level --set
before a command, translate's file and size rules, NaN weights in every loader."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from seqviz.cli import build_parser, main


def _command_paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    yield prefix
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _command_paths(sub, (*prefix, name))


COMMANDS = list(_command_paths(build_parser()))


def test_the_commands_are_found():
    assert ("run",) in COMMANDS and ("run", "training") in COMMANDS and ("translate",) in COMMANDS
    assert len(COMMANDS) > 20


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda p: " ".join(p) or "seqviz")
def test_help_of_every_command_prints_and_exits_0(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([*argv, "--help"])
        except SystemExit as exc:
            code = exc.code
    assert code == 0, err.getvalue()
    assert err.getvalue() == ""
    text = out.getvalue()
    assert text.startswith("usage: seqviz") and "--help" in text
    # the sub-commands each listed with their help line, the help's percent signs as written
    for name in {
        p[len(argv)] for p in COMMANDS if len(p) == len(argv) + 1 and p[: len(argv)] == argv
    }:
        assert name in text
