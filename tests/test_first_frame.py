"""The first frame is rendered once, complete; the footer is recomposed only when its hints change.

Launch time (issue 16): each render of the whole screen before the first frame, and each
recompose of the footer, was work the launch paid for and the user never saw.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from textual._compositor import LayoutUpdate

from seqviz.core import backend
from seqviz.scenes import warm
from seqviz.ui.compat_textual import ScreenMirror, capture_updates, full_render
from seqviz.ui.widgets.footer import FittingFooter

SIZE = (160, 50)


@pytest.fixture
def launched(monkeypatch):
    """As `seqviz` launches: the first result on the NumPy reference, the kernels loaded after."""
    monkeypatch.setattr(warm, "_warmer", None)
    yield {"warm_kernels": True}
    warm.stop()
    backend.reset()


class _Probe:
    """Stands in for the launch probe: records which updates were sent when 'painted' came."""

    def __init__(self, updates: list[Any], app: Any = None) -> None:
        self.updates = updates
        self.app = app
        self.painted_after: list[int] = []
        self.screen_then: list[Any] = []  # the whole screen drawn afresh when 'painted' came

    def painted(self, generation: int) -> None:
        self.painted_after.append(len(self.updates))
        if self.app is not None and not self.screen_then:
            self.screen_then = full_render(self.app)

    def kernels(self, phase: str) -> None:
        pass


def _probed(app: Any, *, full: bool = True) -> tuple[list[Any], _Probe]:
    """The updates the app sends and a probe that records them when 'painted' comes (``full``:
    also the whole screen drawn afresh at that moment)."""
    updates: list[Any] = []
    capture_updates(app, updates.append)
    probe = _Probe(updates, app if full else None)
    app._probe = probe
    return updates, probe


async def test_the_first_frame_is_one_full_render_with_the_result_and_the_focused_row(
    make_app, launched, monkeypatch
):
    from seqviz.ui import app as app_module

    monkeypatch.setattr(app_module, "FIRST_FRAME_HOLD", 60.0)  # a loaded machine: wait for it
    shown = _counting_footer_hints(monkeypatch, lambda: len(updates))
    app = make_app("vanishing", **launched)
    updates, probe = _probed(app)
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await pilot.pause()
        await pilot.pause()
        assert probe.painted_after, "the first result was never reported painted"
        first = updates[: probe.painted_after[0]]
        # one update, the whole screen, and nothing was left to draw when it was reported
        assert [type(u) for u in first] == [LayoutUpdate]
        mirror = ScreenMirror(*SIZE)
        mirror.apply(first[0])
        assert mirror.cells == ScreenMirror.of_strips(probe.screen_then, SIZE[0]).cells
        assert app.focused is not None and app.focused.id == "param-rho"
        assert shown == [0]  # the footer's hints, once, for the focused row
        assert mirror.text().splitlines()[-1].split()[:2] == ["←", "back"]
        assert "Vanishing gradients" in mirror.text()


def _counting_footer_hints(monkeypatch: Any, stamp: Any) -> list[Any]:
    """Record ``stamp()`` each time the footer shows other hints than it showed."""
    shown: list[Any] = []
    original = FittingFooter._show

    def counting(self: FittingFooter, screen: Any) -> None:
        before = (self.parts, self.palette)
        original(self, screen)
        if (self.parts, self.palette) != before:
            shown.append(stamp())

    monkeypatch.setattr(FittingFooter, "_show", counting)
    return shown


async def test_the_footer_is_redrawn_only_when_its_hints_change(make_app, ready, monkeypatch):
    shown = _counting_footer_hints(monkeypatch, lambda: 1)
    app = make_app("vanishing")
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        footer = app.query_one(FittingFooter)
        start = len(shown)
        for name in ("hidden", "steps", "rho"):  # rows bind the same keys: the same hints
            app.focus_param(name)
            await pilot.pause()
            await pilot.pause()
        assert len(shown) == start
        assert footer.parts[0].hint.description == "back"  # a focused row's ←/→ come first
        app.set_focus(None)  # the app's own bindings only: the hints change order
        await pilot.pause()
        await pilot.pause()
        assert len(shown) > start
        assert footer.parts[0].hint.description == "play"
        assert footer.palette is not None and not footer.compact  # room at 160


async def test_the_first_frame_callbacks_run_once_it_goes_to_the_screen(make_app, launched):
    app = make_app("vanishing", **launched)
    calls: list[bool] = []
    app.after_first_frame(lambda: calls.append(app.result is not None))
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await pilot.pause()
        app.set_param("rho", 1.1)
        await app.until_ready()
        await pilot.pause()
    assert calls == [True]  # once, and with the first result


async def test_a_hold_that_runs_out_while_the_app_closes_paints_nothing(make_app, launched):
    """The hold's timer can fire after the screens are gone (seen in a full test run at load 8:
    ScreenStackError from ``self.screen`` as the app quit); it then stops and paints nothing."""

    class _Held:
        stopped = False

        def stop(self) -> None:
            self.stopped = True

    app = make_app("vanishing", **launched)
    calls: list[int] = []
    async with app.run_test(size=SIZE):
        await app.until_ready()
    held = _Held()
    app._held = held  # as if the first frame were still held when the app closed
    app.after_first_frame(lambda: calls.append(1))
    app._release_first_frame()  # raised ScreenStackError before
    assert held.stopped and app._held is None and calls == []


def test_seqviz_launches_with_the_collector_off_until_its_first_frame(launched, monkeypatch):
    import asyncio
    import gc

    from seqviz.cli import main
    from seqviz.commands import terminal

    seen: dict[str, bool] = {}

    def run_app(app: Any) -> int:
        async def first_frame() -> None:
            seen["before"] = gc.isenabled()
            async with app.run_test(size=SIZE) as pilot:
                await app.until_ready()
                await pilot.pause()
                seen["after"] = gc.isenabled()
                seen["frozen"] = gc.get_freeze_count() > 0

        asyncio.run(first_frame())
        return 0

    monkeypatch.setattr(terminal, "check_terminal", lambda: None)
    monkeypatch.setattr(terminal, "run_app", run_app)
    try:
        assert main([]) == 0
        # the app thawed the heap as it ended; the process's last collection must not walk it
        # (quitting took 0.6 instead of 0.26 s), so the launcher freezes it again
        frozen_at_exit = gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert seen == {"before": False, "after": True, "frozen": True}
    assert frozen_at_exit
    assert gc.isenabled()


async def test_a_footer_waiting_for_the_focus_shows_its_hints_when_told_to_stop_waiting():
    from textual.app import App, ComposeResult
    from textual.binding import Binding
    from textual.widgets import Static

    class Plain(App[None]):
        BINDINGS = [Binding("q", "quit", "quit")]

        def compose(self) -> ComposeResult:
            yield Static("nothing here takes the focus")
            footer = FittingFooter()
            footer.waits_for_focus = True
            yield footer

    app = Plain()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        footer = app.query_one(FittingFooter)
        assert not footer.parts  # nothing focused: it waits
        footer.stop_waiting()
        await pilot.pause()
        await pilot.pause()
        assert [part.hint.description for part in footer.parts if part.hint] == ["quit"]


def _styles(app: Any) -> dict[int, Any]:
    """Every node's computed CSS (its own and its component classes') and its Rich style."""
    return {
        id(node): (
            type(node).__name__,
            node.id,
            tuple(node.styles.base.css_lines),
            tuple((k, tuple(v.base.css_lines)) for k, v in sorted(node._component_styles.items())),
            str(node.rich_style),
        )
        for node in app.screen.walk_children(with_self=True)
    }


@pytest.mark.parametrize("scene, size", [("vanishing", SIZE), ("gates", (80, 24))])
async def test_the_first_screen_is_styled_once_and_as_a_full_restyle_styles_it(
    make_app, launched, monkeypatch, scene, size
):
    """Textual restyles a screen's every widget when the screen is shown (in case the CSS
    changed while it was hidden); the first time, its widgets were styled moments before as
    they were mounted. The launch skips that restyle, and the styles are what it would give."""
    from seqviz.ui.compat_textual import RegionScreen

    restyled: list[int] = []
    original = RegionScreen.update_node_styles

    def counting(self: RegionScreen, animate: bool = True) -> None:
        restyled.append(sys._getframe(1).f_code.co_name == "_on_screen_resume")
        original(self, animate)

    monkeypatch.setattr(RegionScreen, "update_node_styles", counting)
    app = make_app(scene, **launched)
    async with app.run_test(size=size) as pilot:
        await app.until_ready()
        await pilot.pause()
        assert True not in restyled  # restyled as shown: never (at 80x24 as it gets -compact)
        before = _styles(app)
        app.screen.update_node_styles(animate=False)
        await pilot.pause()
        assert _styles(app) == before


async def test_the_first_frame_does_not_wait_for_the_screens_update_tick(
    make_app, launched, monkeypatch
):
    """Once the app has settled, the first frame is drawn at once; waiting for the screen's
    next update tick left the process idle for up to 1/60 s of the launch. Here the tick is
    an hour away, so only a frame drawn at once is reported painted."""
    import asyncio

    import textual.screen

    from seqviz.ui import app as app_module

    monkeypatch.setattr(app_module, "FIRST_FRAME_HOLD", 60.0)
    monkeypatch.setattr(textual.screen, "UPDATE_PERIOD", 3600.0)
    app = make_app("vanishing", **launched)
    updates, probe = _probed(app, full=False)
    async with app.run_test(size=SIZE):
        await app.until_ready()
        for _ in range(400):  # a few seconds of the event loop, at most
            if probe.painted_after:
                break
            await asyncio.sleep(0.01)
        assert probe.painted_after, "the first frame waited for the update tick"
        assert [type(u) for u in updates[: probe.painted_after[0]]] == [LayoutUpdate]


@pytest.mark.parametrize("scene, size", [("vanishing", SIZE), ("gates", (80, 24))])
async def test_the_held_first_frame_is_laid_out_once_the_screen_has_its_size(
    make_app, launched, monkeypatch, scene, size
):
    """Textual lays the whole screen out at each Resize the screen gets, also at the size it
    has: at start-up three came at the terminal's size while the first frame was held. Now the
    screen is laid out once as it is first shown (its size) and once as the frame is released,
    and the first frame is still the screen drawn afresh."""
    from textual.screen import Screen

    from seqviz.ui import app as app_module

    layouts: list[bool] = []  # per layout of the app's screen: whether the first frame is held
    original = Screen._refresh_layout

    def counting(self: Screen, size: Any = None, scroll: bool = False) -> None:
        if self is self.app.screen_stack[0]:
            layouts.append(self.app._held is not None)
        original(self, size, scroll)

    monkeypatch.setattr(Screen, "_refresh_layout", counting)
    monkeypatch.setattr(app_module, "FIRST_FRAME_HOLD", 60.0)
    app = make_app(scene, **launched)
    updates, probe = _probed(app)
    async with app.run_test(size=size) as pilot:
        await app.until_ready()
        await pilot.pause()
        assert probe.painted_after
        assert layouts[:2] == [True, False]  # shown (held), then released
        assert layouts.count(True) == 1
        assert [type(u) for u in updates[: probe.painted_after[0]]] == [LayoutUpdate]
        first = ScreenMirror(*size)
        first.apply(updates[0])
        assert first.first_difference(ScreenMirror.of_strips(probe.screen_then, size[0])) == ""


async def test_the_scene_tabs_and_the_footer_are_not_restyled_before_the_first_frame(
    make_app, launched, monkeypatch
):
    """The first scene's tab is drawn active and the footer's hints drawn for the focused row
    without restyling the widget just styled (as class changes of a widget per tab or per
    hint did)."""
    from textual.css.stylesheet import Stylesheet

    from seqviz.ui.widgets.scenebar import SceneTabs

    restyled: list[Any] = []
    original = Stylesheet.update_nodes

    def counting(self: Stylesheet, nodes: Any, animate: bool = False) -> None:
        nodes = list(nodes)
        restyled.extend(nodes)
        original(self, nodes, animate)

    monkeypatch.setattr(Stylesheet, "update_nodes", counting)
    app = make_app("vanishing", **launched)
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await pilot.pause()
        bars = [n for n in restyled if isinstance(n, (SceneTabs, FittingFooter))]
        assert bars == []
        assert app.query_one(SceneTabs).active == "vanishing"
        assert app.query_one(FittingFooter).palette is not None
        app.set_scene("memory")  # a switch still moves the active tab
        await app.until_ready()
        assert app.query_one(SceneTabs).active == "memory"


async def test_a_first_result_slower_than_the_hold_shows_the_notice_until_it_comes(
    make_app, launched, monkeypatch
):
    """The notice above the empty view is made only when the hold runs out without a result
    (a first result in time, as in almost every launch, never needs it)."""
    import threading

    from seqviz.scenes.base import Scene
    from seqviz.ui import app as app_module
    from seqviz.ui.kernel_status import FIRST_RESULT

    gate = threading.Event()
    results = Scene.results

    def slow_results(self: Any, values: Any, control: Any = None) -> Any:
        gate.wait(30)
        yield from results(self, values, control)

    monkeypatch.setattr(app_module, "FIRST_FRAME_HOLD", 0.05)
    monkeypatch.setattr(Scene, "results", slow_results)
    app = make_app("vanishing", **launched)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            if app._held is None:
                break
        notice = app.query_one("#notice")
        assert notice.display and FIRST_RESULT in str(notice.render())
        assert any(FIRST_RESULT[:40] in strip.text for strip in full_render(app))  # on screen
        assert app.result is None
        gate.set()
        await app.until_ready()
        await pilot.pause()
        assert not notice.display
        assert not app.query("#banner")  # the banner is made by the first caption only
        app.set_banner("a caption")
        await pilot.pause()
        assert app.query_one("#banner").display
