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
