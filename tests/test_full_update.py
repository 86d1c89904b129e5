"""A full screen update renders only the lines no widget in front hides, and shows the same cells.

The region compositor skips the lines of containers filled by their children (the first frame
of a launch is such an update); what the terminal gets must equal Textual's own full render,
cell by cell (character and style), in every scene and in the compact layout.
"""

from __future__ import annotations

from typing import Any

import pytest

from seqviz.scenes import scene_names
from seqviz.ui.compat_textual import ScreenMirror, _cover, _runs, full_render, paint_now


def _full_update_picture(app: Any, width: int) -> ScreenMirror:
    """The screen after one full update from the app's compositor, every line cache emptied."""
    for widget in app.screen.walk_children(with_self=True):
        widget._styles_cache.clear()
    mirror = ScreenMirror(width, app.size.height)
    mirror.apply(app.screen._compositor.render_full_update())
    return mirror


@pytest.mark.slow
@pytest.mark.parametrize("size", [(160, 50), (80, 24)])
@pytest.mark.parametrize("scene", scene_names())
async def test_a_full_update_shows_what_textuals_full_render_shows(scene, size, make_app):
    app = make_app(scene)
    async with app.run_test(size=size) as pilot:
        await app.until_ready()
        await pilot.pause()
        await paint_now(app, pilot)
        ours = _full_update_picture(app, size[0])
        theirs = ScreenMirror.of_strips(full_render(app), size[0])  # Textual's pass, every line
        assert ours.first_difference(theirs) == ""
        assert ours.text().strip()  # the screen is not empty


async def test_a_full_update_skips_the_lines_of_containers_their_children_fill(make_app):
    from textual.widget import Widget

    from seqviz.ui.widgets.kept import KeptLines

    rendered: dict[str, int] = {}
    originals = {cls: cls.render_lines for cls in (Widget, KeptLines)}
    depth = [0]

    def counting(cls: type) -> Any:
        def render_lines(self: Any, crop: Any) -> Any:
            if not depth[0]:  # what the compositor asks for (a panel keeps its lines: KeptLines)
                name = type(self).__name__
                rendered[name] = rendered.get(name, 0) + crop.height
            depth[0] += 1
            try:
                return originals[cls](self, crop)
            finally:
                depth[0] -= 1

        return render_lines

    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_ready()
        await paint_now(app, pilot)
        for cls in originals:
            cls.render_lines = counting(cls)  # type: ignore[method-assign]
        try:
            app.screen._compositor.render_full_update()
        finally:
            for cls, original in originals.items():
                cls.render_lines = original  # type: ignore[method-assign]
    # the screen, the body, the view and its slot are filled by what they hold
    assert "RegionScreen" not in rendered and "Horizontal" not in rendered
    assert "VanishingView" not in rendered
    assert rendered["Panel"] > 0 and rendered["ParamRow"] > 0  # panel borders, what is in front


def test_cover_merges_spans_and_says_when_a_span_was_covered_already():
    spans: list[tuple[int, int]] = []
    assert not _cover(spans, 10, 20)
    assert not _cover(spans, 0, 5)
    assert _cover(spans, 12, 18)
    assert not _cover(spans, 5, 10)  # touching both: one span now
    assert spans == [(0, 20)]
    assert _cover(spans, 0, 20)
    assert not _cover(spans, 19, 21)
    assert spans == [(0, 21)]


def test_runs_group_consecutive_lines():
    assert _runs([]) == []
    assert _runs([0, 1, 2, 5, 7, 8]) == [(0, 3), (5, 6), (7, 9)]


async def test_a_widget_drawing_fewer_lines_than_its_region_leaves_no_cell_empty():
    from textual.app import App, ComposeResult
    from textual.containers import Vertical
    from textual.widget import Widget

    from seqviz.ui.compat_textual import RegionScreen

    class Short(Widget):
        def render_lines(self, crop: Any) -> list[Any]:
            return super().render_lines(crop)[:1]  # one line, whatever the region

    class Host(App[None]):
        def get_default_screen(self) -> RegionScreen:
            return RegionScreen(id="_default")

        def compose(self) -> ComposeResult:
            with Vertical():
                yield Short()

    app = Host()
    async with app.run_test(size=(20, 4)) as pilot:
        await paint_now(app, pilot)
        ours = ScreenMirror(20, 4)
        ours.apply(app.screen._compositor.render_full_update())  # no cell without a strip
        theirs = ScreenMirror.of_strips(full_render(app), 20)
        assert ours.first_difference(theirs) == ""
