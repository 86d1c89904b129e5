"""The seq2seq readouts that fit their panels' heights show what fits, however the sizes came."""

from __future__ import annotations

from typing import Any

import pytest
from test_partial_repaint import _diff, _drawn

from seqviz.ui.compat_textual import ScreenMirror, full_render, paint_now
from seqviz.ui.widgets.readout import Readout

pytestmark = pytest.mark.slow  # app sessions of several seconds each


async def _screen_at(app: Any, pilot: Any, frame: int, width: int) -> ScreenMirror:
    app.seek(frame)
    await paint_now(app, pilot)
    return ScreenMirror.of_strips(full_render(app), width)


async def _fresh(make_app: Any, size: tuple[int, int], frame: int | None = None) -> Any:
    app = make_app("seq2seq")
    async with app.run_test(size=size) as pilot:
        await _drawn(app, pilot)
        frame = app.result.S + 2 if frame is None else frame  # decoding: both readouts show rows
        screen = await _screen_at(app, pilot, frame, size[0])
        tf = app.query_one("#tf", Readout)
        return screen, tf.size.height, len(tf._lines(tf.size.width))


@pytest.mark.parametrize("size", [(100, 30), (160, 50)])
async def test_a_result_drawn_before_the_first_layout_is_refitted(make_app, size):
    """A second app in a process computes its first result before its panels are laid out (the
    kernels are warm): the teacher-forcing readout is first drawn for a panel of height 0, then
    rebuilt for the real one. Textual kept the first drawing's height, and the readout showed
    three rows of twelve."""
    await _fresh(make_app, size)  # warms everything up
    _, height, lines = await _fresh(make_app, size)
    assert height == lines > 9  # all lines shown; 9 = the three rows fitted to no panel


@pytest.mark.parametrize("size", [(100, 30), (200, 60), (160, 36)])  # compact, larger, lower
async def test_a_resized_screen_equals_a_fresh_one_at_that_size(make_app, size):
    """The teacher-forcing and attention readouts fit their panels: a resize of the terminal
    must reach both."""
    app = make_app("seq2seq")
    async with app.run_test(size=(160, 50)) as pilot:
        await _drawn(app, pilot)
        frame = app.result.S + 2
        await _screen_at(app, pilot, frame, 160)
        await pilot.resize_terminal(*size)
        await pilot.pause()
        resized = await _screen_at(app, pilot, frame, size[0])
    fresh, _, _ = await _fresh(make_app, size, frame)
    assert resized.cells == fresh.cells, _diff(resized, fresh)


async def test_at_80x24_a_rule_and_a_blank_column_part_the_two_panels(make_app):
    """Compact panels have no side borders: the teacher-forcing table and the attention panel
    ran into each other ('losshundo skatolo', '0.00= the reference translation')."""
    app = make_app("seq2seq")
    async with app.run_test(size=(80, 24)) as pilot:
        await app.until_ready()
        await pilot.pause()
        tf = app.query_one("#tf-panel")
        attn = app.query_one("#attn-panel")
        assert attn.content_region.x >= tf.region.right + 2
        line = app.screen._compositor.render_strips()[tf.region.y + 3]
        text = "".join(seg.text for seg in line._segments)
        assert text[tf.region.right] in "│┃▏▕|", text
