"""A screen under another (help, the palette) is drawn as the top screen's background from its
last layout: widgets removed from it since (a scene switch queued behind the key that opened
help) must not be drawn, and never end the app."""

from __future__ import annotations

import pytest

SIZE = (100, 30)


@pytest.mark.parametrize("opens", ["help", "palette"])
async def test_a_scene_switched_under_another_screen_leaves_removed_rows_undrawn(make_app, opens):
    app = make_app("vanishing")
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await pilot.pause()
        main = app.screen
        rows = list(main.query("ParamRow"))
        app.set_scene("gates")  # removes vanishing's rows, in a later turn of the loop
        if opens == "help":  # the key queued behind the switch: the main screen is background
            app.action_help()
        else:
            app.action_command_palette()
        await pilot.pause()
        assert app.screen is not main
        removed = [row for row in rows if not row.is_attached]
        assert removed, "the switch removed no row: the test shows nothing"
        for row in removed:
            row.refresh()  # dirty, as a row that changed on its way out
        app.screen.refresh()  # the help screen repaints its background
        await pilot.pause()
        assert app.is_running
        drawn = app.screen._compositor.render_strips()  # the help screen, over the main one
        assert len(drawn) == SIZE[1]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is main and app.scene.name == "gates"
