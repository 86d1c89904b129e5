"""`seqviz screenshot`: render a scene headless at a chosen frame and save it as SVG (slides)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from seqviz.commands import UsageError


def parse_size(text: str) -> tuple[int, int]:
    """ "160x50" -> (160, 50); UsageError unless both are in a terminal's range."""
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not match:
        raise UsageError(f"--size must be WIDTHxHEIGHT such as 160x50, not {text!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if not (20 <= width <= 500 and 8 <= height <= 200):
        raise UsageError(f"--size must be from 20x8 to 500x200, not {width}x{height}")
    return width, height


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "screenshot",
        help="save a scene as an SVG image, headless (for slides)",
        description="Open a scene without a terminal, compute it with the given parameters, move "
        "to a frame and write the screen as SVG. Convert to PNG with e.g. rsvg-convert.",
    )
    p.add_argument("--scene", default="vanishing", help="scene name or number (default vanishing)")
    p.add_argument("--set", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                   help="scene parameter, e.g. --set rho=1.2 (repeatable)")  # fmt: skip
    p.add_argument("--frame", type=int, default=None,
                   help="animation frame to show (0 = nothing yet; default: the last)")  # fmt: skip
    p.add_argument(
        "--demo",
        metavar="NAME|PATH",
        help="shoot a step of a demo instead (with its caption), see seqviz demo",
    )
    p.add_argument("--step", type=int, default=1, help="with --demo: the step (default 1)")
    p.add_argument("--state", metavar="STRING", help="shoot the screen a state string names "
                   "(see seqviz state) instead")  # fmt: skip
    p.add_argument("--size", default="160x50", help="terminal size WIDTHxHEIGHT (default 160x50)")
    p.add_argument("--out", required=True, metavar="FILE.svg", help="file to write")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from seqviz.scenes import get_scene

    size = parse_size(args.size)
    out = Path(args.out)
    if out.suffix.lower() != ".svg":
        raise UsageError(f"--out must name an .svg file, not {out.name!r}")
    if not (out.parent if str(out.parent) else Path(".")).is_dir():
        raise UsageError(f"the folder of --out, {out.parent}, does not exist")
    if args.frame is not None and args.frame < 0:
        raise UsageError(f"--frame must be 0 or more, not {args.frame}")
    if args.state:
        from seqviz.lecture.state import open_app
        from seqviz.scenes.state import read

        if args.demo or args.settings:
            raise UsageError("--state goes without --demo and --set: it names scene and values")
        app: Any = open_app(read(args.state), animate=False)
    elif args.demo:
        from seqviz.lecture import find_demo
        from seqviz.lecture.runner import DemoApp

        if args.settings:
            raise UsageError("--set does not go with --demo; the demo's step sets the values")
        demo = find_demo(args.demo)
        if not 1 <= args.step <= len(demo):
            raise UsageError(
                f"--step must be from 1 to {len(demo)} for {demo.name}, not {args.step}"
            )
        app = DemoApp(demo, start=args.step, animate=False)
    else:
        from seqviz.scenes import get_scene
        from seqviz.ui.app import SeqvizApp

        scene = get_scene(str(args.scene))
        values = scene.parse_settings(args.settings)
        app = SeqvizApp(scene=scene.name, values=asdict(values), animate=False)
    print(take(app, out, frame=args.frame, size=size))
    return 0


def take(app: Any, out: Path, *, frame: int | None = None,
         size: tuple[int, int] = (160, 50)) -> Path:  # fmt: skip
    """Run ``app`` headless until its values are drawn, move to ``frame``, save it to ``out``."""
    from seqviz.ui.export import save_screenshot

    problem: list[str] = []

    async def shoot(pilot: Any) -> None:
        await app.until_ready(timeout=300)
        await app.workers.wait_for_complete()  # a demo step's actions run in a worker
        if app.playing:
            app.end()
        error = getattr(app, "_error", "")
        if error:
            problem.append(
                f"the {app.scene.name} scene could not be computed with these values ({error})"
            )
        elif frame is not None and frame > app.n_frames:
            problem.append(
                f"--frame must be from 0 to {app.n_frames} for these values, not {frame}"
            )
        else:
            if frame is not None:
                app.seek(frame)
            await pilot.pause()
            await pilot.pause()
            save_screenshot(app, out)
        app.exit()

    app.run(headless=True, size=size, auto_pilot=shoot)
    if problem:
        raise UsageError(problem[0])
    if not out.exists():
        raise UsageError(f"the screenshot was not written to {out}")
    return out
