"""`seqviz run vanishing`: gradient norms k steps back in a tanh RNN, per spectral radius."""

from __future__ import annotations

import argparse

from seqviz.commands.options import add, add_seed
from seqviz.limits import MAX_HIDDEN, MAX_STEPS, float_option, int_option

HELP = "gradient norm k steps back through a tanh RNN (and a linear one) per spectral radius"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rho", type=float_option(0, 100), nargs="+", default=[0.8, 1.0, 1.2], metavar="R",
        help="spectral radii of W_hh, one network each (default: 0.8 1.0 1.2)",
    )  # fmt: skip
    add(parser, "--hidden", int_option(1, MAX_HIDDEN), 64, "hidden size d", most=True)
    add(parser, "--steps", int_option(2, MAX_STEPS), 60, "sequence length T", most=True)
    add_seed(parser)
    add(parser, "--input-scale", float_option(0, 1e6), 0.5, "input std deviation")


def run(args: argparse.Namespace) -> int:
    import json

    from seqviz.experiments import vanishing
    from seqviz.limits import check_list, check_trace_size

    check_list(args.rho, "--rho")
    check_trace_size(args.steps, args.hidden, len(args.rho))
    result = vanishing(args.rho, args.hidden, args.steps, args.seed, args.input_scale)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0
    print(format_table(result))
    return 0


def format_table(result) -> str:
    ks = result.rows[0].ks
    head = ["rho"] + [f"k={k}" for k in ks] + [f"linear k={ks[-1]}"]
    widths = [5] + [9] * len(ks) + [12]
    lines = [
        "Gradient norm |dL/dh| k steps back from the last state, loss sum(h_T)/sqrt(d)",
        f"(d={result.hidden}, T={result.steps}, seed {result.seed}, "
        f"inputs N(0,1)*{result.input_scale:g}; last column: the same weights without tanh)",
        "  ".join(h.rjust(w) for h, w in zip(head, widths, strict=True)),
    ]
    for row in result.rows:
        cells = [str(row.rho)] + [f"{v:.1e}" for v in row.norms] + [f"{row.linear_norm:.1e}"]
        lines.append("  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)))
    for row in result.rows:
        if row.overflow:
            lines.append(f"rho {row.rho}: {row.overflow} (shown as inf/nan)")
    return "\n".join(lines)
