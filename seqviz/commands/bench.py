"""`seqviz bench`: time full traces against the NumPy reference and PyTorch, as ratios."""

from __future__ import annotations

import argparse
import sys

from seqviz.commands import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "bench",
        help="time seqviz's traces against NumPy and PyTorch",
        description="Time a full trace (forward with every gate, BPTT to every step) per cell "
        "for several sizes, side by side with the NumPy reference and, when installed, PyTorch "
        "(a step loop that keeps every gate and dL/dh_t, and the fused nn.* forward+backward).",
    )
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument(
        "--quick",
        action="store_true",
        help="fewer repeats and only the small sizes (with --ui: a 300-frame memory check, one "
        "warm launch, and the cold launch timed to its usable frame only)",
    )
    p.add_argument(
        "--ui",
        action="store_true",
        help="benchmark the app's drawing instead: each scene's frame rate as a ratio of "
        "Textual's full-screen repaint, on replay (frames drawn before) and on a first play "
        "(each frame's first pass after a parameter change)",
    )
    p.add_argument(
        "--scene",
        action="append",
        metavar="NAME",
        help="with --ui: measure only this scene (repeat for several); the launch is not timed",
    )
    p.add_argument(
        "--decoding",
        action="store_true",
        help="benchmark one width-8 beam step on the shipped LM instead (NumPy, PyTorch beside)",
    )
    p.add_argument(
        "--training",
        action="store_true",
        help="benchmark training updates per second (hidden 32, lag 20, batch 32) against a "
        "PyTorch loop doing the same updates instead",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.ui:
        try:
            from seqviz.bench.ui import run_ui_bench
        except ModuleNotFoundError as exc:
            if exc.name != "seqviz.bench.ui":
                raise
            raise UsageError("this installation has no UI benchmark (seqviz.bench.ui).") from None
        scenes = tuple(args.scene) if args.scene else None
        from seqviz.scenes import scene_names

        for name in scenes or ():
            if name not in scene_names():
                raise UsageError(f"unknown scene {name!r}; the scenes are "
                                 f"{', '.join(scene_names())}")  # fmt: skip
        from seqviz.bench.ui import BenchStopped

        try:
            return int(run_ui_bench(json=args.json, quick=args.quick, scenes=scenes) or 0)
        except BenchStopped as exc:  # a stage stalled or its scene failed: one sentence
            print(f"seqviz: error: {exc}", file=sys.stderr)
            return 1
    if args.scene:
        raise UsageError("--scene selects scenes of the UI benchmark: use it with --ui")
    if args.training:
        import json

        from seqviz.training import bench as training_bench

        result = training_bench.bench_training(quick=args.quick)
        text = training_bench.format_report(result)
        print(json.dumps(result, indent=2) if args.json else text)
        return 0
    if args.decoding:
        import json

        from seqviz.bench.decoding import bench_decoding, format_report

        result = bench_decoding()
        print(json.dumps(result, indent=2) if args.json else format_report(result))
        return 0
    import os
    import subprocess

    # A fresh interpreter with one BLAS thread: the comparison is per core (seqviz's kernels are
    # serial), and the thread count is read when the BLAS library loads, which may have happened
    # in this process already.
    env = dict(os.environ)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    argv = [sys.executable, "-m", "seqviz.bench.traces"]
    argv += ["--json"] if args.json else []
    argv += ["--quick"] if args.quick else []
    return subprocess.run(argv, env=env, check=False).returncode
