"""Demo scripts: shipped ones load, values accumulate, malformed ones are refused at file:line."""

from __future__ import annotations

import textwrap

import pytest

from seqviz.cli import main
from seqviz.lecture import DemoError, demo_names, find_demo, load_demo, parse_demo

SECTIONS = ("vanishing", "memory", "gates", "gradflow", "decoding")


def test_one_shipped_demo_per_lesson_section_in_lesson_order():
    assert demo_names()[: len(SECTIONS)] == SECTIONS
    for name in demo_names():
        demo = find_demo(name)
        if name.startswith("replay-"):  # a paper replay: short, and it checks claims
            assert len(demo) >= 2 and any(step.claims for step in demo.steps)
            continue
        assert demo.title and demo.description and "\n" not in demo.description
        assert len(demo) >= 4
        assert demo.steps[0].scene == name  # each demo opens on its own scene


@pytest.mark.parametrize(
    "name, claims",
    [
        ("vanishing", ["59 3.5e-13", "59 9.5e-09", "59 1.4e-05", "lin 59 2.2e+04"]),
        ("memory", ["h = 1.48e-05", "h = 0.859", "c = 3.30e-06", "c = 0.487", "c = 0.942"]),
        ("gates", ["4*16*(16+8) = 1,536", "3*16*(16+8) = 1,152"]),
        ("gradflow", ["prod f 8.5e-04", "f = 0.727"]),
        ("decoding", ["p=0.140", "a small cat </s> p=0.292"]),
    ],
)
def test_shipped_demos_claim_the_lesson_numbers(name, claims):
    # The Pilot tests check each expectation on screen; here: the claims are really there.
    expected = " | ".join(e for step in find_demo(name).steps for e in step.expect)
    for claim in claims:
        assert claim in expected


def test_values_accumulate_per_scene_from_the_defaults():
    demo = find_demo("vanishing")
    first, second, third = demo.steps[:3]
    assert first.values["rho"] == 0.8 and first.values["draw"] == 1
    assert second.values == first.values  # step 2 changes nothing, only the caption
    assert third.values["rho"] == 1.0 and third.values["draw"] == 2
    assert third.values["hidden"] == 64  # inherited
    assert third.changes == {"rho": 1.0, "draw": 2}


def test_scene_is_inherited_and_values_kept_per_scene():
    demo = parse_demo(
        textwrap.dedent(
            """
            title = "t"
            [[step]]
            scene = "memory"
            set = { w = 1.5 }
            caption = "a"
            [[step]]
            scene = "vanishing"
            set = { rho = 1.2 }
            caption = "b"
            [[step]]
            scene = "memory"
            caption = "c"
            [[step]]
            actions = ["home", "step 3", "seek 7", "speed 30", "focus w", "play", "pause", "end"]
            caption = "d"
            """
        )
    )
    assert [s.scene for s in demo.steps] == ["memory", "vanishing", "memory", "memory"]
    assert demo.steps[2].values["w"] == 1.5  # memory's values survive the visit to vanishing
    assert [str(a) for a in demo.steps[3].actions] == [
        "home", "step 3", "seek 7", "speed 30.0", "focus w", "play", "pause", "end",
    ]  # fmt: skip


BASE = """title = "bad demo"

[[step]]
scene = "memory"
set = {{ w = 0.9 }}
caption = "first"

[[step]]
{body}
caption = "second"
"""


@pytest.mark.parametrize(
    "body, line, words",
    [
        ('scene = "memroy"', 9, ["unknown scene 'memroy'", "vanishing, memory, gates"]),
        ("set = { w = 0.9, wieght = 2 }", 9, ["no parameter 'wieght'", "w, forget_bias, steps"]),
        ("set = { w = 7.5 }", 9, ["w must be a number from 0.00 to 3.00", "7.5"]),
        ('set = { steps = "many" }', 9, ["steps must be an integer"]),
        ('actions = [\n  "home",\n  "jump 3",\n]', 11, ["unknown action 'jump 3'", "play, pause"]),
        ('actions = ["step x"]', 9, ["'step x'", "whole number"]),
        ('actions = ["speed 500"]', 9, ["speed needs frames per second from 1 to 60"]),
        ('actions = ["focus rho"]', 9, ["focus needs a parameter of memory: w, forget_bias"]),
        ('actions = ["select 3"]', 9, ["select works in the gates scene"]),
        ('actions = "home"\ncolour = "red"', 10, ["unknown key 'colour'", "scene, set, actions"]),
        ("set = 3", 9, ["set must be a table"]),
    ],
)
def test_malformed_demos_name_file_line_and_what_is_allowed(tmp_path, body, line, words):
    path = tmp_path / "bad.toml"
    path.write_text(BASE.format(body=body))
    with pytest.raises(DemoError) as err:
        load_demo(path)
    message = str(err.value)
    assert message.startswith(f"{path}:{line}: step 2")
    assert "\n" not in message
    for word in words:
        assert word in message


