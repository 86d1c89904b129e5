"""`seqviz serve` starts a textual-serve server on loopback, answers, and stops cleanly."""

from __future__ import annotations

import sys

import pytest
from served import serve_fetch_stop

from seqviz.cli import main
from seqviz.commands.serve import app_command


@pytest.mark.slow
def test_serve_answers_on_loopback_and_stops_cleanly():
    served = serve_fetch_stop(["serve"])
    assert "seqviz" in served.body  # the page title
    # The page's websocket address points back at loopback, not at another interface.
    assert f"127.0.0.1:{served.port}" in served.body
    assert served.returncode == 0
    assert f"http://127.0.0.1:{served.port}" in served.stdout
    # No web font service: a classroom without internet gets the same page.
    assert "googleapis" not in served.body and "gstatic" not in served.body
    assert "https://" not in served.body.split("<body")[0]
    import re  # every address the page loads is this server's own (the font included)

    loads = re.findall(r"""(?:url\(\s*["']?|href\s*=\s*["']|src\s*=\s*["'])(https?://[^"')\s>]+)""",
                       served.body)  # fmt: skip
    assert loads and all(u.startswith(f"http://127.0.0.1:{served.port}/") for u in loads), loads
    assert "RobotoMono" in served.body


def test_serve_rejects_bad_port(capsys):
    assert main(["serve", "--port", "70000"]) == 2
    err = capsys.readouterr().err
    assert "port 70000" in err and "1 to 65535" in err


def test_app_command_forwards_scene_and_settings():
    cmd = app_command("vanishing", ["rho=1.2", "steps=100"])
    assert cmd.startswith(sys.executable) or sys.executable in cmd
    assert "-m seqviz --scene vanishing --set rho=1.2 --set steps=100" in cmd


@pytest.mark.parametrize("argv", [["serve"], ["demo", "memory", "--serve"]])
def test_serve_without_textual_serve_says_how_to_install_it(argv, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "textual_serve", None)  # as if it were not installed
    assert main(argv) == 2
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.err
    assert "textual-serve" in lines[0] and "pip install 'seqviz[serve]'" in lines[0]
    assert "serving" not in out.out  # nothing started
