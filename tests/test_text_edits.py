"""A text field's edit the app does not have yet wins over the app's writes until Enter or Escape.

An edit: text typed into a parameter's field and not handed to the app (a prompt before Enter, an
empty sentence while retyping). Changing another parameter (a click, a script or Pilot step), a
reset or a scene switch used to refill the field with the app's older text and drop what was
typed."""

from __future__ import annotations

from typing import Any

import pytest
from widget_host import Host

from seqviz.scenes.base import ParamSpec
from seqviz.ui.widgets.controls import ParamChanged, TextParam

pytestmark = pytest.mark.slow  # app sessions of several seconds each

# scene, its text parameter, keys that leave an edit the app does not take, another parameter
FIELDS = [
    ("gates", "text", ["ctrl+u"], ("unit", 3)),  # live: an empty sentence is refused
    ("inside", "text", ["ctrl+u"], ("target", 2)),
    ("tagging", "text", ["ctrl+u"], ("model", "tagger-uni")),
    ("decoding", "prompt", list(" the dog"), ("width", 3)),  # applied on Enter only
    ("decoding", "path", list("/tmp/lm.npz"), ("width", 3)),
]


async def focus_end(app: Any, pilot: Any, name: str) -> Any:
    await app.until_ready()
    await pilot.pause()
    field = app.query_one(f"#param-{name}", TextParam)
    field.focus()
    await pilot.pause()
    field.action_end()
    await pilot.pause()
    return field


@pytest.mark.parametrize(("scene", "name", "keys", "other"), FIELDS)
async def test_an_edit_survives_another_parameter_and_escape_restores(
    make_app, scene, name, keys, other
):
    app = make_app(scene)
    async with app.run_test(size=(160, 50)) as pilot:
        field = await focus_end(app, pilot, name)
        before = getattr(app.values, name)
        await pilot.press(*keys)
        edit = field.value
        assert edit != before
        app.set_param(*other)  # a script step while the edit is held
        await app.until_ready()
        await pilot.pause()
        assert getattr(app.values, other[0]) == other[1]
        assert field.value == edit and getattr(app.values, name) == before
        assert (
            field.edited and field.has_class("-edited") and field.border_subtitle == "not applied"
        )
        await pilot.press("escape")
        await pilot.pause()
        assert field.value == before and not field.edited
        assert not field.has_class("-edited") and not field.border_subtitle
        assert getattr(app.values, name) == before  # restoring sends nothing


async def test_a_typed_prompt_survives_a_click_and_enter_applies_it(make_app):
    app = make_app("decoding")
    async with app.run_test(size=(160, 50)) as pilot:
        field = await focus_end(app, pilot, "prompt")
        await pilot.press(*"the dogs")
        row = app.query_one("#param-width")
        await pilot.click(row, offset=(row.size.width - 2, 0))  # the right arrow: one up
        await app.until_ready()
        await pilot.pause()
        assert app.values.width == 3 and app.values.prompt == ""
        assert field.value == "the dogs" and field.border_subtitle == "not applied"
        field.focus()
        await pilot.pause()
        await pilot.press("enter")
        await app.until_ready()
        await pilot.pause()
        assert app.values.prompt == "the dogs" and field.value == "the dogs"
        assert not field.edited and not field.border_subtitle


async def test_an_edit_wins_over_a_reset_and_a_scene_switch(make_app):
    app = make_app("gates", {"model": "random", "text": "the keys are here"})
    async with app.run_test(size=(160, 50)) as pilot:
        field = await focus_end(app, pilot, "text")
        await pilot.press("ctrl+u", "c")  # the c is sent: the field has no edit
        await app.until_ready()
        await pilot.pause()
        assert app.values.text == "c" and field.value == "c"
        await pilot.press("ctrl+u")
        app.reset_params()  # this very parameter changes under the edit
        await app.until_ready()
        await pilot.pause()
        default = app.scene.spec("text").default
        assert app.values.text == default and field.value == "" and field.edited
        app.set_scene("vanishing")
        await app.until_ready()
        await pilot.pause()
        app.set_scene("gates")
        await app.until_ready()
        await pilot.pause()
        field = app.query_one("#param-text", TextParam)
        assert field.value == "" and field.edited and field.has_class("-edited")
        field.focus()
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert field.value == default and app.values.text == default
        await pilot.press("escape")  # nothing to restore: the key goes on as before
        await pilot.pause()
        assert field.value == default and app.is_running


