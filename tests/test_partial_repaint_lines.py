"""Line-diffing widgets repaint only what changed, and the screen still equals one drawn afresh.

The decoding tree, its next-word bars and its text panels, and the seq2seq readouts, repaint only
the lines that differ from those on screen (and skip a layout pass). Each test replays the app's
updates onto a ScreenMirror, as a terminal would, and compares it cell by cell (character and
style) with the screen rendered from scratch; or checks which lines a change repainted.
"""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Group
from rich.text import Text
from textual.app import App, ComposeResult

from seqviz.ui.compat_textual import ScreenMirror, capture_updates, full_render, paint_now
from seqviz.ui.widgets.readout import Readout

_diff = ScreenMirror.first_difference  # the first differing cell, "" if none


async def _mirrored(app: Any, pilot: Any, width: int) -> ScreenMirror:
    await app.until_ready()
    for field in app.query("Input"):
        field.cursor_blink = False
    await pilot.pause()
    await paint_now(app, pilot)
    mirror = ScreenMirror.of_strips(full_render(app), width)
    capture_updates(app, mirror.apply)
    return mirror


def _scratch(app: Any, width: int) -> ScreenMirror:
    """The screen rendered now, every line of every widget drawn again: Textual's per-widget
    line caches are emptied first (else lines it thinks unchanged come from its cache)."""
    for widget in app.screen.walk_children(with_self=True):
        widget._styles_cache.clear()
    return ScreenMirror.of_strips(full_render(app), width)


async def _fresh(make_app: Any, scene: str, values: Any, frame: int, size: Any) -> ScreenMirror:
    """The screen of a new app put straight at these values and this frame."""
    from dataclasses import asdict

    app = make_app(scene, asdict(values))
    async with app.run_test(size=size) as pilot:
        await app.until_ready()
        await pilot.pause()
        app.seek(frame)
        await pilot.pause()
        await paint_now(app, pilot)
        return _scratch(app, size[0])


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_decoding_tree_stepped_scrolled_and_reselected_equals_a_fresh_screen(
    size, make_app
):
    """The LSTM's tree grows taller than its panel: frames add and fold rows, the cursor pages
    down (the tree scrolls, the bars show another node) and back, frames go backwards."""
    app = make_app("decoding", {"model": "lstm", "width": 3})
    async with app.run_test(size=size) as pilot:
        mirror = await _mirrored(app, pilot, size[0])
        n = app.n_frames
        tree = app.query_one("BeamTree")
        scrolled = 0
        moves: list[Any] = [
            *range(1, n + 1), "down", "down", "pagedown", "pagedown", "down", 3, "up", 2, 5, "b",
            n, "pageup", "up", 0, n, "g",
        ]  # fmt: skip
        for move in moves:
            if isinstance(move, int):
                app.seek(move)
            else:
                await pilot.press(move)
                await app.until_ready()
            await pilot.pause()
            await paint_now(app, pilot)
            assert _diff(mirror, _scratch(app, size[0])) == "", f"after {move!r}"
            scrolled = max(scrolled, tree.scroll_offset.y)
        assert scrolled > 0  # the tree was taller than its panel and scrolled
        # A new app scrolls only as far as its selection needs: pick a node near the top.
        app.seek(n - 1)
        await app.until_ready()
        app.set_param("node", tree.rows[4].node.id)
        tree.scroll_to(y=0, animate=False)
        await pilot.pause()
        await paint_now(app, pilot)
        assert tree.scroll_offset.y == 0
        final, values, frame = _scratch(app, size[0]), app.values, app.frame
    assert values.node != 0  # a node picked by the keys, shown by the fresh app too
    assert _diff(final, await _fresh(make_app, "decoding", values, frame, size)) == ""


async def test_the_bars_and_text_panels_at_every_frame_equal_those_drawn_afresh(make_app):
    """A frame that leaves the selected node's markers as they were sets no new bars, and one
    that shows what the frame before showed (a scored step) builds no new comparison or ranking:
    at every frame, for the root, a kept node and a node ending in </s> (whose message follows
    the step), the screen and those panels equal the ones drawn with nothing kept."""
    from seqviz.ui.views.decoding import DecodingView
    from seqviz.ui.widgets.distribution import DistributionBars

    app = make_app("decoding", {"model": "lstm", "width": 3})
    async with app.run_test(size=(160, 50)) as pilot:
        mirror = await _mirrored(app, pilot, 160)
        view, bars = app.query_one(DecodingView), app.query_one(DistributionBars)
        panels = [bars, app.query_one("#compare"), app.query_one("#ranking")]
        r, n = app.result, app.n_frames
        kept = next(node for node in r.nodes.values() if node.depth == 1 and node.status == "kept")
        ended = next(node for node in r.nodes.values() if node.depth > 1 and r.ended(node))
        calls: list[Any] = []

        def counted(setter: Any) -> Any:
            return lambda *a, **k: (calls.append(setter), setter(*a, **k))

        bars.set_distribution = counted(bars.set_distribution)  # type: ignore[method-assign]
        panels[1].set_builder = counted(panels[1].set_builder)  # type: ignore[attr-defined]
        frames_without_new_bars = frames_without_new_texts = 0
        for node in (0, kept.id, ended.id):
            app.set_param("node", node)
            await app.until_ready()
            for frame in [*range(n + 1), 2, 1]:
                calls.clear()
                app.seek(frame)
                await paint_now(app, pilot)
                frames_without_new_bars += not any(c.__name__ == "set_distribution" for c in calls)
                frames_without_new_texts += not any(c.__name__ == "set_builder" for c in calls)
                lines = [[w.render_line(y) for y in range(w.size.height)] for w in panels]
                assert _diff(mirror, _scratch(app, 160)) == "", (node, frame)
                view._dist_key = view._panels_key = None  # nothing kept: all set anew
                view.show_frame(app.frame)
                afresh = [[w.render_line(y) for y in range(w.size.height)] for w in panels]
                assert afresh == lines, (node, frame)
        assert frames_without_new_bars > n  # the root's bars stay put after its first step
        assert frames_without_new_texts >= n  # about every other frame


