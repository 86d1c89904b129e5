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


def _run(argv, capsys):
    code = main(argv)
    return code, capsys.readouterr()


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--set", "rho=1e400", "screenshot", "--out", "{tmp}/s.svg"],
         "put it after the command: `seqviz screenshot --set"),
        (["--scene", "gates", "screenshot", "--out", "{tmp}/s.svg"],
         "put it after the command: `seqviz screenshot --scene"),
        (["--set", "rho=1.2", "serve", "--port", "1"], "`seqviz serve --set"),
        (["--scene", "3", "train", "{tmp}/c.txt", "--out", "{tmp}/m.npz"],
         "`seqviz train` has no --scene"),
        (["--weights", "agreement", "decode"], "`seqviz decode` has no --weights"),
    ],
)  # fmt: skip
def test_app_options_before_a_command_are_refused_not_ignored(tmp_path, capsys, argv, says):
    (tmp_path / "c.txt").write_text("the cat sat\n")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out = _run(argv, capsys)
    assert code == 2 and out.out == ""
    assert out.err.startswith("seqviz: error: ") and out.err.count("\n") == 1, out.err
    assert says in out.err
    assert not (tmp_path / "s.svg").exists() and not (tmp_path / "m.npz").exists()


def test_the_same_options_after_the_command_still_reach_it():
    args = build_parser().parse_args(["screenshot", "--set", "rho=1.2", "--out", "s.svg"])
    assert args.settings == ["rho=1.2"] and not getattr(args, "before_command", None)
    args = build_parser().parse_args(["--scene", "gates", "--set", "hidden=8"])
    assert args.scene == "gates" and args.settings == ["hidden=8"] and args.command is None
