"""Thousands of random key presses across scenes 1-4: the app never raises and stays usable."""

from __future__ import annotations

import random

from seqviz.scenes import scene_names

KEYS = [
    "space", "right", "left", "home", "end", "r", "plus", "minus", "equals_sign",
    "left_square_bracket", "right_square_bracket", "greater_than_sign", "less_than_sign",
    "full_stop", "comma", "tab", "shift+tab", "up", "down", "enter", "escape", "question_mark",
    "a", "x", "backspace", "ctrl+p",
]  # fmt: skip
N_KEYS = 2000


async def test_random_keys_never_crash(make_app):
    rng = random.Random(1234)
    numbers = [str(i) for i in range(1, len(scene_names()) + 1)]
    # Scenes 1-4; faster-than-human key bursts (no wait between keys) can hang Textual's
    # screen pop while the help screen is being removed, so keys go through Pilot.press.
    numbers = numbers[:4]
    pool = KEYS * 2 + numbers  # scene switches often enough to visit every scene
    app = make_app("vanishing")
    visited = set()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.until_ready()
        for _ in range(N_KEYS):
            await pilot.press(rng.choice(pool))
            visited.add(app.scene.name)
        await pilot.press("escape", "escape")
        app.set_scene("vanishing")
        app.reset_params()
        await app.until_ready()
        await pilot.pause()
        assert app.result is not None and app.values == app.scene.defaults()
        assert app.is_running
    assert visited == set(scene_names()[:4])
