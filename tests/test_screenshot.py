"""`seqviz screenshot`: a valid SVG of the scene at a frame, headless; one-line errors."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from seqviz.cli import main

SVG = "{http://www.w3.org/2000/svg}"


def svg_text(path) -> str:
    """All text drawn in the SVG (Rich writes spaces as no-break spaces)."""
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    return " ".join("".join(el.itertext()) for el in root.iter(f"{SVG}text")).replace("\xa0", " ")


@pytest.mark.slow
def test_screenshot_writes_a_valid_svg_of_the_scene(tmp_path, capsys):
    out = tmp_path / "memory.svg"
    argv = ["screenshot", "--scene", "memory", "--set", "forget_bias=10", "--out", str(out)]
    assert main(argv) == 0
    assert capsys.readouterr().out.strip() == str(out)
    text = svg_text(out)
    assert "seqviz · Memory" in text  # the window title names the scene
    assert "2 memory" in text  # the scene bar (short names: the titles do not all fit at 160)
    assert "c = 0.942" in text and "b_f=10" in text  # the values reached the scene
    assert "t = 100/100" in text  # by default the last frame
    assert [p.name for p in tmp_path.iterdir()] == ["memory.svg"]  # no temp file left behind


@pytest.mark.slow
def test_frame_and_size(tmp_path):
    out = tmp_path / "v.svg"
    argv = ["screenshot", "--scene", "1", "--set", "rho=1.2", "--set", "draw=3",
            "--frame", "30", "--size", "100x30", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    text = svg_text(out)
    assert "seqviz · Vanishing gradients" in text
    assert "forward: read 30/60 inputs" in text
    root = ET.parse(out).getroot()
    # Rich sizes the SVG to the terminal: a 100-column screen is narrower than a 160-column one.
    small = float(root.get("viewBox").split()[2])
    out2 = tmp_path / "wide.svg"
    assert main(["screenshot", "--scene", "1", "--out", str(out2)]) == 0
    assert float(ET.parse(out2).getroot().get("viewBox").split()[2]) > small


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--scene", "nope"], "unknown scene 'nope'; scenes are vanishing, memory"),
        (["--scene", "memory", "--set", "rho=1"], "scene memory has no parameter 'rho'"),
        (["--scene", "memory", "--set", "w=9"], "w must be a number from 0.00 to 3.00"),
        (["--scene", "memory", "--set", "w"], "--set expects NAME=VALUE"),
        (["--scene", "memory", "--frame", "500"], "--frame must be from 0 to 100"),
        (["--scene", "memory", "--frame", "-1"], "--frame must be 0 or more"),
        (["--scene", "memory", "--size", "big"], "--size must be WIDTHxHEIGHT"),
        (["--scene", "memory", "--size", "5x5"], "--size must be from 20x8"),
    ],
)
def test_bad_values_are_one_line_errors(tmp_path, capsys, argv, message):
    out = tmp_path / "x.svg"
    assert main(["screenshot", *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("seqviz: error: ") and err.count("\n") == 1
    assert message in err
    assert not out.exists()


def test_bad_output_paths(tmp_path, capsys):
    assert main(["screenshot", "--out", str(tmp_path / "x.png")]) == 2
    assert "--out must name an .svg file" in capsys.readouterr().err
    assert main(["screenshot", "--out", str(tmp_path / "no" / "x.svg")]) == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.slow
def test_a_demo_step_with_its_caption(tmp_path):
    out = tmp_path / "step.svg"
    assert main(["screenshot", "--demo", "memory", "--step", "4", "--out", str(out)]) == 0
    text = svg_text(out)
    assert "4/7" in text and "Forget bias 5" in text  # the step counter and caption
    assert "c = 0.487" in text


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--demo", "memory", "--step", "8"], "--step must be from 1 to 7 for memory"),
        (["--demo", "memory", "--set", "w=1"], "--set does not go with --demo"),
        (["--demo", "nope"], "shipped demos are vanishing"),
    ],
)
def test_bad_demo_shots(tmp_path, capsys, argv, message):
    assert main(["screenshot", *argv, "--out", str(tmp_path / "x.svg")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


EXTERNAL = r"""(?:url\(\s*["']?|href\s*=\s*["']|src\s*=\s*["']|<!--[^>]*?)(https?://[^"')\s>]+)"""


def external_urls(text: str) -> list[str]:
    """Addresses a page or SVG would load or cite (its XML namespace aside)."""
    import re

    return [u for u in re.findall(EXTERNAL, text) if u != "http://www.w3.org/2000/svg"]


async def test_a_screenshot_names_no_external_url():
    """Rich's SVG loaded Fira Code from a CDN; a lecture machine is often offline. The file names
    local fonts only, ending with the viewer's monospace, and cites no web address."""
    from seqviz.ui.app import SeqvizApp
    from seqviz.ui.export import screenshot_svg

    app = SeqvizApp(scene="memory", animate=False)
    async with app.run_test(size=(80, 24)):
        await app.until_ready()
        raw = str(app.export_screenshot())
        svg = screenshot_svg(app)
    assert external_urls(raw)  # Rich's own export has them: the check can fail
    assert external_urls(svg) == [] and "://" not in svg.replace("http://www.w3.org/2000/svg", "")
    assert 'src: local("Fira Code Regular"), local("FiraCode-Regular");' in svg
    assert 'src: local("Fira Code Bold"), local("FiraCode-Bold");' in svg
    assert "Consolas, monospace;" in svg
    ET.fromstring(svg)  # still well-formed
