"""Closing the palette twice; parameter changes arriving after a scene switch (fuzz finds)."""

from __future__ import annotations

import pytest


async def _open_palette(app, pilot):
    from seqviz.ui.compat_textual import SafeCommandPalette

    app.action_command_palette()
    await pilot.pause()
    palette = app.screen
    assert isinstance(palette, SafeCommandPalette)
    return palette


@pytest.mark.slow
async def test_dismissing_the_palette_under_another_screen_leaves_both(make_app, ready):
    app = make_app("vanishing")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        palette = await _open_palette(app, pilot)
        app.action_help()  # a screen above the palette (a key queued before the palette drew)
        await pilot.pause()
        help_screen = app.screen
        assert help_screen is not palette

        # Unguarded, the first call popped the help screen and the second set the palette's
        # result again: the InvalidStateError of the 10,000-key test.
        def twice() -> None:  # inside the app's loop, as Escape and Enter run it
            palette.dismiss()
            palette.dismiss()

        palette.call_next(twice)
        await pilot.pause()
        await pilot.pause()
        assert app.is_running and app.screen is help_screen
        assert app.screen_stack[-2] is palette
        await pilot.press("escape")  # closes the help: the palette is back, and closes normally
        assert app.screen is palette
        await pilot.press("escape")
        assert len(app.screen_stack) == 1


async def _palette_command(app, query: str):
    from seqviz.ui.palette import ParamCommands

    provider = ParamCommands(app.screen)
    hits = [hit async for hit in provider.search(query)]
    assert hits, query
    return hits[0].command


@pytest.mark.slow
async def test_a_palette_command_queued_behind_a_scene_switch_is_dropped(make_app, ready):
    app = make_app("decoding")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        set_node = await _palette_command(app, "node 3")
        set_node()  # on its own scene it applies
        assert app.values.node == 3
        set_node = await _palette_command(app, "node 5")
        focus_node = await _palette_command(app, "nod")
        app.set_scene("gradflow")  # a scene key processed before the palette's call_later
        set_node()  # was: ValueError: scene gradflow has no parameter 'node'
        focus_node()
        await pilot.pause()
        assert app.is_running and app.scene.name == "gradflow"
        await ready(app, pilot)
        assert app.is_running and app._values["decoding"].node == 3


@pytest.mark.slow
async def test_a_click_on_the_view_of_the_scene_just_left_is_dropped(make_app, ready):
    app = make_app("decoding")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        view = app._view
        view._select(2)  # what a click or Enter on the beam tree does
        assert app.values.node == 2
        app.set_scene("gradflow")  # the old view still handles its queued keys until replaced
        view._select(4)  # was: ValueError: scene gradflow has no parameter 'node'
        view.action_toggle_ranking()
        await pilot.pause()
        assert app.is_running and app.scene.name == "gradflow"
        await ready(app, pilot)
        assert app.is_running and app._values["decoding"].node == 2


async def test_a_row_change_queued_behind_a_scene_switch_is_not_applied_to_the_new_scene(
    make_app, ready
):
    """vanishing and gradflow both have a ``seed``: a change the old scene's seed row sent just
    before the switch must not set the new scene's seed."""
    from seqviz.ui.widgets.controls import ParamPanel

    app = make_app("vanishing")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        row = app.query_one(ParamPanel).row("seed")
        assert row is not None and row.scene_name == "vanishing"
        row.nudge(1)  # its own scene: applies
        await pilot.pause()
        await ready(app, pilot)
        assert app.values.seed == 1
        row.nudge(1)  # queued ...
        app.set_scene("gradflow")  # ... behind a scene switch
        await pilot.pause()
        await ready(app, pilot)
        assert app.scene.name == "gradflow" and app.values.seed == 0
        new_row = app.query_one(ParamPanel).row("seed")
        assert new_row is not None and new_row.scene_name == "gradflow"
        new_row.nudge(1)  # the new scene's own row still works
        await pilot.pause()
        await ready(app, pilot)
        assert app.values.seed == 1 and app._values["vanishing"].seed == 1


async def test_the_theme_picker_and_command_lists_open_the_safe_palette(make_app, ready):
    """The palette's "Change theme" opens Textual's own palette unless told otherwise; closed
    twice in one burst, that one ended the app (InvalidStateError, 10,000-key test)."""
    from textual.command import SimpleCommand

    from seqviz.ui.compat_textual import SafeCommandPalette

    app = make_app("vanishing")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        app.action_change_theme()
        await pilot.pause()
        palette = app.screen
        assert isinstance(palette, SafeCommandPalette)

        def twice() -> None:  # inside the app's loop, as two Escapes in one burst run it
            palette.dismiss()
            palette.dismiss()

        palette.call_next(twice)
        await pilot.pause()
        await pilot.pause()
        assert app.is_running and len(app.screen_stack) == 1
        app.search_commands([SimpleCommand("a command", lambda: None, "help")])
        await pilot.pause()
        assert isinstance(app.screen, SafeCommandPalette)
