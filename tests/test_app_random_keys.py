"""Thousands of random key presses across all scenes: the app never raises and stays usable."""

from __future__ import annotations

import random
import unicodedata

import pytest
from textual import events
from textual.keys import _get_unicode_name_from_key

from seqviz.scenes import scene_names

pytestmark = pytest.mark.slow  # 2,000 random keys: a fuzz run

KEYS = [
    "space", "right", "left", "home", "end", "r", "plus", "minus", "equals_sign",
    "left_square_bracket", "right_square_bracket", "greater_than_sign", "less_than_sign",
    "full_stop", "comma", "tab", "shift+tab", "up", "down", "enter", "escape", "question_mark",
    "a", "x", "backspace", "ctrl+p",
]  # fmt: skip
N_KEYS = 2000
SETTLE_EVERY = 50  # keys between full idle waits (Pilot.pause)


def send_key(app, key: str) -> None:
    """What Pilot.press sends for one key. Pilot.press then waits for the CPU to go idle
    (~0.1 s a key here); the test instead waits for the key's messages to be processed."""
    try:
        char = unicodedata.lookup(_get_unicode_name_from_key(key))
    except KeyError:
        char = key if len(key) == 1 else None
    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)


async def test_random_keys_never_crash(make_app):
    rng = random.Random(1234)
    numbers = [str(i) for i in range(1, min(len(scene_names()), 9) + 1)]  # keys 1..9
    pool = KEYS * 2 + numbers  # scene switches often enough to visit every scene
    app = make_app("vanishing")
    # ctrl+p, a letter, enter can pick the palette's "Quit the application": a way out the user
    # asked for, not a crash. Count it instead, so the keys keep reaching a running app.
    quits: list[bool] = []
    app.action_quit = lambda: quits.append(True)
    visited = set()
    async with app.run_test(size=(100, 30)) as pilot:
        await app.until_ready()
        for i in range(N_KEYS):
            send_key(app, rng.choice(pool))
            await pilot._wait_for_screen()
            visited.add(app.scene.name)
            # a maximised widget is one the screen has (a scene switch removed it and the
            # screen went on showing it alone: blank, and on a slow machine NoScreen)
            maximised = app.screen_stack[0].maximized
            assert maximised is None or maximised.is_attached, (i, maximised)
            if i % SETTLE_EVERY == SETTLE_EVERY - 1:
                await pilot.pause()
                # the keys go to a widget the screen has, not one a switch removed
                focused = app.screen.focused
                assert focused is None or focused.is_attached, (i, focused)
        await pilot.press("escape", "escape")
        app.set_scene("vanishing")
        app.reset_params()
        await app.until_ready()
        await pilot.pause()
        assert app.result is not None and app.values == app.scene.defaults()
        assert app.is_running
    assert visited == set(scene_names()[:9])  # the number keys reach the first nine scenes
