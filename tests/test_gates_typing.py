"""The gates text field at a typist's pace: keys arrive while live recomputes are in flight."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from textual import events

pytestmark = pytest.mark.slow  # app sessions of several seconds each

# (key, character) as a terminal's input thread delivers them
KEYS = {" ": ("space", " "), "ctrl+u": ("ctrl+u", None), "backspace": ("backspace", None)}


async def type_keys(app: Any, keys: list[str], seed: int, low=0.01, high=0.06) -> None:
    """Send each key the way the terminal driver does, with a real pause of ``low``..``high``
    seconds between keys. Neither Pilot.press nor Pilot.pause will do: both first wait until
    every widget has handled its messages, so the next key never meets a recompute's messages
    still in flight, which is what a typist's next key does (the bug passed such a test)."""
    rnd = random.Random(seed)
    for key in keys:
        name, char = KEYS.get(key, (key, key))
        event = events.Key(name, char)
        event.set_sender(app)
        app._driver.send_message(event)
        await asyncio.sleep(rnd.uniform(low, high))


async def settled(app: Any, pilot: Any) -> None:
    """Wait until no recompute is pending and the field and the app agree for a while."""
    for _ in range(40):
        await pilot.pause(0.1)
        if app._generation == app._shown_generation:
            break
    await app.until_ready(timeout=10)
    await pilot.pause(0.2)


async def start(pilot: Any, app: Any) -> Any:
    await app.until_ready()
    await pilot.pause()
    field = app.query_one("#param-text")
    field.focus()
    await pilot.pause()  # focusing selects the whole text: typing would replace it
    field.action_end()
    await pilot.pause()
    assert field.cursor_position == len(field.value) and not field.selected_text
    return field


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    ("model", "typed"),  # a word model meets unknown words while a word is half typed
    [("random", " and the dogs"), ("agreement", " with the dogs")],
)
async def test_text_typed_at_speed_ends_as_typed(make_app, model, typed, seed):
    app = make_app("gates", {"model": model, "text": "the keys are here"})
    async with app.run_test(size=(160, 50)) as pilot:
        field = await start(pilot, app)
        await type_keys(app, list(typed), seed)
        await settled(app, pilot)
        assert field.value == "the keys are here" + typed
        assert not app._error
        assert app.values.text == field.value
        assert app.result.text == field.value  # the result is the final text's, not a stale one
        assert app._shown_generation == app._generation  # no "computing…" left behind
        assert "computing" not in str(app.query_one("#status").render())
        generation = app._generation
        await pilot.pause(0.5)
        assert app._generation == generation  # nothing recomputes on its own afterwards


@pytest.mark.slow
async def test_ctrl_u_edits_are_kept_at_speed(make_app):
    app = make_app("gates", {"model": "random", "text": "the keys are here"})
    async with app.run_test(size=(160, 50)) as pilot:
        field = await start(pilot, app)
        keys = [*" and more", "ctrl+u", *"dogs bark", "ctrl+u", *"cats"]
        await type_keys(app, keys, seed=3, low=0.01, high=0.04)
        await settled(app, pilot)
        assert field.value == "cats"
        assert app.values.text == "cats" and app.result.text == "cats"


@pytest.mark.slow
@pytest.mark.parametrize("edit", ["ctrl+u", "backspace"])
async def test_an_editing_key_takes_effect_before_the_next_key(make_app, edit):
    """An editing key (a binding of the field, not a character) followed at once by a character:
    a loaded machine hands the terminal's keys to the app back to back. Textual runs a widget's
    bindings only when the key has bubbled up to the app, by which time the field has already
    inserted the next character: ctrl+u then 'c' left '' (the 'c' deleted), backspace then 'c'
    deleted the 'c' instead of the character before it."""
    app = make_app("gates", {"model": "random", "text": "the keys are here"})
    async with app.run_test(size=(160, 50)) as pilot:
        field = await start(pilot, app)
        for key in [edit, "c"]:  # no pause between them: both wait in the app's queue
            name, char = KEYS.get(key, (key, key))
            event = events.Key(name, char)
            event.set_sender(app)
            app._driver.send_message(event)
        await settled(app, pilot)
        expected = {"ctrl+u": "c", "backspace": "the keys are herc"}[edit]
        assert field.value == expected
        assert app.values.text == expected and app.result.text == expected
