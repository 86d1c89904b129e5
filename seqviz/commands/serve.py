"""`seqviz serve`: the same app in a browser, through textual-serve (loopback by default)."""

from __future__ import annotations

import argparse
import shlex
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="serve the app to a web browser (textual-serve)",
        description="Serve seqviz in a web browser. Each browser tab gets its own app process. "
        "Listens on loopback unless --host says otherwise.",
    )
    p.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
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
    p.set_defaults(func=run)


def app_command(scene: str | None, settings: list[str]) -> str:
    """The shell command textual-serve runs for each browser session."""
    parts = [sys.executable, "-m", "seqviz"]
    if scene:
        parts += ["--scene", scene]
    for setting in settings:
        parts += ["--set", setting]
    return shlex.join(parts)


def serve(command: str, host: str, port: int, title: str, what: str = "seqviz") -> int:
    """Serve ``command`` (one app process per browser session) until Ctrl+C or SIGTERM."""
    if not 0 < port < 65536:
        raise ValueError(f"port {port} is out of range; use a number from 1 to 65535")
    from textual_serve.server import Server

    server = Server(command, host=host, port=port, title=title)
    print(f"seqviz: serving {what} on http://{host}:{port} (Ctrl+C stops)", flush=True)
    server.serve()
    return 0


def run(args: argparse.Namespace) -> int:
    command = app_command(args.serve_scene, args.serve_settings)
    return serve(command, args.host, args.port, title="seqviz")
