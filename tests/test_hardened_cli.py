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


# --- seqviz translate: the file and size rules of the other readers ------------------------------


@pytest.mark.slow  # a fresh process: a FIFO opened for reading would block this one for ever
def test_translate_refuses_a_fifo_at_once(tmp_path):
    import os
    import subprocess
    import sys

    fifo = tmp_path / "lines"
    os.mkfifo(fifo)
    try:
        done = subprocess.run([sys.executable, "-m", "seqviz", "translate", "--input", str(fifo)],
                              capture_output=True, text=True, timeout=60)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("translate --input FIFO waited for a writer")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "not a regular file" in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda tmp: "/dev/zero", "not a regular file"),
        (lambda tmp: str(tmp), "is a folder"),
        (lambda tmp: str(tmp / "missing.txt"), "no such file"),
    ],
    ids=["device", "folder", "missing"],
)
def test_translate_refuses_devices_folders_and_missing_files(tmp_path, capsys, make, says):
    import tracemalloc

    tracemalloc.start()
    try:
        code, out = _run(["translate", "--input", make(tmp_path)], capsys)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2 and out.err.count("\n") == 1 and says in out.err, out.err
    assert peak < 64 << 20


def test_translate_refuses_a_file_over_the_text_cap_before_reading_it(tmp_path, capsys):
    from seqviz.limits import FILE_CAPS

    sparse = tmp_path / "sparse.txt"  # 3 GB on paper, nothing on disk
    with open(sparse, "wb") as f:
        f.truncate(3 << 30)
    code, out = _run(["translate", "--input", str(sparse)], capsys)
    assert code == 2 and out.err.count("\n") == 1
    assert f"more than the {FILE_CAPS['text'] >> 20} MB limit" in out.err, out.err


def test_translate_refuses_text_that_is_not_utf8(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"the cat \xff\xfe\n")
    code, out = _run(["translate", "--input", str(bad)], capsys)
    assert code == 2 and "not UTF-8 text" in out.err and out.err.count("\n") == 1


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [("--width", "100000", "--width must be from 1 to 100,"),
     ("--width", "0", "--width must be from 1 to 100,"),
     ("--max-len", "100000", "--max-len must be from 1 to 1,000,"),
     ("--max-len", "1e400", "--max-len must be a whole number")],
)  # fmt: skip
def test_translate_width_and_max_len_have_maxima_checked_while_parsing(option, value, says):
    from seqviz.cli import UsageError
    from seqviz.limits import MAX_LEN, MAX_WIDTH

    with pytest.raises(UsageError, match=says):
        build_parser().parse_args(["translate", "--strategy", "beam", option, value, "a b"])
    args = build_parser().parse_args(
        ["translate", "--width", str(MAX_WIDTH), "--max-len", str(MAX_LEN), "a b"]
    )
    assert (args.width, args.max_len) == (MAX_WIDTH, MAX_LEN)
    help_text = build_parser()._subparsers._group_actions[0].choices["translate"].format_help()
    assert f"at most {MAX_WIDTH}" in help_text and f"at most {MAX_LEN:,}" in help_text


# --- --out is checked before the work, and named as the user gave it ------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["train-tagger", "--epochs", "1", "--out", "{out}.npz"],
        ["train-seq2seq", "--epochs", "1", "--out", "{out}.npz"],
        ["train-flipflop", "--epochs", "1", "--out", "{out}.npz"],
        ["screenshot", "--out", "{out}.svg"],
    ],
    ids=lambda a: a[0],
)
def test_out_that_cannot_be_written_is_refused_before_the_work(capsys, monkeypatch, argv):
    from seqviz import training

    def no_training(*args, **kwargs):
        raise AssertionError("training started before --out was checked")

    monkeypatch.setattr(training, "fit", no_training)
    import seqviz.commands.screenshot as screenshot

    monkeypatch.setattr(screenshot, "take", no_training)
    out = "/proc/m"
    code, got = _run([a.replace("{out}", out) for a in argv], capsys)
    assert code == 2 and got.err.count("\n") == 1, got.err
    assert f"--out '{out}." in got.err and "cannot be written" in got.err, got.err
    assert ".tmp" not in got.err


def test_a_save_that_fails_names_the_users_file_not_the_temp_file(tmp_path):
    from seqviz.files import atomic_write

    with pytest.raises(OSError) as info:
        atomic_write("/proc/m.npz", b"x")
    assert info.value.filename == "/proc/m.npz"
