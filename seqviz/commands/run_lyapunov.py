"""`seqviz run lyapunov`: the top Lyapunov exponents of a random tanh RNN per spectral radius."""

from __future__ import annotations

import argparse

from seqviz.commands import UsageError
from seqviz.commands.options import add, add_seed, print_json
from seqviz.limits import MAX_HIDDEN, MAX_STEPS, float_option, int_option

HELP = "largest Lyapunov exponents of a random tanh RNN per spectral radius (the edge of chaos)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rho", type=float, nargs="+", default=[0.5, 1.0, 1.5, 2.0], metavar="R",
        help="spectral radii of W_hh (default: 0.5 1 1.5 2)",
    )  # fmt: skip
    add(parser, "--hidden", int_option(1, MAX_HIDDEN), 128, "hidden size d")
    add(parser, "--steps", int_option(1, MAX_STEPS), 500, "steps T")
    add(parser, "--input-scale", float_option(0, 1e6), 0.0, "input std deviation")
    add(parser, "--top", int_option(1, MAX_HIDDEN), 3, "exponents to find by QR")
    add_seed(parser)


def run(args: argparse.Namespace) -> int:
    from seqviz.dynamics.lyapunov import GRAD_STEPS, lyapunov_table

    if args.steps < 10:
        raise UsageError(f"--steps must be at least 10, got {args.steps}.")
    if not 1 <= args.hidden <= 1024:
        raise UsageError(f"--hidden must be from 1 to 1024, got {args.hidden}.")
    if not 1 <= args.top <= args.hidden:
        raise UsageError(f"--top must be from 1 to the hidden size {args.hidden}, got {args.top}.")
    rows = lyapunov_table(args.rho, args.hidden, args.steps, args.input_scale, args.top, args.seed)
    if args.json:
        return print_json({
            "hidden": args.hidden,
            "steps": args.steps,
            "input_scale": args.input_scale,
            "seed": args.seed,
            "grad_steps": GRAD_STEPS,
            "rows": [r.to_dict() for r in rows],
        })  # fmt: skip
    print(
        f"Lyapunov exponents (per step) of h_t = tanh(rho W h_{{t-1}} + x_t), d={args.hidden}, "
        f"T={args.steps}, inputs N(0,1)*{args.input_scale:g}, seed {args.seed}\n"
        f"lambda > 0: nearby states fly apart (chaos); |dL/dh| {GRAD_STEPS} steps back beside it"
    )
    head = ["rho", *(f"lambda_{i + 1}" for i in range(args.top)), f"|grad| k={GRAD_STEPS}",
            "regime"]  # fmt: skip
    print("  ".join(h.rjust(10) for h in head))
    for r in rows:
        regime = "chaotic" if r.exponents[0] > 0 else "ordered"
        cells = [f"{r.rho:g}", *(f"{v:+.3f}" for v in r.exponents), f"{r.grad_norm:.1e}", regime]
        print("  ".join(c.rjust(10) for c in cells))
    return 0
