"""Interaction defects: space right at start plays, initial focus, footer hints after Tab, small
screenshot notices never in a saved image, the presenter's maximise key and large captions."""

from __future__ import annotations

import asyncio

import pytest
from waiting import until

from seqviz.ui.export import screen_text


@pytest.mark.slow
async def test_space_pressed_before_the_first_result_plays_from_the_start(make_app, monkeypatch):
    """Space is pressed while the first result is held back (a warm kernel cache would
    otherwise deliver it first and the test would prove nothing); once it arrives, every
    frame from the start to the end is drawn in order, whatever the machine's load."""
    import threading

    from seqviz.scenes.base import Scene

    release = threading.Event()
    original = Scene.results

    def held_results(self, values, control=None):
        release.wait(60)  # the worker thread waits; the app keeps taking keys
        yield from original(self, values, control)

    monkeypatch.setattr(Scene, "results", held_results)
    app = make_app("memory", animate=True, speed=60)
    async with app.run_test(size=(120, 40)) as pilot:
        try:
            await pilot.press("space")
            await until(lambda: app.playing, pilot, timeout=10)
            assert app.result is None and app.frame == 0  # pressed before any result
            shown: list[int] = []
            view_show_frame = app._view.show_frame

            def record(frame: int) -> None:
                shown.append(frame)
                view_show_frame(frame)

            monkeypatch.setattr(app._view, "show_frame", record)
        finally:
            release.set()
        await app.until_ready()
        await until(lambda: not app.playing, pilot, timeout=300)
        n = app.n_frames
        assert n > 1 and app.frame == n
        steps = [f for i, f in enumerate(shown) if i == 0 or f != shown[i - 1]]
        assert steps == list(range(n + 1))  # from frame 0, every frame in order, to the end


@pytest.mark.slow
async def test_first_parameter_has_focus_and_tab_keeps_the_frame_keys(make_app, ready):
    from seqviz.ui.widgets.controls import ParamRow

    app = make_app("vanishing")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        assert isinstance(app.focused, ParamRow) and app.focused.spec.name == "rho"
        await pilot.press("tab")
        await until(lambda: app.focused.spec.name == "hidden", pilot, what="tab")
        footer = screen_text(app).splitlines()[-1]
        assert "step" in footer and "back" in footer and "play" in footer
        app.home()
        await pilot.press("right", "right")
        await until(lambda: app.frame == 2, pilot, what="two steps")
        app.set_scene("memory")
        await ready(app, pilot)
        assert app.focused.spec.name == "w"


@pytest.mark.slow
async def test_screenshot_notice_is_small_short_and_never_in_a_saved_image(
    make_app, ready, tmp_path
):
    from textual.widgets._toast import Toast

    from seqviz.ui import export

    app = make_app("memory")
    app.shots_dir = tmp_path
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await ready(app, pilot)
        await pilot.press("s")
        await until(lambda: app.screen.query(Toast), pilot, what="the notice")
        await pilot.pause()
        toasts = list(app.screen.query(Toast))
        assert len(toasts) == 1
        region = toasts[0].region
        assert region.height <= 2 and region.width <= 0.4 * 80 + 1
        assert export.SHOT_NOTICE_SECONDS <= 2
        await pilot.press("s")  # right away: the first notice is still up
        await pilot.pause(0.2)
        await asyncio.sleep(1.1)  # a new second, a new name
        await until(lambda: len(list(tmp_path.glob("*.svg"))) >= 2, pilot, what="two shots")
        shots = sorted(tmp_path.glob("*.svg"))
        assert len(shots) == 2
        for shot in shots:
            assert "saved" not in shot.read_text()


@pytest.mark.slow
async def test_m_maximises_a_panel_and_restores(make_app, ready):
    from seqviz.ui.views.base import Panel

    app = make_app("gradflow")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        await pilot.press("m")
        await until(lambda: app.screen.maximized is not None, pilot, what="maximise")
        await pilot.pause()
        panel = app.screen.maximized
        assert isinstance(panel, Panel) and panel.id == "flow-plot-panel"
        assert panel.region.width >= 150 and panel.region.height >= 40
        assert "play" in screen_text(app).splitlines()[-1]  # the key hints stay
        await pilot.press("m")
        await until(lambda: app.screen.maximized is None, pilot, what="restore")


@pytest.mark.slow
@pytest.mark.parametrize("maximise", ["m", "palette"])
async def test_a_scene_switch_while_maximised_shows_the_new_scene(make_app, ready, maximise):
    # The maximised panel (or, through the palette's "Maximize", the focused parameter row)
    # was removed by the switch, and the screen went on showing it alone: a hatched, empty
    # screen with only the status line, until `m` was pressed again.
    from seqviz.ui.views.base import Panel

    app = make_app("vanishing")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        screen = app.screen
        if maximise == "m":
            await pilot.press("m")
        else:
            app.focus_param(app.scene.specs[0].name)
            await pilot.pause()
            screen.action_maximize()  # what the palette's "Maximize" runs
        await pilot.pause()
        maximised = screen.maximized
        assert (maximised is not None) == (maximise == "m")
        await pilot.press("2")
        await until(lambda: app.scene.name == "memory", pilot, what="the memory scene")
        await ready(app, pilot)
        assert screen.maximized is None
        shown = screen._compositor.visible_widgets
        assert app._view in shown and app._view.region.width >= 60
        assert any(isinstance(w, Panel) and w.region.height > 3 for w in shown)
        assert "parameters" in screen_text(app)


async def test_a_parameter_row_is_not_offered_for_maximising(make_app, ready):
    app = make_app("training")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        assert app.focused is not None and app.focused.id == "param-task"
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Maximize" not in titles and "Quit" in titles
        app.screen.action_maximize()
        await pilot.pause()
        assert app.screen.maximized is None


@pytest.mark.slow
async def test_demo_large_captions_and_caption_kept_when_maximised():
    from seqviz.lecture import find_demo
    from seqviz.lecture.runner import DemoApp

    app = DemoApp(find_demo("gradflow"), animate=False, large_captions=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.until_ready()
        await pilot.pause()
        banner = app.query_one("#banner")
        assert banner.has_class("-large") and banner.region.height >= 4
        await pilot.press("m")
        await until(lambda: app.screen.maximized is not None, pilot, what="maximise")
        await pilot.pause()
        assert "1/7" in screen_text(app)
        await pilot.press("m", "c")
        await until(lambda: not banner.has_class("-large"), pilot, what="small captions")
        await pilot.pause()
        assert app.screen.maximized is None and banner.region.height <= 3
