"""`seqviz state`: the short string that reopens a scene with its parameters (and a demo step)."""

from __future__ import annotations

import argparse

from seqviz.commands import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "state",
        help="print a short state string that reopens a scene exactly (seqviz --state STRING)",
        description="Print a state string (at most 200 characters) for a scene, the parameters "
        "that differ from its defaults and optionally a demo step. Open it with `seqviz --state "
        "STRING`, `seqviz screenshot --state STRING` or the palette ('state STRING').",
    )
    p.add_argument("--scene", default=None, help="scene name or number (default vanishing)")
    p.add_argument("--set", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                   help="scene parameter, e.g. --set rho=1.2 (repeatable)")  # fmt: skip
    p.add_argument("--demo", metavar="NAME", help="a shipped demo: the state opens its step")
    p.add_argument("--step", type=int, default=None, help="with --demo: the step (default 1)")
    p.add_argument("--show", metavar="STRING|FILE.svg",
                   help="instead: say what a state string (or a screenshot's) opens")  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from seqviz.scenes import get_scene
    from seqviz.scenes import state as states

    if args.show is not None:
        if args.scene or args.settings or args.demo or args.step is not None:
            raise UsageError("--show goes alone: it reads a state instead of making one")
        print(states.describe(states.read(args.show)))
        return 0
    if args.step is not None and not args.demo:
        raise UsageError("--step needs --demo NAME")
    scene_name, step = args.scene, None
    if args.demo:
        from seqviz.lecture import demo_names, find_demo

        if args.demo not in demo_names():
            raise UsageError(f"--demo must be a shipped demo ({', '.join(demo_names())}), "
                             f"not {args.demo!r}")  # fmt: skip
        demo = find_demo(args.demo)
        step = args.step if args.step is not None else 1
        if not 1 <= step <= len(demo):
            raise UsageError(f"--step must be from 1 to {len(demo)} for {demo.name}, not {step}")
        shown = demo.steps[step - 1]
        if scene_name is not None and get_scene(scene_name).name != shown.scene:
            raise UsageError(f"step {step} of {demo.name} shows the {shown.scene} scene, "
                             f"not {scene_name}")  # fmt: skip
        scene = get_scene(shown.scene)
        values = scene.parse_settings(args.settings, scene.make(shown.values))
    else:
        scene = get_scene(scene_name or "vanishing")
        values = scene.parse_settings(args.settings)
    print(states.state_of(scene.name, asdict(values), args.demo, step))
    return 0
