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
    p.add_argument("--verify", action="store_true",
                   help="run the steps that carry claims headless and print each claim's "
                   "measured and published value and verdict, exit")  # fmt: skip
    p.add_argument("--json", action="store_true", help="with --list or --verify: print JSON")
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


def demo_rows() -> list[dict[str, object]]:
    """What `--list --json` prints: each shipped demo and how many claims and questions it has."""
    from seqviz.lecture import demo_names, find_demo

    rows: list[dict[str, object]] = []
    for name in demo_names():
        demo = find_demo(name)
        claims = sum(len(step.claims) for step in demo.steps)
        questions = sum(step.question is not None for step in demo.steps)
        rows.append({"name": name, "title": demo.title, "description": demo.description,
                     "steps": len(demo), "claims": claims, "has_claims": claims > 0,
                     "questions": questions})  # fmt: skip
    return rows


def list_demos() -> list[str]:
    from seqviz.lecture import demo_names, find_demo

    rows = []
    for name in demo_names():
        demo = find_demo(name)
        claims = sum(len(step.claims) for step in demo.steps)
        mark = f" · {claims} claim{'s' * (claims != 1)}" if claims else ""
        rows.append((name, f"{len(demo)} steps{mark}", demo.description or demo.title))
    width = max((len(r[0]) for r in rows), default=0)
    middle = max((len(r[1]) for r in rows), default=0)
    return [f"{name:<{width}}  {steps:<{middle}}  {text}" for name, steps, text in rows]


def run(args: argparse.Namespace) -> int:
    from seqviz.commands import UsageError
    from seqviz.lecture import find_demo

    if args.list:
        if args.json:
            from seqviz.commands.options import print_json

            return print_json(demo_rows())
        print("\n".join(list_demos()))
        return 0
    if not args.demo:
        raise UsageError("give a demo NAME or PATH, or --list to see the shipped demos")
    demo = find_demo(args.demo)  # a malformed script is refused here, before any app starts
    if not 1 <= args.start <= len(demo):
        raise UsageError(f"--start must be a step from 1 to {len(demo)}, not {args.start}")
    if args.speed is not None and not 1 <= args.speed <= 60:
        raise UsageError(f"--speed must be frames per second from 1 to 60, not {args.speed:g}")
    if args.json and not args.verify:
        raise UsageError("--json goes with --list or --verify")
    if args.verify:
        return verify(demo, args.json)
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


def verify(demo: object, as_json: bool) -> int:
    """`seqviz demo NAME --verify`: each claim's measured and published value and verdict. Exit
    code 0 when every claim was measured (✗ is a finding, not a failure), 1 otherwise."""
    import asyncio
    import math

    from seqviz.commands import UsageError
    from seqviz.lecture.runner import verify_demo

    reports = asyncio.run(verify_demo(demo))  # type: ignore[arg-type]
    if not reports:
        raise UsageError(f"demo {demo.name} carries no claims; "  # type: ignore[attr-defined]
                         "see `seqviz demo --list` for the ones that do")  # fmt: skip
    unmeasured = [r for r in reports if not isinstance(r["measured"], float)
                  or not math.isfinite(r["measured"])]  # fmt: skip
    if as_json:
        from seqviz.commands.options import print_json

        print_json(reports)
    else:
        for r in reports:
            print(f"step {r['step']}: {r['line']}")
        held = sum(bool(r["reproduced"]) for r in reports)
        print(f"{demo.name}: {held} of {len(reports)} claims reproduced")  # type: ignore[attr-defined]
    return 1 if unmeasured else 0
