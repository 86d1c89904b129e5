"""`seqviz demo NAME --serve`: the demo in a browser through textual-serve, on loopback."""

from __future__ import annotations

import sys

import pytest
from served import serve_fetch_stop

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


@pytest.mark.slow
def test_demo_serve_answers_on_loopback_and_stops():
    served = serve_fetch_stop(["demo", "memory", "--serve"])
    assert "LSTM memory and the forget gate" in served.body  # the demo's title names the page
    assert served.returncode == 0
