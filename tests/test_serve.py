"""`seqviz serve` starts a textual-serve server on loopback, answers, and stops cleanly."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from seqviz.cli import main
from seqviz.commands.serve import app_command


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_answers_on_loopback_and_stops_cleanly():
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "seqviz", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        body = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and body is None:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as resp:
                    assert resp.status == 200
                    body = resp.read().decode()
            except OSError:
                time.sleep(0.3)
        assert body is not None, "server never answered on loopback"
        assert "seqviz" in body  # the page title
        # The page's websocket address points back at loopback, not at another interface.
        assert f"127.0.0.1:{port}" in body
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail("server did not stop within 20 s of SIGTERM")
    assert rc == 0
    assert f"http://127.0.0.1:{port}" in proc.stdout.read().decode()


def test_serve_rejects_bad_port(capsys):
    assert main(["serve", "--port", "70000"]) == 2
    err = capsys.readouterr().err
    assert "port 70000" in err and "1 to 65535" in err


def test_app_command_forwards_scene_and_settings():
    cmd = app_command("vanishing", ["rho=1.2", "steps=100"])
    assert cmd.startswith(sys.executable) or sys.executable in cmd
    assert "-m seqviz --scene vanishing --set rho=1.2 --set steps=100" in cmd
