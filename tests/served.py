"""Run a `seqviz ... serve` command, fetch its page on loopback, then stop it with SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass

import pytest


@dataclass
class Served:
    port: int
    body: str  # the page served at /
    returncode: int  # after SIGTERM
    stdout: str


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_fetch_stop(args: list[str]) -> Served:
    """`python -m seqviz *args --port P`: wait (60 s at most) for its page, then stop it."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "seqviz", *args, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    body = None
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and body is None:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as resp:
                    assert resp.status == 200
                    body = resp.read().decode()
            except OSError:
                time.sleep(0.3)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail("server did not stop within 20 s of SIGTERM")
    assert body is not None, "server never answered on loopback"
    return Served(port, body, rc, proc.stdout.read().decode())
