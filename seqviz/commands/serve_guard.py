"""textual-serve with guards: allowed origins and hosts, a session cap, usable addresses."""

from __future__ import annotations

import argparse
import ipaddress
import os
import re
import socket
import sys
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from seqviz.commands import UsageError
from seqviz.limits import DEFAULT_SESSIONS, ENV_FILE_ROOT, MAX_SESSIONS, int_option, shorten

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
ALL_INTERFACES = ("", "0.0.0.0", "::")


def add_options(p: argparse.ArgumentParser) -> None:
    """The guard options shared by `seqviz serve` and `seqviz demo --serve`."""
    p.add_argument("--max-sessions", type=int_option(1, MAX_SESSIONS), default=DEFAULT_SESSIONS,
                   help=f"browser sessions at once (default {DEFAULT_SESSIONS}, at most "
                   f"{MAX_SESSIONS}; each is an app process of ~200 MB)")  # fmt: skip
    p.add_argument("--allow-origin", action="append", default=[], metavar="URL",
                   help="another web origin allowed to open sessions, e.g. "
                   "https://course.example.org (repeatable; default: only this server's own "
                   "addresses)")  # fmt: skip
    p.add_argument("--public-url", metavar="URL",
                   help="the address browsers use to reach this server, e.g. "
                   "http://lecture-pc.local:8000 (behind a proxy or a name)")  # fmt: skip
    p.add_argument("--allow-files", action="store_true",
                   help="let browser users open and save files inside the folder the server "
                   "was started in (default: sessions open and write no files)")  # fmt: skip


def origin_of(url: str, option: str = "--allow-origin") -> str:
    """ "scheme://host[:port]" of ``url``; UsageError if it is not an http(s) URL."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        parts, port = None, None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"{option} must be an http:// or https:// URL such as https://course.example.org, "
            f"not {shorten(url)}"
        )
    host = parts.hostname
    host = f"[{host}]" if ":" in host else host
    default = 443 if parts.scheme == "https" else 80
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != default else "")


def check_host(host: str, port: int) -> None:
    """One sentence if ``host`` cannot be listened on (malformed, unknown, or port taken)."""
    if not 0 < port < 65536:
        raise UsageError(f"port {port} is out of range; use a number from 1 to 65535")
    if host not in ALL_INTERFACES and not re.fullmatch(r"[A-Za-z0-9.:%_\-]{1,253}", host):
        raise UsageError(
            f"--host must be an IP address or a host name such as 127.0.0.1, not {shorten(host)}"
        )
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)  # fmt: skip
    except (socket.gaierror, UnicodeError) as exc:
        raise UsageError(
            f"--host {shorten(host)} is not an address of this machine ({exc})"
        ) from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as exc:
            raise UsageError(f"cannot listen on {host or '*'}:{port}: {exc.strerror}") from None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def local_addresses() -> list[str]:
    """This machine's non-loopback IPv4 addresses (the primary one first)."""
    found: list[str] = []
    try:  # the address of the default route; a UDP connect sends nothing
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            found.append(s.getsockname()[0])
    except OSError:
        pass
    try:
        found += socket.gethostbyname_ex(socket.gethostname())[2]
    except OSError:
        pass
    return list(dict.fromkeys(a for a in found if not a.startswith("127.")))


@dataclass
class Guard:
    """Who may open a session: the Host names and Origins of the served addresses."""

    port: int
    hosts: set[str] = field(default_factory=set)  # "name:port" as browsers send in Host
    origins: set[str] = field(default_factory=set)  # "http://name:port"
    max_sessions: int = DEFAULT_SESSIONS
    sessions: int = 0

    def add_host(self, name: str, scheme: str = "http", port: int | None = None) -> None:
        port = self.port if port is None else port
        name = f"[{name}]" if ":" in name and not name.startswith("[") else name
        default = 443 if scheme == "https" else 80
        host = name if port == default else f"{name}:{port}"
        self.hosts.add(host.lower())
        self.origins.add(f"{scheme}://{host}".lower())

    def host_ok(self, host: str | None) -> bool:
        return bool(host) and host.lower() in self.hosts  # type: ignore[union-attr]

    def origin_ok(self, origin: str | None) -> bool:
        return bool(origin) and origin.lower().rstrip("/") in self.origins  # type: ignore[union-attr]


def make_guard(host: str, port: int, public_url: str | None, allow: list[str],
               max_sessions: int) -> tuple[Guard, list[str]]:  # fmt: skip
    """The guard for a bind, and the URLs to print for people to open."""
    guard = Guard(port=port, max_sessions=max_sessions)
    if host in ALL_INTERFACES:
        names = [*LOOPBACK_NAMES, *local_addresses(), socket.gethostname(), socket.getfqdn()]
        urls = [f"http://{a}:{port}" for a in local_addresses()]
    else:
        names = [host, *(LOOPBACK_NAMES if is_loopback(host) else ())]
        urls = [f"http://{'[' + host + ']' if ':' in host else host}:{port}"]
    for name in dict.fromkeys(names):
        guard.add_host(name)
    if public_url:
        origin = origin_of(public_url, "--public-url")
        parts = urlsplit(origin)
        guard.add_host(parts.hostname or "", parts.scheme, parts.port or
                       (443 if parts.scheme == "https" else 80))  # fmt: skip
        urls.insert(0, public_url.rstrip("/"))
    for url in allow:
        guard.origins.add(origin_of(url).lower())
    return guard, urls or [f"http://127.0.0.1:{port}"]


