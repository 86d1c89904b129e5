"""`seqviz run memory`: how long a scalar RNN and a scalar LSTM hold one input pulse."""

from __future__ import annotations

import argparse

from seqviz.commands.options import add
from seqviz.limits import MAX_STEPS, float_option, int_option

HELP = "memory of a single input pulse: scalar tanh RNN versus scalar LSTM"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--w", type=float_option(-1e6, 1e6), nargs="+", default=[0.9, 1.5], metavar="W",
        help="recurrent weights of the scalar RNN (default: 0.9 1.5)",
    )  # fmt: skip
    parser.add_argument(
        "--forget-bias", type=float_option(-1e6, 1e6), nargs="+", default=[2.0, 5.0, 10.0],
        metavar="B",
        help="forget-gate biases of the scalar LSTM (default: 2 5 10)",
    )  # fmt: skip
    add(parser, "--steps", int_option(1, MAX_STEPS), 100, "steps to wait", most=True)


def run(args: argparse.Namespace) -> int:
    import json

    from seqviz.experiments import memory
    from seqviz.limits import check_list

    check_list(args.w, "--w")
    check_list(args.forget_bias, "--forget-bias")

    result = memory(args.w, args.forget_bias, args.steps)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0
    print(format_table(result))
    return 0


def _value(v: float) -> str:
    return f"{v:.2e}" if abs(v) < 0.01 else f"{v:.3f}"


def format_table(result) -> str:
    lines = [
        f"A pulse x=1 at the first step, then {result.steps - 1} zeros: what is left at the end?",
        "scalar RNN  h_t = tanh(w h_(t-1) + 2 x_t)",
    ]
    for r in result.rnn:
        note = "saturated, it holds a value and cannot let go" if abs(r.h_final) > 0.5 else ""
        lines.append(f"  w = {r.w:<5g}  h_T = {_value(r.h_final):<9}  {note}".rstrip())
    lines.append("scalar LSTM  f = sig(b), i = sig(8x - 4), g = tanh(2x), o = sig(4)")
    for m in result.lstm:
        b = f"{m.forget_bias:g}"
        lines.append(f"  b = {b:>3}  forget gate {m.forget_gate:.5f}  c_T = {_value(m.c_final)}")
    return "\n".join(lines)
