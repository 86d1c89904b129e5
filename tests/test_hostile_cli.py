"""Hostile values on every command: one sentence, exit 2, checked before any allocation."""

from __future__ import annotations

import argparse
import math
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seqviz import limits
from seqviz.cli import UsageError, build_parser, main

GB = 1 << 30
LONG = "x" * 10_000


def _sub_parsers(parser: argparse.ArgumentParser, prefix=()):
    """(argv prefix, parser) for the top level and every (nested) sub-command."""
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _sub_parsers(sub, (*prefix, name))


def _bounded_options():
    """(argv prefix, option, (lo, hi)) for every option parsed by a limits type."""
    found = []
    for prefix, parser in _sub_parsers(build_parser()):
        for action in parser._actions:
            bounds = getattr(action.type, "bounds", None)
            if bounds and action.option_strings:
                found.append((prefix, action.option_strings[-1], bounds))
    return found


BOUNDED = _bounded_options()


def test_every_size_option_has_a_documented_maximum():
    names = {(" ".join(p), o) for p, o, _ in BOUNDED}
    for option in [("export", "--steps"), ("export", "--hidden"), ("decode", "--width"),
                   ("decode", "--samples"), ("train", "--hidden"), ("run vanishing", "--hidden"),
                   ("train", "--epochs"), ("decode", "--max-len"), ("translate", "--width"),
                   ("translate", "--max-len")]:  # fmt: skip
        assert option in names
    for _, _, (lo, hi) in BOUNDED:
        assert math.isfinite(lo) and math.isfinite(hi)


hostile_text = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        [
            "1e9",
            "1e400",
            "-1e400",
            "nan",
            "inf",
            "-1",
            "0",
            "1e-400",
            "0x10",
            "１２",
            " 7 ",
            "9" * 400,
            LONG,
            "1_000",
            "--",
            "-0",
        ]
    ),  # fmt: skip
    st.integers().map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@pytest.mark.slow  # a fuzz run (hypothesis)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), value=hostile_text)
def test_option_values_parse_within_bounds_or_fail_in_one_sentence(data, value):
    prefix, option, (lo, hi) = data.draw(st.sampled_from(BOUNDED))
    argv = [*prefix, f"{option}={value}"]
    if prefix and prefix[0] in ("train",):
        argv += ["corpus.txt", "--out", "m.npz"]
    try:
        args = build_parser().parse_args(argv)
    except UsageError as exc:
        message = str(exc)
        assert "\n" not in message and len(message) < 300
        assert option in message or "argument" in message
        return
    except SystemExit:  # argparse's own exits (help) only
        pytest.fail(f"{argv} ended argparse without a sentence")
    got = getattr(args, option.lstrip("-").replace("-", "_"))
    if got == []:
        return  # argparse reads "--rho=--" as no values; the command refuses an empty list
    got = got[0] if isinstance(got, list) else got
    assert lo <= got <= hi and math.isfinite(got)


