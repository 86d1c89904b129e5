"""Quitting while a scene switch is in flight ends the app cleanly (exit status 0).

A switch awaits its removals and mounts inside the app's message loop; the command palette's
Quit runs in the palette's own loop and can exit the app in between. The switch then mounted on
a screen being taken down (MountError: can't mount widget(s) before Vertical(id='view-slot') is
mounted) or looked up its widgets there (NoMatches): an internal error instead of a quit.
"""

from __future__ import annotations

import asyncio

import pytest
from test_app_random_keys import send_key

pytestmark = pytest.mark.slow  # app sessions of about a second each


@pytest.mark.parametrize("key", ["2", "9"])
@pytest.mark.parametrize("turns", [0, 1, 6])
async def test_quit_from_outside_the_app_loop_during_a_switch(make_app, key, turns):
    app = make_app("vanishing")
    async with app.run_test(size=(100, 30)) as pilot:
        await app.until_ready()
        await pilot.pause()
        send_key(app, key)
        for _ in range(2000):  # until the switch is under way
            if app._rebuilding:
                break
            await asyncio.sleep(0)
        assert app._rebuilding
        for _ in range(turns):  # into one of its awaits
            await asyncio.sleep(0)
        app.exit()  # what the palette's "Quit the application" does, from the palette's loop
        for _ in range(600):
            if not app.is_running:
                break
            await asyncio.sleep(0.05)
    # run_test raised the app's exception, had it ended with one
    assert app.return_code == 0


SECOND_SWITCH = """
import asyncio, sys
sys.path.insert(0, sys.argv[1])
from test_app_random_keys import send_key
from seqviz.ui.app import SeqvizApp

async def main():
    app = SeqvizApp(scene="vanishing", animate=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.until_ready()
        await pilot.pause()
        send_key(app, "3")  # gates: rows for forget_bias and the rest
        for _ in range(2000):
            if app._rebuilding:
                break
            await asyncio.sleep(0)
        assert app._rebuilding
        app.set_scene("vanishing")  # what the next key does, while the first switch mounts
        await app.until_ready(timeout=30)
        await pilot.pause()
        assert app.scene.name == "vanishing" and app.is_running
        rows = {row.spec.name for row in app.query("ParamRow")}
        assert rows == {spec.name for spec in app.scene.specs if spec.kind != "text"}, rows
    print("ok")

asyncio.run(main())
"""


def test_a_second_switch_during_the_first_gives_each_scene_its_own_values():
    """The second switch's key came while the first's view mounted: the first went on to
    build its parameter rows from the second scene's values (AttributeError, found by the
    random-input test at 80x24). In a process of its own: the interrupted switch leaves the
    app's widgets reachable after it ends, which the test that counts removed widgets in
    this process would see."""
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run([sys.executable, "-c", SECOND_SWITCH, str(Path(__file__).parent)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]