async def test_text_in_flight_is_not_overwritten_by_its_own_older_echo():
    """A live field (the seq2seq source takes any text, so its only edit is one on its way):
    the app echoes 'ab' and then writes 'ab' again for another parameter's change while 'abc'
    is still on its way; the second write used to drop the 'c'."""
    spec = ParamSpec("source", "source", "text", "", min_length=0, max_length=40)
    field = TextParam(spec, "")
    sent: list[str] = []

    class Recorder(Host):
        def on_param_changed(self, message: ParamChanged) -> None:
            sent.append(message.value)

    async with Recorder(field).run_test() as pilot:
        field.focus()
        await pilot.press(*"abc")
        await pilot.pause()
        assert sent == ["a", "ab", "abc"]
        field.set_value("a")  # echoes
        field.set_value("ab")
        field.set_value("ab")  # another parameter changed; 'abc' not arrived yet
        assert field.value == "abc" and not field.edited
        field.set_value("abc")
        assert field.value == "abc" and not field._sent
        field.set_value("xyz")  # a script step: no edit held, the app's text is shown
        assert field.value == "xyz" and not field.edited
        await pilot.pause()
        assert sent == ["a", "ab", "abc"]  # the app's own text is not sent back


@pytest.mark.parametrize("first", ["", "ab"])
@pytest.mark.parametrize("live", [True, False])
async def test_typing_back_to_the_first_text_is_not_an_edit(live, first):
    spec = ParamSpec("prompt", "prompt", "text", "", min_length=0, max_length=40, live=live)
    sent: list[str] = []

    class Recorder(Host):
        def compose(self) -> Any:
            yield TextParam(spec, first)

        def on_param_changed(self, message: ParamChanged) -> None:
            sent.append(message.value)

    app = Recorder()
    async with app.run_test() as pilot:
        field = app.query_one(TextParam)
        field.focus()
        field.action_end()
        await pilot.press("x")
        await pilot.pause()
        assert field.edited != live
        await pilot.press("backspace")
        await pilot.pause()
        assert field.value == first and not field.edited and not field.border_subtitle
        assert sent == ([first + "x", first] if live else [])


async def test_escape_restores_and_leaves_the_field_and_the_footer_says_so(make_app):
    """Escape neither restored an applied-as-typed field nor left it, so q and the scene numbers
    were typed into it (only Tab got out). Now it restores and leaves; the app's keys work."""
    from seqviz.ui.export import screen_text

    app = make_app("gates", {"model": "random", "text": "the keys are here"})
    async with app.run_test(size=(120, 40)) as pilot:
        field = await focus_end(app, pilot, "text")
        footer = screen_text(app).splitlines()[-1]
        assert "esc restore & leave" in footer, footer
        await pilot.press("ctrl+u")  # an empty sentence is refused: an edit
        await pilot.pause()
        assert field.edited
        await pilot.press("escape")
        await pilot.pause()
        assert field.value == "the keys are here" and not field.has_focus
        assert "restore & leave" not in screen_text(app).splitlines()[-1]
        await pilot.press("1")  # the scene key reaches the app, not the field
        await app.until_ready()
        assert app.scene.name == "vanishing"
        app.set_scene("gates")
        await app.until_ready()
        await pilot.pause()
        field = await focus_end(app, pilot, "text")
        await pilot.press("escape")  # no edit: it leaves all the same
        await pilot.pause()
        assert not field.has_focus and app.values.text == "the keys are here"