HOSTILE_ARGV = [
    (["export", "--cell", "lstm", "--steps", "1e9", "--out", "{tmp}/t.npz"], "--steps must be"),
    (["export", "--cell", "lstm", "--hidden", "100000", "--out", "{tmp}/t.npz"], "--hidden"),
    (
        [
            "export",
            "--cell",
            "lstm",
            "--hidden",
            "2048",
            "--steps",
            "100000",
            "--out",
            "{tmp}/t.npz",
        ],
        "the limit is",
    ),  # fmt: skip
    (["export", "--cell", "rnn", "--out", ""], "--out is empty"),
    (["export", "--cell", "rnn", "--out", "{tmp}"], "is a folder"),
    (["export", "--cell", "rnn", "--seed", "-1", "--out", "{tmp}/t.npz"], "--seed must be"),
    (["export", "--cell", "rnn", "--spectral-radius", "nan", "--out", "{tmp}/t.npz"], "finite"),
    (["run", "vanishing", "--hidden", "100000"], "--hidden must be from 1 to 2,048"),
    (["run", "vanishing", "--steps", "1e9"], "--steps must be"),
    (["run", "vanishing", "--rho", "1e400"], "--rho must be a finite number"),
    (["run", "vanishing", "--rho", *["1"] * 100], "--rho takes 1 to 64 values"),
    (["run", "memory", "--steps", "-5"], "--steps must be"),
    (["run", "memory", "--w", "inf"], "--w must be a finite number"),
    (["run", "beam", "--widths", "100000"], "--widths must be"),
    (["run", "beam", "--max-len", "1e9"], "--max-len must be"),
    (["decode", "--width", "100000"], "--width must be from 1 to 100"),
    (["decode", "--strategy", "sample", "--samples", "1e8"], "--samples must be"),
    (
        ["decode", "--strategy", "sample", "--samples", "10000", "--max-len", "1000"],
        "--samples x --max-len",
    ),  # fmt: skip
    (["decode", "--temperature", "1e400"], "--temperature must be"),
    (["decode", "--seed", "-1"], "--seed must be"),
    (["decode", "--prompt", LONG + "y"], "--prompt has 10,001 characters"),
    (["decode", "--prompt", "the " + "y" * 5000], "characters) is not in the vocabulary"),
    (["decode", "--strategy", LONG], "characters)"),
    (["train", "{corpus}", "--hidden", "100000", "--out", "{tmp}/m.npz"], "--hidden must be"),
    (["train", "{corpus}", "--lr", "1e400", "--out", "{tmp}/m.npz"], "--lr must be"),
    (["train", "{corpus}", "--epochs", "1e9", "--out", "{tmp}/m.npz"], "--epochs must be"),
    (["train", "{corpus}", "--out", "{tmp}"], "is a folder"),
    (["train", "{corpus}", "--out", ""], "--out is empty"),
    (["train", "{corpus}", "--seed", "-1", "--out", "{tmp}/m.npz"], "--seed must be"),
    (["--set", "hidden=1e400"], "hidden must be"),
    (["--set", "steps=nan"], "steps must be"),
    (["--set", f"rho={LONG}"], "characters)"),
    (["--scene", LONG], "characters)"),
    (["--set", f"{LONG}=1"], "characters)"),
    (["demo", LONG], "no shipped demo"),
    (["demo", "vanishing", "--start", "1e9"], "argument --start"),
    (["screenshot", "--size", "100000x100000", "--out", "{tmp}/a.svg"], "--size must be"),
    (["screenshot", "--out", "{tmp}/a.svg", "--set", "hidden=1e400"], "hidden must be"),
    (["serve", "--port", "70000"], "1 to 65535"),
    (["serve", "--set", "hidden=1e400"], "hidden must be"),
    (["serve", "--scene", "nope"], "unknown scene"),
    (["serve", "--max-sessions", "1e6"], "--max-sessions must be"),
    (["serve", "--host", "no such host!"], "--host"),
    (["serve", "--allow-origin", "not a url"], "--allow-origin"),
    (["demo", "vanishing", "--serve", "--max-sessions", "0"], "--max-sessions must be"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("argv", "says"), HOSTILE_ARGV, ids=lambda a: str(a)[:60])
def test_hostile_values_are_one_sentence(tmp_path, capsys, argv, says):
    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat sat\nthe dog ran\n")
    argv = [a.replace("{tmp}", str(tmp_path)).replace("{corpus}", str(corpus)) for a in argv]
    tracemalloc.start()
    try:
        code = main(argv)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("seqviz: error: ") and err.count("\n") == 1, err
    assert says in err and len(err) < 400, err
    assert peak < GB


def test_limits_describe_themselves():
    with pytest.raises(limits.LimitError, match="from 0 to 4,294,967,295"):
        limits.check_seed(2**40)
    assert limits.shorten(LONG).endswith("(10000 characters)")
    assert limits.check_int("1e3", "--n", 1, 5000) == 1000
    with pytest.raises(limits.LimitError, match="whole number"):
        limits.check_int("2.5", "--n", 1, 10)
    with pytest.raises(limits.LimitError, match="finite number from 0 to 1"):
        limits.check_float("nan", "--p", 0, 1)