def test_toml_syntax_error_gives_its_line(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('title = "x"\n\n[[step]]\nscene = "memory"\ncaption = "unterminated\n')
    with pytest.raises(DemoError, match=rf"^{path}:5: not valid TOML"):
        load_demo(path)


@pytest.mark.parametrize(
    "text, line, words",
    [
        ('title = "t"\nsubtitle = "x"\n[[step]]\nscene = "memory"\ncaption = "c"\n', 2,
         ["unknown key 'subtitle'"]),
        ('[[step]]\nscene = "memory"\ncaption = "c"\n', 1, ['title = "..."']),
        ('title = "t"\n', 1, ["at least one [[step]]"]),
        ('title = "t"\n[[step]]\ncaption = "c"\n', 2, ["step 1 needs scene = one of vanishing"]),
        ('title = "t"\n[[step]]\nscene = "memory"\n', 2, ["step 1 needs caption"]),
        ('title = "t"\n[[step]]\nscene = "memory"\ncaption = "' + "word " * 60 + '"\n', 4,
         ["at most 220 fit"]),
        ('title = "t"\n[[step]]\nscene = "memory"\ncaption = "c"\nexpect = [1]\n', 5,
         ["expect must be a list of texts"]),
    ],
)  # fmt: skip
def test_other_refusals(text, line, words):
    with pytest.raises(DemoError) as err:
        parse_demo(text, "demo.toml")
    assert str(err.value).startswith(f"demo.toml:{line}: ")
    for word in words:
        assert word in str(err.value)


def test_unknown_name_lists_the_shipped_demos():
    with pytest.raises(DemoError, match="shipped demos are vanishing, memory, gates"):
        find_demo("no-such-demo")
    with pytest.raises(DemoError, match="no such demo file"):
        find_demo("missing.toml")


def test_cli_lists_demos(capsys):
    assert main(["demo", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out][: len(SECTIONS)] == list(SECTIONS)
    assert all("steps" in line for line in out)


def test_cli_refuses_a_malformed_demo_in_one_line_before_the_app(tmp_path, capsys, monkeypatch):
    import seqviz.lecture.runner as runner

    def no_app(*args, **kwargs):  # the refusal must come before any app is built
        raise AssertionError("the app was started for a malformed demo")

    monkeypatch.setattr(runner.DemoApp, "__init__", no_app)
    path = tmp_path / "bad.toml"
    path.write_text(BASE.format(body='scene = "decodnig"'))
    assert main(["demo", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"seqviz: error: {path}:9: step 2 names unknown scene 'decodnig'")


@pytest.mark.parametrize(
    "argv, words",
    [
        (["demo"], "give a demo NAME or PATH"),
        (["demo", "memory", "--start", "99"], "--start must be a step from 1 to 7"),
        (["demo", "memory", "--speed", "0"], "--speed must be frames per second from 1 to 60"),
    ],
)
def test_cli_bad_options(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_set_as_a_subtable_and_its_error_line():
    src = 'title = "t"\n[[step]]\nscene = "memory"\ncaption = "x"\n\n[[step]]\ncaption = "y"\n'
    src += "[step.set]\nsteps = 20\nw = {w}\n"
    demo = parse_demo(src.format(w=0.5))
    assert demo.steps[1].changes == {"steps": 20, "w": 0.5}
    assert demo.steps[1].values["w"] == 0.5 and demo.steps[1].values["steps"] == 20
    with pytest.raises(DemoError, match=r"^d\.toml:10: step 2: w must be a number"):
        parse_demo(src.format(w=9), "d.toml")


def test_loading_demos_stays_headless():
    """Validating a script (as `seqviz demo` does before the app) imports no UI library."""
    import subprocess
    import sys

    code = (
        "import sys; from seqviz.lecture import find_demo, demo_names\n"
        "[find_demo(n) for n in demo_names()]\n"
        "print([m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'plotext')])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