def full_page(guard: Guard) -> str:
    return (
        "<!doctype html><title>seqviz is full</title><body style='font-family:sans-serif'>"
        f"<h1>seqviz is full</h1><p>All {guard.max_sessions} sessions of this server are in "
        "use. Close another seqviz tab, or ask the lecturer to restart it with a larger "
        "<code>--max-sessions</code>; then reload this page.</p>"
    )


def refused_page(guard: Guard, host: str | None) -> str:
    known = ", ".join(sorted(guard.hosts))
    return (
        "<!doctype html><title>seqviz: wrong address</title><body style='font-family:sans-serif'>"
        f"<h1>Not served under this name</h1><p>This seqviz server answers to {known}, not "
        f"{shorten(host or '')}. Open one of those, or start it with --public-url.</p>"
    )


# textual-serve's page links a web font; a classroom without internet must get the same page, so
# the link goes. The font it names (Roboto Mono) comes from the machine or, else, from the copy
# textual-serve ships in its static folder, served by this server; the browser's monospace last.
WEB_FONT = re.compile(r"<link[^>]*fonts\.(?:googleapis|gstatic)\.com[^>]*>\s*", re.IGNORECASE)
STATIC = re.compile(r'href="([^"]*)css/xterm\.css"')  # the page's static folder, as it links it
SHIPPED_FONT = "fonts/RobotoMono-VariableFont_wght.ttf"


def local_font(static: str) -> str:
    """A style naming Roboto Mono on the machine, else the server's own copy under ``static``."""
    return ('<style>@font-face { font-family: "Roboto Mono"; src: local("Roboto Mono"), '
            f'url("{static}{SHIPPED_FONT}") format("truetype"); font-weight: 100 700; }}'
            "</style>\n")  # fmt: skip


def offline_page(response: Any) -> Any:
    """The index response without links to web font services (the font from this server)."""
    text = getattr(response, "text", None)
    if isinstance(text, str) and WEB_FONT.search(text):
        static = STATIC.search(text)
        style = local_font(static.group(1)) if static else ""
        response.text = WEB_FONT.sub(lambda _m: style, text, count=1)
        response.text = WEB_FONT.sub("", response.text)
    return response


def build_server(command: str, host: str, port: int, title: str, guard: Guard,
                 public_url: str | None) -> Any:  # fmt: skip
    """A textual-serve Server whose index and WebSocket check the guard first."""
    from aiohttp import web
    from textual_serve.server import Server

    class GuardedServer(Server):  # type: ignore[misc]
        async def on_startup(self, app: web.Application) -> None:
            pass  # textual-serve would print the bind address (http://0.0.0.0:...), not usable

        async def handle_index(self, request: web.Request) -> Any:
            if not guard.host_ok(request.host):
                return web.Response(status=403, text=refused_page(guard, request.host),
                                    content_type="text/html")  # fmt: skip
            if guard.sessions >= guard.max_sessions:
                return web.Response(status=503, text=full_page(guard), content_type="text/html")
            # The page's WebSocket URL must be the address this browser used (a bind on
            # 0.0.0.0 has no single one): the Host header, already checked against the guard.
            self.public_url = public_url or f"{request.scheme}://{request.host}"
            return offline_page(await super().handle_index(request))

        async def handle_websocket(self, request: web.Request) -> Any:
            origin = request.headers.get("Origin")
            if not guard.origin_ok(origin) or not guard.host_ok(request.host):
                # Before any app process: a page on another site must not start sessions.
                return web.Response(status=403, text=f"origin {shorten(origin or '')} refused")
            if guard.sessions >= guard.max_sessions:
                return web.Response(status=503, text=full_page(guard), content_type="text/html")
            guard.sessions += 1
            try:
                return await super().handle_websocket(request)
            finally:
                guard.sessions -= 1

    return GuardedServer(command, host=host, port=port, title=title, public_url=public_url)


def require_textual_serve() -> None:
    """UsageError in one sentence when the optional textual-serve package is not installed."""
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        raise UsageError(
            "serving in a browser needs the textual-serve package, which is not installed; "
            "install it with: pip install 'seqviz[serve]'"
        ) from None


def serve_guarded(command: str, args: argparse.Namespace, title: str, what: str) -> int:
    """Serve ``command`` (one app process per browser session) with the guard options in args."""
    require_textual_serve()
    host, port = args.host, args.port
    check_host(host, port)
    guard, urls = make_guard(host, port, args.public_url, args.allow_origin, args.max_sessions)
    # Each session's app reads this (seqviz.limits.confine): the start folder, or "" = no files.
    os.environ[ENV_FILE_ROOT] = os.getcwd() if args.allow_files else ""
    if host in ALL_INTERFACES or not is_loopback(host):
        print(
            f"seqviz: warning: listening on {host or 'every interface'}, so other machines can "
            "open sessions; only browsers on the addresses below are let in.",
            file=sys.stderr,
            flush=True,
        )
    server = build_server(command, host, port, title, guard, args.public_url)
    files = f"files inside {os.getcwd()}" if args.allow_files else "no files"
    print(f"seqviz: serving {what} on {' '.join(urls)} (at most {guard.max_sessions} sessions, "
          f"{files}; Ctrl+C stops)", flush=True)  # fmt: skip
    server.serve()
    return 0
