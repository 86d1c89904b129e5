"""Random keys, mouse and escape garbage and resize bursts, sent as a terminal sends them (through
the driver, at a typist's pace, not waiting for the app), across every scene at 80x24, 100x30
and 160x50: the app never raises and stays usable."""

from __future__ import annotations

import asyncio
import random
import time
import unicodedata

import pytest
from textual import events
from textual.geometry import Size
from textual.keys import _get_unicode_name_from_key

from seqviz.scenes import scene_names

pytestmark = pytest.mark.slow  # a fuzz run: about 20 s at each of three sizes

KEYS = [
    "space", "right", "left", "home", "end", "r", "plus", "minus", "equals_sign",
    "left_square_bracket", "right_square_bracket", "greater_than_sign", "less_than_sign",
    "full_stop", "comma", "tab", "shift+tab", "up", "down", "enter", "escape", "question_mark",
    "a", "x", "m", "q", "backspace", "ctrl+p", "pageup", "pagedown",
]  # fmt: skip
N_KEYS = 900  # at most, per size
TIME_BUDGET = 17.0  # seconds of keys per size (a loaded machine gets through fewer)
MIN_KEYS = 150


def send_key(app, key: str) -> None:
    """What the terminal driver sends for one key, without waiting for the app to handle it
    (Pilot.press waits until the CPU is idle, so no key ever meets work in flight)."""
    try:
        char = unicodedata.lookup(_get_unicode_name_from_key(key))
    except KeyError:
        char = key if len(key) == 1 else None
    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)


def send_bytes(app, parser, text: str) -> None:
    """Raw terminal input (escape sequences, mouse reports), parsed as the driver parses it."""
    for event in parser.feed(text):
        event.set_sender(app)
        app._driver.send_message(event)


def mouse_garbage(rng: random.Random, width: int, height: int) -> str:
    """SGR mouse reports as a terminal sends them: a press, drags, a release, the wheel;
    anywhere on the screen, a cell beyond its edge included."""
    x, y = rng.randint(1, width + 1), rng.randint(1, height + 1)
    button = rng.choice([0, 0, 0, 1, 2])
    out = [f"\x1b[<{button};{x};{y}M"]
    for _ in range(rng.randint(0, 4)):
        x = max(1, x + rng.randint(-6, 6))
        y = max(1, y + rng.randint(-3, 3))
        out.append(f"\x1b[<{32 + button};{x};{y}M")
    if rng.random() < 0.8:
        out.append(f"\x1b[<{button};{x};{y}m")
    if rng.random() < 0.3:
        out.append(f"\x1b[<{rng.choice([64, 65])};{x};{y}M")
    return "".join(out)


ESCAPE_GARBAGE = ["\x1b", "\x1b[", "\x1b[1;5", "\x1b[5~", "\x1b[6~", "\x1bO", "\x1b[A\x1b[B",
                  "\x1b[200~x\x1b[201~", "\x1b[<", "\x1b[<0;", "\x1b]0;t\x07", "\x1b\x1b",
                  "\x1b[99;99R"]  # fmt: skip


