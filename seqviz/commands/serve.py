"""`seqviz serve`: the same app in a browser, through textual-serve (loopback by default)."""

from __future__ import annotations

import argparse
import shlex
import sys

from seqviz.commands import serve_guard


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="serve the app to a web browser (textual-serve)",
        description="Serve seqviz in a web browser. Each browser tab gets its own app process. "
        "Listens on loopback unless --host says otherwise; only pages from the served addresses "
        "(and --allow-origin) may open sessions.",
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="interface to listen on (default 127.0.0.1; 0.0.0.0: all)")  # fmt: skip
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    p.add_argument("--scene", dest="serve_scene", help="scene each browser session opens on")
    p.add_argument(
        "--set",
        dest="serve_settings",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="scene parameter for each session, e.g. --set rho=1.2 (repeatable)",
    )
    serve_guard.add_options(p)
    p.set_defaults(func=run)


def app_command(scene: str | None, settings: list[str]) -> str:
    """The shell command textual-serve runs for each browser session."""
    parts = [sys.executable, "-m", "seqviz"]
    if scene:
        parts += ["--scene", scene]
    for setting in settings:
        parts += ["--set", setting]
    return shlex.join(parts)


def serve(command: str, args: argparse.Namespace, title: str, what: str = "seqviz") -> int:
    """Serve ``command`` (one app process per browser session) until Ctrl+C or SIGTERM."""
    return serve_guard.serve_guarded(command, args, title, what)


def run(args: argparse.Namespace) -> int:
    from seqviz.scenes import get_scene

    # A bad --scene or --set is one sentence now, not an error page in every browser tab later.
    scene = get_scene(args.serve_scene or "vanishing")
    scene.parse_settings(args.serve_settings)
    command = app_command(args.serve_scene, args.serve_settings)
    return serve(command, args, title="seqviz")
