"""Keys and terminals that ended the app: Ctrl+P then PgUp/PgDn, invalid UTF-8, no terminal."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from test_app_random_keys import send_key


@pytest.mark.slow
async def test_page_keys_right_after_ctrl_p(make_app):
    app = make_app("vanishing")
    async with app.run_test(size=(100, 30)) as pilot:
        await app.until_ready()
        for key in ["ctrl+p", "pageup", "ctrl+p", "pagedown", "escape", "ctrl+p", "pagedown"]:
            send_key(app, key)
        await pilot.pause()
        await pilot.pause()
        assert app.is_running and app.return_code is None


@pytest.mark.slow
async def test_e_then_a_scene_key_saves_the_scene_that_was_shown(make_app, ready, tmp_path):
    from seqviz.core import Trace
    from seqviz.ui.export import set_shots_folder

    app = make_app("gradflow", {"steps": 20})
    set_shots_folder(app, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        send_key(app, "e")  # the save's worker starts ...
        send_key(app, "1")  # ... and the next key switches to the vanishing scene at once
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        names = sorted(f.name for f in tmp_path.iterdir())
        assert names and all(n.startswith("gradflow-") for n in names), names
        parts = {n.split("-")[1] for n in names}
        assert parts == {"rnn", "lstm", "gru"}
        for f in tmp_path.iterdir():  # each file holds the cell its name says
            assert Trace.load(f).params.cell == f.name.split("-")[1]
        assert app.scene.name == "vanishing"


def test_a_crash_is_never_exit_status_0(monkeypatch):
    from textual.app import App

    from seqviz.commands import terminal

    monkeypatch.setattr(terminal, "check_terminal", lambda: None)

    class Crashes(App):
        def on_mount(self) -> None:
            raise RuntimeError("boom")

        def run(self, **kw):  # headless: the test has no terminal
            return super().run(headless=True, **kw)

    class Panics(Crashes):
        def on_mount(self) -> None:
            # what Textual's input thread does on undecodable stdin: panic, return_code None
            self.call_later(self.panic, "the input thread failed")

    assert terminal.run_app(Crashes()) == 1
    assert terminal.run_app(Panics()) == 1


@pytest.mark.parametrize("argv", [[], ["demo", "vanishing"], ["--scene", "gates"]])
def test_no_terminal_is_a_sentence_and_a_nonzero_status(argv):
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_DRIVER"}
    proc = subprocess.run([sys.executable, "-m", "seqviz", *argv], stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=60, env=env)  # fmt: skip
    err = proc.stderr.decode()
    assert proc.returncode == 2
    assert err.startswith("seqviz: error: seqviz needs a terminal") and err.count("\n") == 1


def _run_in_pty(argv: list[str], keys: list[bytes], wait: float = 120.0) -> tuple[int, str]:
    """Run seqviz on a pseudo-terminal, type ``keys`` once it draws, then its status and output."""
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child: seqviz on the terminal
        os.environ["COLUMNS"], os.environ["LINES"] = "100", "30"
        os.execv(sys.executable, [sys.executable, "-m", "seqviz", *argv])
    out = bytearray()
    deadline = time.monotonic() + wait

    def read_for(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    out.extend(os.read(fd, 65536))
                except OSError:
                    return

    while b"vanishing" not in out and time.monotonic() < deadline:
        read_for(0.5)
    read_for(3.0)  # the first computation (Numba may compile)
    for key in keys:
        os.write(fd, key)
        read_for(1.0)  # a lone Escape followed at once by q would read as Alt+q
    read_for(2.0)
    status = None
    while time.monotonic() < deadline:
        done, code = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(code)
            break
        read_for(0.2)
    if status is None:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    os.close(fd)
    return (-1 if status is None else status), out.decode("utf-8", "replace")


@pytest.mark.slow
def test_in_a_terminal_bad_utf8_and_page_keys_after_ctrl_p_do_not_end_the_app():
    # A truncated paste (invalid UTF-8), then Ctrl+P with PgUp/PgDn at once, then quit.
    keys = [b"ab\xff\xfe\xc3", b"\x10\x1b[5~\x1b[6~", b"\x1b", b"\x1b", b"q"]
    status, out = _run_in_pty(["--scene", "vanishing"], keys)
    assert "Traceback" not in out and "UnicodeDecodeError" not in out and "KeyError" not in out
    assert status == 0


def test_the_input_workarounds_find_their_textual_internals():
    import importlib

    from seqviz.ui import compat_textual

    compat_textual.install_input_fixes()
    compat_textual.install_input_fixes()  # idempotent: one wrapper, not two
    for owner, attribute in compat_textual.INPUT_INTERNALS:
        module_name, _, cls = owner.rpartition(".")
        try:
            target = getattr(importlib.import_module(module_name), cls)
        except (ImportError, AttributeError):
            target = importlib.import_module(owner)
        assert hasattr(target, attribute), f"{owner}.{attribute} is gone"
    from textual.drivers import linux_driver
    from textual.widgets import OptionList

    assert OptionList._move_page._seqviz_safe
    decode = linux_driver.getincrementaldecoder("utf-8")().decode
    assert decode(b"a\xffb") == "a\ufffdb"
