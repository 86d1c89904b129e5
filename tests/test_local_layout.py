"""A layout asked for inside an island container (the parameter panel) arranges that container
alone, and leaves the screen exactly as Textual's whole-screen pass would (issue 16)."""

from __future__ import annotations

from typing import Any

import pytest
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from seqviz.ui.compat_textual import (
    RegionScreen,
    ScreenMirror,
    capture_updates,
    full_render,
    paint_now,
)


class Island(VerticalScroll):
    LAYOUT_ISLAND = True
    DEFAULT_CSS = "Island { width: 30; height: 1fr; }"


class Other(Vertical):
    DEFAULT_CSS = "Other { width: 1fr; height: 1fr; }"


class IslandApp(App[None]):
    def get_default_screen(self) -> Screen[Any]:
        return RegionScreen(id="_default")

    def compose(self) -> ComposeResult:
        with Horizontal():
            with Island(id="island"):
                for i in range(30):  # more than the screen's height: a scrollbar
                    yield Static(f"row {i} " + "x" * (i % 7), id=f"row-{i}")
            with Other(id="other"):
                yield Static("a", id="a")
                yield Static("b", id="b")


def _whole_passes() -> tuple[list[int], Any]:
    passes: list[int] = []
    original = Screen._refresh_layout

    def counted(screen: Any, *args: Any, **kwargs: Any) -> None:
        passes.append(1)
        original(screen, *args, **kwargs)

    Screen._refresh_layout = counted  # type: ignore[method-assign]
    return passes, original


def _as_arranged_whole(app: App[Any]) -> None:
    """The compositor's map and widgets equal a whole-screen arrangement's, and the cells sent
    so far equal the screen drawn from scratch (checked by the caller's mirror)."""
    screen = app.screen
    compositor = screen._compositor
    arranged, widgets = Compositor()._arrange_root(screen, compositor.size, visible_only=False)
    assert compositor.full_map == arranged
    assert compositor.widgets == widgets


async def test_rows_shown_and_hidden_in_an_island_lay_out_the_island_alone() -> None:
    app = IslandApp()
    async with app.run_test(size=(60, 20)) as pilot:
        await paint_now(app, pilot)
        mirror = ScreenMirror.of_strips(full_render(app), 60)
        capture_updates(app, mirror.apply)
        passes, original = _whole_passes()
        try:
            steps: list[tuple[str, bool, Any]] = [
                ("hide a few", False, lambda: [
                    setattr(app.query_one(f"#row-{i}"), "display", False) for i in (1, 4, 5)]),
                # the scrollbar goes: it asks for a layout of the island's parent (Textual's)
                ("hide most", True, lambda: [
                    setattr(app.query_one(f"#row-{i}"), "display", False) for i in range(8, 30)]),
                ("hide one more", False, lambda: setattr(
                    app.query_one("#row-7"), "display", False)),
                ("show them again", True, lambda: [
                    setattr(app.query_one(f"#row-{i}"), "display", True) for i in range(30)]),
                ("a row grows", False, lambda: setattr(app.query_one("#row-3").styles, "height",
                                                       3)),
                # a scroll arranges only what shows (Textual): the next layout is Textual's;
                # the check below arranges the whole map again, so the one after is local
                ("scroll", True, lambda: app.query_one(Island).scroll_to(y=6, animate=False)),
                ("a row hidden while scrolled", False, lambda: setattr(
                    app.query_one("#row-2"), "display", False)),
                ("a row in view grows while scrolled", False, lambda: setattr(
                    app.query_one("#row-9").styles, "height", 2)),
            ]  # fmt: skip
            for name, whole, step in steps:
                await pilot.pause()  # what the step before set off
                await paint_now(app, pilot)
                passes.clear()
                step()
                await paint_now(app, pilot)
                await paint_now(app, pilot)
                if not whole:
                    assert passes == [], name
                _as_arranged_whole(app)
                scratch = ScreenMirror.of_strips(full_render(app), 60)
                assert mirror.cells == scratch.cells, (name, mirror.first_difference(scratch))
            # outside an island: Textual's whole-screen pass, as before
            app.query_one("#a").display = False
            await paint_now(app, pilot)
            assert passes, "a layout outside the island"
            _as_arranged_whole(app)
        finally:
            Screen._refresh_layout = original  # type: ignore[method-assign]


