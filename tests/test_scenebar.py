"""The scene bar's tabs, drawn as one widget, look as a Static per tab styled by CSS rules did."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from seqviz.ui.widgets.scenebar import SceneBar, SceneTabs

SCENES = [("vanishing", "Vanishing gradients"), ("memory", "Memory"), ("gates", "Gates")]

REFERENCE_CSS = """
Reference { height: 1; width: 1fr; background: $panel; }
Reference > #ref-name { width: auto; padding: 0 1; text-style: bold; color: $accent; }
Reference > .tab { width: auto; color: $text-muted; }
Reference > .tab:hover { background: $boost; }
Reference > .tab.-active { background: $primary; color: $text; text-style: bold; }
Reference > #ref-play { width: 1fr; content-align-horizontal: right; padding: 0 1; }
"""


class Reference(Horizontal):
    """A widget per tab, with the rules the tabs had."""

    def compose(self) -> ComposeResult:
        yield Static("seqviz", id="ref-name")
        for number, (name, title) in enumerate(SCENES, start=1):
            yield Static(f" {number} {title} ", id=f"ref-{name}",
                         classes="tab -active" if name == "vanishing" else "tab")  # fmt: skip
        yield Static("", id="ref-play")


class Bars(App[None]):
    CSS = REFERENCE_CSS

    def compose(self) -> ComposeResult:
        yield SceneBar(SCENES, active="vanishing", id="bar")
        yield Reference(id="reference")


def _cells(app: Any, y: int) -> list[tuple[str, Any]]:
    strip = app.screen._compositor.render_strips()[y]
    return [(ch, seg.style) for seg in strip._segments for ch in seg.text]


async def test_tabs_look_and_hover_as_a_widget_per_tab_did() -> None:
    app = Bars()
    async with app.run_test(size=(80, 4)) as pilot:
        await pilot.pause()
        assert _cells(app, 0) == _cells(app, 1)
        tabs = app.query_one(SceneTabs)
        for name, _title in SCENES:  # the hovered tab, and the active one under the mouse
            await pilot.hover(SceneTabs, offset=tabs.tab_offset(name))
            await pilot.pause()
            hovered = _cells(app, 0)
            await pilot.hover(f"#ref-{name}")
            await pilot.pause()
            assert hovered == _cells(app, 1), name
        await pilot.hover("#ref-play")  # the mouse leaves the tabs
        await pilot.pause()
        assert tabs.hovered is None
        assert _cells(app, 0) == _cells(app, 1)


async def test_a_click_on_a_tab_picks_its_scene_and_the_name_picks_none() -> None:
    picked: list[str] = []

    class Picking(Bars):
        def on_scene_tabs_picked(self, message: SceneTabs.Picked) -> None:
            picked.append(message.name)

    app = Picking()
    async with app.run_test(size=(80, 4)) as pilot:
        tabs = app.query_one(SceneTabs)
        for name, _title in SCENES:
            start = tabs.tab_offset(name)
            await pilot.click(SceneTabs, offset=start)
            await pilot.click(SceneTabs, offset=(start.x + 2, 0))
        await pilot.click(SceneTabs, offset=(1, 0))  # the app's name
        await pilot.pause()
        assert picked == [name for name, _title in SCENES for _ in range(2)]
        assert tabs.tab_at(0) is None and tabs.tab_at(tabs.size.width) is None


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40), (160, 50)])
async def test_every_scene_number_shows_at_every_size(make_app, size):
    """The tab bar ended at '7 Dy' at 100x30 and at '8 Inside 9' at 120x40: scenes 8-10 could
    not be seen. Names that do not fit give way to short names, then to numbers."""
    from seqviz.scenes import scene_titles
    from seqviz.ui.export import screen_text

    app = make_app("gradflow")
    async with app.run_test(size=size) as pilot:
        await app.until_ready()
        await pilot.pause()
        bar = screen_text(app).splitlines()[0]
        tabs = app.query_one(SceneTabs)
        shown = "".join(tabs.labels)
        assert (
            len(" seqviz ") + len(shown) + len(app.query_one("#play-state").render().plain)
            <= size[0]
        ), bar
        numbers = [int(n) for n in re.findall(r"(?<!\S)(\d+)(?= |$)", shown)]
        assert numbers == list(range(1, len(scene_titles()) + 1)), bar
        assert " 4 Gradient flow " in shown or " 4 gradflow " in shown  # the current one named
        assert shown in bar  # drawn whole
