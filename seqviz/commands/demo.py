"""`seqviz demo`: run a lecture script (a shipped demo or a TOML file) in the app, like slides."""

from __future__ import annotations

import argparse
from pathlib import Path

from seqviz.commands.serve_guard import add_options


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "demo",
        help="run a scripted lecture demo (PgDn/n next step, PgUp/N back)",
        description="Run a demo: a TOML script of steps (scene, parameter values, actions and a "
        "caption). PgDn or n goes to the next step, PgUp or N back; everything else works as in "
        "the app. The script is checked before the app starts.",
    )
    p.add_argument("demo", nargs="?", metavar="NAME|PATH",
                   help="a shipped demo (see --list) or a .toml file")  # fmt: skip
    p.add_argument("--list", action="store_true", help="list the shipped demos and exit")
    p.add_argument("--start", type=int, default=1, help="step to open on (default 1)")
    p.add_argument("--speed", type=float, default=None,
                   help="animation frames per second, 1 to 60 (default: each scene's own pace, "
                   "20; the decoding tree 1.5)")  # fmt: skip
    p.add_argument("--shots", metavar="DIR",
                   help="folder for the screenshot (s) and trace (e) keys")  # fmt: skip
    p.add_argument("--check", action="store_true",
                   help="run every step headless, check its expected numbers, exit")  # fmt: skip
    p.add_argument("--large-captions", action="store_true",
                   help="presenter style: roomy, high-contrast captions (c toggles)")  # fmt: skip
    p.add_argument("--size", action="append", metavar="WxH",
                   help="with --check: terminal size, repeatable (default 100x30, 120x40 and "
                   "160x50)")  # fmt: skip
    p.add_argument("--serve", action="store_true",
                   help="serve the demo to a web browser instead (textual-serve)")  # fmt: skip
    p.add_argument("--host", default="127.0.0.1", help="with --serve: interface (default loopback)")
    p.add_argument("--port", type=int, default=8000, help="with --serve: TCP port (default 8000)")
    add_options(p)
    p.set_defaults(func=run)


def demo_command(path: str, start: int, speed: float | None, shots: str | None = None) -> str:
    """The shell command textual-serve runs for each browser session of a demo."""
    import shlex
    import sys

    parts = [sys.executable, "-m", "seqviz", "demo", path, "--start", str(start)]
    parts += (["--speed", f"{speed:g}"] if speed is not None else []) + (
        ["--shots", shots] if shots else []
    )
    return shlex.join(parts)


def list_demos() -> list[str]:
    from seqviz.lecture import demo_names, find_demo

    rows = []
    for name in demo_names():
        demo = find_demo(name)
        rows.append((name, f"{len(demo)} steps", demo.description or demo.title))
    width = max((len(r[0]) for r in rows), default=0)
    return [f"{name:<{width}}  {steps:>8}  {text}" for name, steps, text in rows]


def run(args: argparse.Namespace) -> int:
    from seqviz.commands import UsageError
    from seqviz.lecture import find_demo

    if args.list:
        print("\n".join(list_demos()))
        return 0
    if not args.demo:
        raise UsageError("give a demo NAME or PATH, or --list to see the shipped demos")
    demo = find_demo(args.demo)  # a malformed script is refused here, before any app starts
    if not 1 <= args.start <= len(demo):
        raise UsageError(f"--start must be a step from 1 to {len(demo)}, not {args.start}")
    if args.speed is not None and not 1 <= args.speed <= 60:
        raise UsageError(f"--speed must be frames per second from 1 to 60, not {args.speed:g}")
    if args.check:
        import asyncio

        from seqviz.commands.screenshot import parse_size
        from seqviz.lecture.runner import SIZES, check_demo

        sizes = [parse_size(text) for text in args.size] if args.size else list(SIZES)
        problems = asyncio.run(check_demo(demo, sizes))
        for problem in problems:
            print(problem)
        shown = ", ".join(f"{w}x{h}" for w, h in sizes)
        print(
            f"{demo.name}: {len(demo)} steps at {shown}, "
            + ("all expected values shown" if not problems else f"{len(problems)} problem(s)")
        )
        return 1 if problems else 0
    if args.serve:
        from seqviz.commands.serve import serve

        if args.shots and not args.allow_files:
            raise UsageError("--shots with --serve needs --allow-files: the sessions write there")
        if args.shots and not Path(args.shots).resolve().is_relative_to(Path.cwd().resolve()):
            raise UsageError(f"--shots with --serve must be a folder inside {Path.cwd()}")

        # Each browser session runs the script from the file, so a shipped demo goes by its path.
        command = demo_command(str(Path(demo.path).resolve()), args.start, args.speed, args.shots)
        return serve(command, args, title=f"seqviz · {demo.title}", what=f"demo {demo.name}")
    from seqviz.commands.terminal import check_terminal, run_app

    check_terminal()
    from seqviz.lecture.runner import DemoApp
    from seqviz.ui.export import set_shots_folder

    app = DemoApp(demo, start=args.start, speed=args.speed, large_captions=args.large_captions)
    if args.shots:
        set_shots_folder(app, args.shots)
    return run_app(app)