@pytest.mark.slow
@pytest.mark.parametrize("size", [(160, 50), (80, 24)])
async def test_a_walk_through_the_gates_models_lays_out_only_the_parameter_panel(size, make_app):
    # Each model shows other parameter rows (a tagger's layer and direction, the random
    # network's knobs, the weights path): the panel is laid out alone, and the screen is what
    # a whole-screen pass and a paint from scratch give.
    app = make_app("gates")
    async with app.run_test(size=size) as pilot:
        await app.until_ready()
        await paint_now(app, pilot)
        mirror = ScreenMirror.of_strips(full_render(app), size[0])
        capture_updates(app, mirror.apply)
        spec = app.scene.spec("model")
        models = [*spec.choices[1:], spec.choices[0], *spec.choices[1:]]  # every one, twice
        passes, original = _whole_passes()
        try:
            for model in models:
                app.set_param("model", model)
                await app.until_ready()
                await paint_now(app, pilot)
                await paint_now(app, pilot)
                _as_arranged_whole(app)
                scratch = ScreenMirror.of_strips(full_render(app), size[0])
                assert mirror.cells == scratch.cells, model
        finally:
            Screen._refresh_layout = original  # type: ignore[method-assign]
        if size == (160, 50):
            # the first GRU grows the info line: laid out whole once, as before; nothing after
            assert len(passes) <= 1, passes


async def test_rows_set_and_then_hidden_build_no_map_of_the_whole_screen(make_app):
    # A model switch sets the values of rows it then hides (random -> a shipped model: its
    # knobs). Textual took such a dirty, unshown row for a new widget and arranged the whole
    # screen again at the next size asked; the screen is still what a whole pass gives.
    app = make_app("gates", {"model": "random"})
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_ready()
        await paint_now(app, pilot)
        mirror = ScreenMirror.of_strips(full_render(app), 160)
        capture_updates(app, mirror.apply)
        compositor = app.screen._compositor
        rebuilt: list[bool] = []
        original = Compositor._arrange_root

        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            if self is compositor:  # relayout_island arranges the panel on a compositor of its own
                rebuilt.append(True)
            return original(self, *args, **kwargs)

        Compositor._arrange_root = counted  # type: ignore[method-assign]
        try:
            for model in ("agreement", "random", "file", "agreement"):
                app.set_param("model", model)
                await app.until_ready()
                await paint_now(app, pilot)
                await paint_now(app, pilot)
                assert rebuilt == [], model
        finally:
            Compositor._arrange_root = original  # type: ignore[method-assign]
        _as_arranged_whole(app)
        assert mirror.cells == ScreenMirror.of_strips(full_render(app), 160).cells


async def test_a_paint_before_the_layout_a_removal_asks_for_never_draws_the_removed_widget(
    make_app,
) -> None:
    # Textual detaches a removed widget (no parent, so no screen) and only then asks its parent
    # for a layout, through two message queues. Until that layout the screen's map still holds
    # the widget: a paint in between (a result painted at once, the screen's timer, a
    # screenshot) drew it, and a parameter row with no screen cannot draw (NoScreen ended the
    # app: the random-keys test on a slower machine, a scene switch removing the rows).
    app = make_app("training")
    async with app.run_test(size=(100, 30)) as pilot:
        await app.until_ready()
        await paint_now(app, pilot)
        mirror = ScreenMirror.of_strips(full_render(app), 100)
        capture_updates(app, mirror.apply)
        screen = app.screen
        gone = app.query_one("#param-task")
        panel = gone.parent
        panel.refresh = lambda *args, **kwargs: panel  # the layout asked for, held back
        try:
            await gone.remove()
        finally:
            del panel.refresh
        assert gone._parent is None and gone in screen._compositor._full_map  # the window
        screen.refresh()  # the whole screen due: every mapped widget draws
        screen._on_timer_update()  # the screen's timer, or paint_pending for a result
        assert "param" in app.export_screenshot()
        assert app.is_running and app._exception is None
        panel.refresh(layout=True)  # the layout comes
        await paint_now(app, pilot)
        await paint_now(app, pilot)
        _as_arranged_whole(app)
        scratch = ScreenMirror.of_strips(full_render(app), 100)
        assert mirror.cells == scratch.cells, mirror.first_difference(scratch)
