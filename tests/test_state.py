"""State strings: round trips for every scene, refusal of cut or edited strings, the commands,
the SVG metadata and the app's key and palette."""

from __future__ import annotations

import base64
import random
import string
import zlib
from dataclasses import asdict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from seqviz.cli import main
from seqviz.lecture import find_demo
from seqviz.lecture.state import open_app
from seqviz.scenes import get_scene, scene_names
from seqviz.scenes import state as states
from seqviz.scenes.state import MAX_LENGTH, State, StateError, decode, encode
from seqviz.ui.share import app_state


def svg_text(path) -> str:
    """All text drawn in an SVG screenshot (Rich writes spaces as no-break spaces)."""
    import xml.etree.ElementTree as ET

    root = ET.parse(path).getroot()
    texts = root.iter("{http://www.w3.org/2000/svg}text")
    return " ".join("".join(el.itertext()) for el in texts).replace("\xa0", " ")


NOISE = "".join(random.Random(1).choices(string.ascii_letters, k=300))  # does not compress
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=60)


def value_of(spec):
    """A strategy for the allowed values of one parameter."""
    if spec.kind == "choice":
        return st.sampled_from(spec.choices)
    if spec.kind == "int":
        return st.integers(int(spec.min), int(spec.max))
    if spec.kind == "float":
        return st.floats(spec.min, spec.max, allow_nan=False)
    return TEXT.filter(lambda t: spec.min_length <= len(t) <= spec.max_length)


def changes_of(scene):
    """Up to four of the scene's parameters, each set to an allowed value."""
    return st.lists(st.sampled_from(scene.specs), unique_by=lambda s: s.name, max_size=4).flatmap(
        lambda chosen: st.fixed_dictionaries({spec.name: value_of(spec) for spec in chosen})
    )


@pytest.mark.parametrize("name", scene_names())
@given(data=st.data())
def test_every_scene_round_trips_over_its_parameters(name, data):
    scene = get_scene(name)
    changes = data.draw(changes_of(scene))
    values = asdict(scene.make(changes))
    try:
        text = encode(State(scene.name, values))
    except StateError as exc:
        assert "more than the 200" in str(exc)
        assert any(isinstance(v, str) and len(v) > 30 for v in changes.values())
        return
    assert len(text) <= MAX_LENGTH and text.startswith("sv1")
    back = decode(text)
    assert back.scene == scene.name and back.values == values
    assert back.demo is None and back.step is None


@pytest.mark.parametrize("name", scene_names())
def test_defaults_make_the_shortest_string(name):
    text = encode(State(name, {}))
    assert len(text) < 40
    assert decode(text).values == asdict(get_scene(name).defaults())


def test_only_changed_values_are_written():
    defaults = asdict(get_scene("dynamics").defaults())
    full = decode(encode(State("dynamics", defaults | {"hidden": 32}))).values
    assert full == defaults | {"hidden": 32}
    assert "hidden=32" in states.describe(decode(encode(State("dynamics", full))))
    assert "--set" not in states.describe(decode(encode(State("dynamics", defaults))))


def test_demo_step_round_trips():
    text = encode(State("dynamics", {"mode": "chaos"}, "dynamics", 5))
    back = decode(text)
    assert (back.demo, back.step, back.values["mode"]) == ("dynamics", 5, "chaos")


def test_every_single_character_change_is_refused():
    text = encode(State("memory", {"forget_bias": 3.5, "steps": 200}))
    alphabet = "AbZ09-_q"
    for i in range(len(text)):
        for c in alphabet:
            if c == text[i]:
                continue
            edited = text[:i] + c + text[i + 1 :]
            with pytest.raises(StateError):
                decode(edited)
    for cut in range(len(text)):
        with pytest.raises(StateError):
            decode(text[:cut])


def _forge(payload: str) -> str:
    """A string with a correct checksum around any payload (what a tamperer could make)."""
    body = b"r" + payload.encode()
    crc = zlib.crc32(b"sv1" + body).to_bytes(4, "big")
    return "sv1" + base64.urlsafe_b64encode(body + crc).decode().rstrip("=")


@pytest.mark.parametrize(
    "payload, message",
    [
        ("memory&w=9", "w must be a number from 0.00 to 3.00"),
        ("memory&rho=1", "scene memory has no parameter 'rho'"),
        ("memory&w=__import__('os')", "w must be a number"),
        ("nowhere", "unknown scene"),
        ("memory&w", "is not NAME=VALUE"),
        ("memory&@x:y", "is not NAME:STEP"),
        ("memory&w=nan", "w must be a number"),
    ],
)
def test_decoded_values_are_validated_like_set(payload, message):
    with pytest.raises(StateError) as info:
        decode(_forge(payload))
    text = str(info.value)
    assert message in text and "\n" not in text


@pytest.mark.parametrize(
    "text", ["", "hello", "sv1", "sv1!!!!", "sv2AAAAAAAAAA", "sv1" + "A" * 300]
)
def test_malformed_strings_get_one_sentence(text):
    with pytest.raises(StateError) as info:
        decode(text)
    assert "\n" not in str(info.value)