async def test_the_decoding_trees_direct_lines_are_what_textuals_pass_draws(make_app):
    """The tree skips Textual's line pass (DirectLines): focused (a background tint) or not,
    scrolled under its scrollbar, whole and cropped, its lines are Textual's own, cell for cell
    and style for style."""
    from textual.geometry import Region
    from textual.widget import Widget

    app = make_app("decoding", {"model": "lstm", "width": 3})
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_ready()
        app.seek(app.n_frames)
        await pilot.pause()
        tree = app.query_one("BeamTree")
        assert tree.has_focus and tree.show_vertical_scrollbar  # taller than its panel
        checked = 0
        for focused, scroll in ((True, 0), (True, 7), (False, 7)):
            if not focused:
                app.set_focus(None)
            tree.scroll_to(y=scroll, animate=False)
            await pilot.pause()
            await paint_now(app, pilot)
            assert tree._direct_background() is not None
            width, height = tree.outer_size
            for crop in (Region(0, 0, width, height), Region(3, 2, width - 10, 5)):
                direct = tree.render_lines(crop)
                tree._styles_cache.clear()
                assert direct == Widget.render_lines(tree, crop), (focused, scroll, crop)
                checked += 1
        assert checked == 6


@pytest.mark.slow
async def test_the_seq2seq_attention_readout_keeps_its_height_and_the_screen_its_truth(make_app):
    """The attention readout holds the last frame's height from the first frame on (the output
    line wraps, the reference and step lines appear), so no frame re-lays out the screen."""
    app = make_app("seq2seq")
    async with app.run_test(size=(160, 50)) as pilot:
        mirror = await _mirrored(app, pilot, 160)
        attn = app.query_one("#attn", Readout)
        n = app.n_frames
        heights = set()
        for frame in [*range(n + 1), 0, n // 2, n]:
            app.seek(frame)
            await paint_now(app, pilot)
            heights.add(attn.size.height)
            assert _diff(mirror, _scratch(app, 160)) == "", f"frame {frame}"
        app.seek(n)
        await paint_now(app, pilot)
        lines_at_end = len(attn._lines(attn.size.width))
        assert heights == {lines_at_end}
        # and at the last frame its lines are all content: the padding only ever fills in
        assert attn._lines(attn.size.width)[-1].cell_length > 0
        app.seek(n // 2)
        await paint_now(app, pilot)
        middle, values = _scratch(app, 160), app.values
    assert _diff(middle, await _fresh(make_app, "seq2seq", values, n // 2, (160, 50))) == ""


class _Lines(App[None]):
    """One readout fed a list of Text lines, one fed the same lines as a Group."""

    CSS = "Readout { height: auto; }"

    def __init__(self) -> None:
        super().__init__()
        self.texts = [
            Text("plain"),
            Text("bold red part", spans=[]).append(" and more", "bold red"),
            Text("a long line that wraps " * 3, style="italic"),
            Text(""),
            Text("tail", style="on blue"),
        ]

    def compose(self) -> ComposeResult:
        yield Readout(id="lines")
        yield Readout(id="group")

    def on_mount(self) -> None:
        self.query_one("#lines", Readout).set_builder(lambda width: list(self.texts))
        self.query_one("#group", Readout).set_builder(lambda width: Group(*self.texts))


async def test_a_readout_of_text_lines_draws_as_their_group_and_repaints_only_a_changed_line():
    app = _Lines()
    async with app.run_test(size=(30, 24)) as pilot:
        await paint_now(app, pilot)
        lines, group = app.query_one("#lines", Readout), app.query_one("#group", Readout)
        assert lines.size.height == group.size.height > len(app.texts)  # the long line wraps
        assert lines._lines(30) == group._lines(30)
        mirror = _scratch(app, 30)
        updates: list[Any] = []
        capture_updates(app, lambda update: (updates.append(update), mirror.apply(update)))
        app.texts[1] = Text("bold red part", spans=[]).append(" and less", "bold red")
        app.texts[4] = Text("tail", style="on green")  # the same characters, another style
        lines.rebuild()
        group.rebuild()
        await paint_now(app, pilot)
        assert lines._lines(30) == group._lines(30)
        assert _diff(mirror, _scratch(app, 30)) == ""
        # only line 1 of each readout was repainted (a changed line, not the whole widget)
        assert updates and all(hasattr(update, "spans") for update in updates)  # partial
        written = {y for update in updates for y, _, _ in update.spans}
        tail = len(lines._lines(30)) - 1
        assert written == {lines.region.y + 1, group.region.y + 1, lines.region.y + tail,
                           group.region.y + tail}  # fmt: skip
        # the unchanged lines' strips were reused, the changed one drawn again
        cache = lines._line_cache
        assert len(cache) == len({t.plain for t in app.texts})