def resize(app, width: int, height: int) -> None:
    """A terminal's resize, as the driver reports it (the headless driver's size follows)."""
    size = Size(width, height)
    app._driver._size = size
    app._driver.send_message(events.Resize(size, size))


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (160, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_random_input_never_crashes(make_app, size):
    from textual._xterm_parser import XTermParser

    import seqviz.ui.app  # noqa: F401  (installs the input workarounds)

    width, height = size
    rng = random.Random(1234 + width)
    parser = XTermParser()
    names = scene_names()
    scene_keys = [str(i % 10) for i in range(1, len(names) + 1)]  # 1..9, then 0 for scene 10
    app = make_app("vanishing")
    # A palette or 'q' quit is a way out the user asked for, not a crash: counted, so the input
    # keeps reaching a running app (quitting in the middle of a switch has its own test).
    quits: list[bool] = []
    app.action_quit = lambda: quits.append(True)
    visited: set[str] = set()
    switch = app.set_scene

    def set_scene(name, values=None):  # every scene a key opened, however briefly
        switch(name, values)
        visited.add(app.scene.name)

    app.set_scene = set_scene
    sent = {"keys": 0, "mouse": 0, "escapes": 0, "resizes": 0}

    async def garbage(first: int, count: int) -> None:
        for i in range(first, first + count):
            r = rng.random()
            if i % 10 == 0:  # every scene, in turn, with the rest of the input in between
                # (escapes first: a digit typed into the palette or a text field stays there)
                for key in ["escape", "escape", scene_keys[(i // 10) % len(scene_keys)]]:
                    send_key(app, key)
                sent["keys"] += 3
            elif r < 0.18:
                send_bytes(app, parser, mouse_garbage(rng, width, height))
                sent["mouse"] += 1
            elif r < 0.24:
                send_bytes(app, parser, rng.choice(ESCAPE_GARBAGE))
                sent["escapes"] += 1
            elif r < 0.27:  # a short burst of sizes, as a window dragged by its corner
                for _ in range(rng.randint(2, 5)):
                    resize(app, rng.randint(40, 200), rng.randint(10, 60))
                resize(app, width, height)
                sent["resizes"] += 1
            else:
                send_key(app, rng.choice(KEYS + scene_keys))
                sent["keys"] += 1
            # a typist's pace: the next key arrives while the last one's work is in flight
            await asyncio.sleep(rng.choice([0, 0, 0.002, 0.01, 0.03]))
            # a maximised widget is one the screen has (a scene switch removed it and the
            # screen went on showing it alone: blank, and on a slow machine NoScreen)
            maximised = app.screen_stack[0].maximized
            assert maximised is None or maximised.is_attached, (i, maximised)
            assert app.is_running and app.return_code is None, f"ended after {i + 1} inputs"

    async with app.run_test(size=size) as pilot:
        await app.until_ready()
        start, done = time.monotonic(), 0
        while done < N_KEYS and (done < MIN_KEYS or time.monotonic() - start < TIME_BUDGET):
            await garbage(done, 10)
            done += 10
        # a scene whose key always met a text field (the digit went into it): its key pressed
        # with the focus on nothing, then the same garbage there
        for number, name in zip(scene_keys, names, strict=True):
            if name not in visited:
                send_bytes(app, parser, "\x1b[<0;1;1m")
                await pilot.press("escape", "escape")
                app.screen.set_focus(None)
                await pilot.press(number)
                assert app.scene.name == name
                await garbage(done + 1, 29)  # (not a multiple of 10: no scene turn at first)
                done += 30
        send_bytes(app, parser, "\x1b[<0;1;1m")  # let go of any mouse button still down
        resize(app, width, height)
        await pilot.press("escape", "escape", "escape")
        app.set_scene("vanishing")
        app.reset_params()
        await app.until_ready()
        await pilot.pause()
        focused = app.screen.focused  # the keys go to a widget the screen has
        assert focused is None or focused.is_attached, focused
        assert app.result is not None and app.values == app.scene.defaults()
        assert app.is_running and app.return_code is None
    # run_test raised the app's exception, had it ended with one
    assert visited == set(names), set(names) - visited
    assert sent["mouse"] > 20 and sent["escapes"] > 5 and sent["resizes"] > 3, sent


async def test_a_key_that_arrives_after_the_last_screen_closed_is_dropped(make_app):
    """Quitting while keys still arrive: a key queued behind the last screen's removal has no
    screen to go to (Textual's own handler raised ScreenStackError and ended the run)."""
    from textual import events

    app = make_app("memory")
    async with app.run_test(size=(80, 24)):
        await app.until_ready()
        stack = app._screen_stack  # the app's own list: emptied as a quitting app empties it
        saved = list(stack)
        stack.clear()
        try:
            await app.on_event(events.Key("x", "x"))
        finally:
            stack.extend(saved)
        assert app.is_running
