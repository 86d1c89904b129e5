"""Interaction defects: space right at start plays, initial focus, footer hints after Tab, small
screenshot notices never in a saved image, the presenter's maximise key and large captions."""

from __future__ import annotations

import asyncio

import pytest

from seqviz.ui.export import screen_text


@pytest.mark.xfail(
    strict=False,
    reason="open defect (issue 9): in a full sequential run the first space press is sometimes "
    "not taken as play; passes alone; not yet diagnosed",
)
async def test_space_pressed_before_the_first_result_plays_from_the_start(make_app):
    app = make_app("memory", animate=True, speed=60)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("space")  # within the first second: nothing computed yet
        assert app.playing
        await app.until_ready()
        await pilot.pause(0.3)
        assert 0 < app.frame < app.n_frames and app.playing  # it plays, from the start
        for _ in range(200):  # a loaded machine may not keep 60 frames/s
            if not app.playing:
                break
            await pilot.pause(0.1)
        assert app.frame == app.n_frames and not app.playing


async def test_first_parameter_has_focus_and_tab_keeps_the_frame_keys(make_app, ready):
    from seqviz.ui.widgets.controls import ParamRow

    app = make_app("vanishing")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        assert isinstance(app.focused, ParamRow) and app.focused.spec.name == "rho"
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused.spec.name == "hidden"
        footer = screen_text(app).splitlines()[-1]
        assert "step" in footer and "back" in footer and "play" in footer
        app.home()
        await pilot.press("right", "right")
        assert app.frame == 2
        app.set_scene("memory")
        await ready(app, pilot)
        assert app.focused.spec.name == "w"


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
        await pilot.pause(0.2)
        toasts = list(app.screen.query(Toast))
        assert len(toasts) == 1
        region = toasts[0].region
        assert region.height <= 2 and region.width <= 0.4 * 80 + 1
        assert export.SHOT_NOTICE_SECONDS <= 2
        await pilot.press("s")  # right away: the first notice is still up
        await pilot.pause(0.2)
        await asyncio.sleep(1.1)  # a new second, a new name
        shots = sorted(tmp_path.glob("*.svg"))
        assert len(shots) == 2
        for shot in shots:
            assert "saved" not in shot.read_text()


async def test_m_maximises_a_panel_and_restores(make_app, ready):
    from seqviz.ui.views.base import Panel

    app = make_app("gradflow")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        await pilot.press("m")
        await pilot.pause()
        panel = app.screen.maximized
        assert isinstance(panel, Panel) and panel.id == "flow-plot-panel"
        assert panel.region.width >= 150 and panel.region.height >= 40
        assert "play" in screen_text(app).splitlines()[-1]  # the key hints stay
        await pilot.press("m")
        await pilot.pause()
        assert app.screen.maximized is None


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
        await pilot.pause()
        assert app.screen.maximized is not None and "1/7" in screen_text(app)
        await pilot.press("m", "c")
        await pilot.pause()
        assert not banner.has_class("-large") and banner.region.height <= 3
