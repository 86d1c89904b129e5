"""`seqviz run fixedpoints`: the fixed points of a trained flip-flop network, classified."""

from __future__ import annotations

import argparse

from seqviz.commands.options import add, add_seed, print_json
from seqviz.limits import int_option

HELP = "fixed points of the trained 3-bit flip-flop RNN: stable memories and the saddles between"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        default="flipflop",
        help="shipped flip-flop model name or .npz path (default flipflop)",
    )
    add(parser, "--starts", int_option(1, 100_000), 512,
        "starting states drawn from trajectories plus noise")  # fmt: skip
    add(parser, "--noise", float, 0.05, "std of the noise added to each start")
    add_seed(parser)


def find(model_name: str, starts: int = 512, noise: float = 0.05, seed: int = 0):  # noqa: ANN201
    """The model and its fixed points, from the states of 16 held-out runs plus noise."""
    import numpy as np

    from seqviz import models
    from seqviz.dynamics import find_fixed_points
    from seqviz.tasks import flipflop as task

    model = models.load(model_name, kind="flipflop")
    runs = task.dataset(10_000 + seed, 16, 200)
    states = np.concatenate([model.run(x) for x in runs.x])  # (16*200, d)
    fixed = find_fixed_points(model.params, starts=states, n_starts=starts, noise=noise, seed=seed)
    return model, fixed


def run(args: argparse.Namespace) -> int:
    from seqviz.commands import UsageError
    from seqviz.dynamics.fixedpoints import q_text

    if args.starts < 1:
        raise UsageError(f"--starts must be at least 1, got {args.starts}.")
    if not args.noise >= 0:
        raise UsageError(f"--noise must be a number >= 0, got {args.noise}.")
    model, fixed = find(args.model, args.starts, args.noise, args.seed)
    rows = []
    for p in fixed.points:
        row = p.to_dict()
        row["output"] = [float(v) for v in model.readout(p.h)]
        rows.append(row)
    if args.json:
        return print_json({
            "model": args.model,
            "hidden": model.hidden,
            "starts": fixed.starts,
            "tolerance": fixed.tolerance,
            "stable": len(fixed.stable),
            "saddles": len(fixed.saddles),
            "points": rows,
        })  # fmt: skip
    print(
        f"Fixed points of {args.model} (tanh RNN, d={model.hidden}, zero input): q(h) = "
        f"|F(h) - h|^2 / 2 minimised from {fixed.starts} noisy trajectory states"
    )
    print(
        f"{len(fixed.stable)} stable, {len(fixed.saddles)} saddles, "
        f"{len(fixed.points) - len(fixed.stable) - len(fixed.saddles)} unstable"
    )
    print(
        f"{'#':>3}  {'kind':<8} {'unstable':>8} {'q':>9} {'top eigenvalue':>18} "
        f"{'|top|':>6}  output"
    )
    for i, (p, row) in enumerate(zip(fixed.points, rows, strict=True), start=1):
        top = p.top_eigenvalue
        eig = f"{top.real:+.3f}{top.imag:+.3f}j"
        out = " ".join(f"{v:+.2f}" for v in row["output"])
        q = q_text(p.q)
        print(f"{i:>3}  {p.kind:<8} {p.n_unstable:>8} {q:>9} {eig:>18} {abs(top):>6.3f}  {out}")
    return 0
