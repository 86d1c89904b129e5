"""`seqviz demo NAME --serve`: the demo in a browser through textual-serve, on loopback."""

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
from seqviz.commands.demo import demo_command


def test_demo_command_runs_the_script_from_its_file():
    cmd = demo_command("/x/memory.toml", 3, 30.0, "/tmp/shots")
    assert cmd.startswith(sys.executable)
    assert cmd.endswith("-m seqviz demo /x/memory.toml --start 3 --speed 30 --shots /tmp/shots")


def test_bad_port_and_bad_demo_before_serving(capsys):
    assert main(["demo", "memory", "--serve", "--port", "0"]) == 2
    assert "port 0 is out of range" in capsys.readouterr().err
    assert main(["demo", "nope", "--serve"]) == 2
    assert "shipped demos are" in capsys.readouterr().err


def test_demo_serve_answers_on_loopback_and_stops():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "seqviz", "demo", "memory", "--serve", "--port", str(port)],
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
                    body = resp.read().decode()
            except OSError:
                time.sleep(0.3)
        assert body is not None, "server never answered on loopback"
        assert "LSTM memory and the forget gate" in body  # the demo's title names the page
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail("server did not stop within 20 s of SIGTERM")
    assert rc == 0
