"""`seqviz serve` attacked: foreign origins and hosts, too many sessions, binds beyond loopback."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import aiohttp
import pytest
from served import free_port

from seqviz.commands.serve_guard import Guard, make_guard, origin_of


@contextlib.contextmanager
def server(*args: str):
    """`python -m seqviz serve ARGS --port P` running until the block ends; yields (port, proc)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "seqviz", "serve", *args, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).close()
                break
            except urllib.error.HTTPError:
                break  # it answers (maybe with a refusal): it is up
            except OSError:
                assert time.monotonic() < deadline, "server never answered"
                time.sleep(0.3)
        yield port, proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(c) for c in text.split()]


def get(port: int, host: str | None = None) -> tuple[int, str]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/")
    if host:
        req.add_header("Host", host)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def ws_status(port: int, origin: str | None, hold: asyncio.Event | None = None,
                    connected: asyncio.Event | None = None) -> int:  # fmt: skip
    """The handshake status of a WebSocket to the server (101 = a session started). With
    ``hold``, a started session stays open until that event is set (and ``connected`` is set
    once it has started): no fixed sleep that a loaded machine could outlast."""
    headers = {"Origin": origin} if origin else {}
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(f"http://127.0.0.1:{port}/ws", headers=headers,
                                          origin=origin) as ws:  # fmt: skip
                if connected is not None:
                    connected.set()
                if hold is not None:
                    await hold.wait()
                await ws.close()
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status
        finally:
            if connected is not None:
                connected.set()  # refused: nothing to wait for


def test_guard_knows_its_hosts_and_origins():
    guard, urls = make_guard("127.0.0.1", 8000, None, ["https://course.example.org/x"], 2)
    assert urls == ["http://127.0.0.1:8000"]
    assert guard.host_ok("127.0.0.1:8000") and guard.host_ok("localhost:8000")
    assert not guard.host_ok("evil.example:8000") and not guard.host_ok(None)
    assert guard.origin_ok("http://localhost:8000") and guard.origin_ok(
        "https://course.example.org"
    )
    assert not guard.origin_ok("http://evil.example") and not guard.origin_ok("null")
    assert not guard.origin_ok("http://127.0.0.1:8001")
    assert origin_of("HTTP://Example.org:80/path") == "http://example.org"
    public, urls = make_guard("0.0.0.0", 8000, "https://lecture.example.org", [], 4)
    assert urls[0] == "https://lecture.example.org" and public.host_ok("lecture.example.org")
    assert public.origin_ok("https://lecture.example.org")
    assert isinstance(public, Guard) and public.host_ok("127.0.0.1:8000")


@pytest.mark.slow
def test_foreign_origins_start_nothing_and_the_cap_holds():
    with server("--max-sessions", "1") as (port, proc):
        own = f"http://127.0.0.1:{port}"
        assert get(port, f"evil.example:{port}")[0] == 403  # DNS rebinding: a foreign Host
        for origin in ["http://evil.example", None, "null", f"http://127.0.0.1:{port + 1}"]:
            assert asyncio.run(ws_status(port, origin)) == 403, origin
        assert children(proc.pid) == []  # no app was spawned for any of them

        async def two_sessions() -> tuple[int, int, tuple[int, str]]:
            hold, connected = asyncio.Event(), asyncio.Event()
            first = asyncio.create_task(ws_status(port, own, hold, connected))
            await asyncio.wait_for(connected.wait(), 120)  # the first browser session is open
            try:
                second = await ws_status(port, f"http://localhost:{port}")
                page = await asyncio.to_thread(get, port)
            finally:
                hold.set()
            return await first, second, page

        first, second, (status, body) = asyncio.run(two_sessions())
        assert first == 101 and second == 503
        assert status == 503 and "seqviz is full" in body and "--max-sessions" in body
        deadline = time.monotonic() + 20
        while get(port)[0] != 200:  # the closed session frees its place
            assert time.monotonic() < deadline
            time.sleep(0.3)


@pytest.mark.slow
def test_binding_everywhere_warns_and_serves_the_address_the_browser_used():
    with server("--host", "0.0.0.0") as (port, proc):
        status, body = get(port)
        assert status == 200
        assert f"ws://127.0.0.1:{port}/ws" in body and "0.0.0.0" not in body
    err = proc.stderr.read().decode()
    out = proc.stdout.read().decode()
    assert "warning: listening on 0.0.0.0" in err and "Traceback" not in err
    assert "http://:" not in out and "http://0.0.0.0" not in out


def test_the_served_page_takes_its_font_from_this_server_not_a_web_service():
    """textual-serve's page links Roboto Mono from a web font service; offline the terminal lost
    it. The link goes, and a local @font-face names the machine's font, else the copy
    textual-serve ships in the static folder this server serves."""
    from pathlib import Path
    from types import SimpleNamespace

    import textual_serve

    from seqviz.commands.serve_guard import SHIPPED_FONT, offline_page

    static = "http://127.0.0.1:8000/static/"
    page = (f'<head><link rel="stylesheet" href="{static}css/xterm.css" />\n'
            '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto%20Mono"'
            ' />\n<style>.intro { font-family: "Roboto Mono", monospace; }</style>')  # fmt: skip
    served = offline_page(SimpleNamespace(text=page)).text
    assert "googleapis" not in served and "https://" not in served
    assert f'url("{static}{SHIPPED_FONT}")' in served and 'local("Roboto Mono")' in served
    shipped = Path(textual_serve.__file__).parent / "static" / SHIPPED_FONT
    assert shipped.is_file()  # the file that URL serves
