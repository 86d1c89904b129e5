"""The cell's view in the gates scene: a character model's text coloured by the cursor unit."""

from __future__ import annotations

import numpy as np
import pytest

from seqviz.inside.cells import NEG, POS
from seqviz.ui.export import screen_text
from seqviz.ui.widgets.celltext import pack, wrap

TEXT = 'def f(x):  s = "a # b"  # c'


def test_wrap_breaks_after_newlines_and_at_the_width():
    assert wrap(list("ab\ncdefg"), 3) == [[0, 1, 2], [3, 4, 5], [6, 7]]
    assert wrap([], 5) == [[]]


def test_the_note_wraps_between_parts_never_inside_one():
    parts = ["r on this text: string +0.50", "comment +0.36", "indent -0.74"]
    assert pack(parts, 45) == ["r on this text: string +0.50  comment +0.36", "indent -0.74"]
    assert pack(parts, 20) == parts


def _char_model(tmp_path):
    from seqviz.models.lm import random_lm

    chars = sorted(set(TEXT) | {"\n"})
    lm = random_lm(("<s>", "</s>", *chars), "lstm", hidden=8, emb=4, seed=2, level="char")
    return lm, lm.save(tmp_path / "chars.npz")


@pytest.mark.slow
async def test_a_character_model_shows_its_text_coloured_by_the_cursor_unit(
    tmp_path, make_app, ready
):
    lm, path = _char_model(tmp_path)
    app = make_app("gates", {"model": "file", "weights": str(path), "text": TEXT, "unit": 5})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        assert app.query_one("#cell-panel").display and not app.query_one("#unit-panel").display
        cells = app.query_one("#cell-text")
        want = np.asarray(lm.trace(TEXT).c)[1:, 5]  # the core's own c of unit 5 after each char
        assert "".join(cells.chars) == TEXT
        np.testing.assert_allclose(cells.values, want)
        assert cells.upto == app.frame - 1
        # the character with the largest |c| is drawn on the scale's end colour
        k = int(np.argmax(np.abs(want)))
        app.action_home()
        await pilot.pause()
        assert cells.upto == 0  # nothing read yet
        app.action_end()
        await pilot.pause()
        assert cells.upto == len(TEXT) == app.frame - 1
        spans = cells.render().spans
        end = "#{:02x}{:02x}{:02x}".format(*(POS if want[k] > 0 else NEG))
        styles = [s.style for s in spans if s.start <= k < s.end]
        assert styles and styles[0].bgcolor.name == end
        assert "c[5]" in screen_text(app) and f"{abs(want).max():.2f}" in screen_text(app)
        # r with the string pattern on this text, against a mask made by hand
        mask = np.zeros(len(TEXT))
        mask[TEXT.index('"') : TEXT.rindex('"') + 1] = 1
        r = float(np.corrcoef(want, mask)[0, 1])
        assert f"string {r:+.2f}" in cells.note and "indent -" in cells.note
        assert cells.note in screen_text(app)
        # the cursor picks another unit: its values, its label
        app.set_param("unit", 2)
        await ready(app, pilot)
        np.testing.assert_allclose(cells.values, np.asarray(lm.trace(TEXT).c)[1:, 2])
        assert cells.label == "c[2]"
        # a word model has no cell's view
        app.set_params({"model": "agreement", "text": "the keys to the cabinet are missing"})
        await ready(app, pilot)
        assert not app.query_one("#cell-panel").display and app.query_one("#unit-panel").display


async def test_the_view_scrolls_with_the_text():
    """In a view of 20 x 5 cells the last 4 lines read show, then the legend."""
    from textual.app import App

    from seqviz.ui.widgets.celltext import CellText

    text = "if x:\n    y = (1, 2)\n" * 5

    class One(App):
        def compose(self):
            yield CellText()

    app = One()
    async with app.run_test(size=(20, 5)) as pilot:
        cells = app.query_one(CellText)
        cells.set_data(text, np.linspace(-1, 1, len(text)), "c[7]")
        cells.set_upto(len(text))
        await pilot.pause()
        lines = cells.render().plain.split("\n")
        assert len(lines) == 5 and lines[-1].startswith("c[7]")
        assert "".join(lines[:-1]) == text.replace("\n", "⏎")[-len("".join(lines[:-1])) :]
        # after a newline the next character starts a line: it is shown, empty
        assert lines[:-1] == ["    y = (1, 2)⏎", "if x:⏎", "    y = (1, 2)⏎", ""]
        cells.set_upto(3)
        await pilot.pause()
        assert cells.render().plain.split("\n")[0] == "if "


def test_a_typed_return_sign_is_a_line_break_for_a_model_that_knows_newlines(tmp_path):
    from seqviz.scenes import get_scene

    lm, path = _char_model(tmp_path)
    scene = get_scene("gates")
    values = scene.make({"model": "file", "weights": str(path), "text": "f(x)⏎  s"})
    r = scene.compute(values)
    assert r.tokens[1:] == tuple("f(x)\n  s")
    np.testing.assert_allclose(r.c, np.asarray(lm.trace("f(x)\n  s").c))