def test_state_command_prints_and_shows(capsys):
    assert main(["state", "--scene", "memory", "--set", "forget_bias=3"]) == 0
    text = capsys.readouterr().out.strip()
    assert decode(text).values["forget_bias"] == 3.0
    assert main(["state", "--show", text]) == 0
    assert capsys.readouterr().out.strip() == "seqviz --scene memory --set forget_bias=3.0"
    assert main(["state", "--demo", "dynamics", "--step", "5"]) == 0
    back = decode(capsys.readouterr().out.strip())
    assert (back.scene, back.demo, back.step, back.values["mode"]) == (
        "dynamics", "dynamics", 5, "chaos")  # fmt: skip


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--state", "sv1nope"], "not a seqviz state string"),
        (["--state", _forge("memory&w=9")], "w must be a number from 0.00 to 3.00"),
        (["screenshot", "--state", "bogus", "--out", "x.svg"], "should start with sv1"),
        (["state", "--demo", "nope"], "--demo must be a shipped demo"),
        (["state", "--demo", "dynamics", "--step", "99"], "--step must be from 1 to 6"),
        (["state", "--step", "2"], "--step needs --demo"),
        (["state", "--scene", "seq2seq", "--set", "source=" + NOISE], "more than the 200"),
        (["--state", _forge("memory&@nope:1")], "which is not shipped"),
        (["--state", _forge("memory&@dynamics:1")], "which shows dynamics"),
    ],
)
def test_bad_states_on_the_command_line(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # nothing opened, nothing written


def test_open_app_picks_the_demo_step():
    from seqviz.lecture.runner import DemoApp

    app = open_app(decode(encode(State("dynamics", {"mode": "chaos", "hidden": 32},
                                              "dynamics", 5))))  # fmt: skip
    assert isinstance(app, DemoApp) and app.index == 4
    assert app.values.hidden == 32  # the state's values, not only the step's


@pytest.mark.slow
def test_screenshot_carries_its_state_and_reopens(tmp_path, capsys):
    out = tmp_path / "shot.svg"
    text = encode(State("memory", {"forget_bias": 3.0, "steps": 50}))
    assert main(["screenshot", "--state", text, "--size", "100x30", "--out", str(out)]) == 0
    svg = out.read_text()
    assert f"<metadata><seqviz-state>{text}</seqviz-state></metadata>" in svg
    assert "b_f=3" in svg_text(out)  # the state's values reached the screen
    back = states.read(str(out))
    assert back.values == decode(text).values
    import xml.etree.ElementTree as ET

    ET.parse(out)  # still well-formed XML


@pytest.mark.slow
async def test_key_y_copies_the_state_and_the_palette_opens_one():
    from seqviz.ui.app import SeqvizApp
    from seqviz.ui.share import StateCommands, open_state

    app = SeqvizApp(scene="memory", values={"forget_bias": 4.0}, animate=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await app.until_ready()
        copied = []
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        await pilot.press("y")
        await pilot.pause()
        assert len(copied) == 1 and decode(copied[0]).values["forget_bias"] == 4.0
        assert any(copied[0] in str(n.message) for n in app._notifications)
        target = encode(State("dynamics", {"mode": "two-unit", "w12": -1.0}))
        provider = StateCommands(app.screen)
        hits = [hit async for hit in provider.search(f"state {target}")]
        assert len(hits) == 1 and "w12=-1.0" in str(hits[0].text)
        bad = [hit async for hit in provider.search(f"state {target[:-2]}")]
        assert "not a seqviz state string" in str(bad[0].match_display)
        open_state(app, decode(target))
        await app.until_ready()
        assert app.scene.name == "dynamics" and app.values.w12 == -1.0


@pytest.mark.slow
def test_a_demo_state_shoots_that_step_with_its_values(tmp_path, capsys):
    out = tmp_path / "step.svg"
    text = encode(State("dynamics", {"mode": "two-unit", "w12": -1.0, "w21": 1.0}, "dynamics", 4))
    assert main(["screenshot", "--state", text, "--size", "120x40", "--out", str(out)]) == 0
    svg = svg_text(out)
    assert "4/6" in svg and "0 stable, 0 saddles" in svg  # the step, with its caption banner
    back = states.read(str(out))
    assert (back.demo, back.step, back.values["w12"]) == ("dynamics", 4, -1.0)


@pytest.mark.slow
async def test_a_demo_shares_its_step_until_the_lecturer_leaves_its_scene():
    from seqviz.lecture.runner import DemoApp

    app = DemoApp(find_demo("dynamics"), start=3, animate=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await app.goto(2)
        await pilot.pause()
        assert (decode(app_state(app)).demo, decode(app_state(app)).step) == (
            "dynamics", 3)  # fmt: skip
        app.set_param("w11", 1.5)  # a knob changed live travels with the state
        await app.until_ready()
        assert decode(app_state(app)).values["w11"] == 1.5
        app.set_scene("memory")
        await app.until_ready()
        await pilot.pause()
        back = decode(app_state(app))
        assert back.scene == "memory" and back.demo is None
