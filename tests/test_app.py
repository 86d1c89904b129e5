"""Pilot tests of the app: every binding, scene switches, parameters from keys/palette/CLI."""

from __future__ import annotations

import os

import pytest
from waiting import palette_options, palette_search, until

from seqviz.scenes import scene_names


@pytest.mark.slow
async def test_opens_on_scene_with_values(make_app, ready):
    app = make_app("vanishing", {"rho": 1.2, "steps": 100})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        assert app.values.rho == 1.2 and app.values.steps == 100
        assert app.result.T == 100
        assert app.frame == app.n_frames == 200  # opens on the whole picture
        assert app.query_one("#scene-tabs").active == "vanishing"
        # the compile notice is gone (a first result within the hold never needed it)
        assert all(not notice.display for notice in app.query("#notice"))


@pytest.mark.slow
async def test_number_keys_switch_every_scene(make_app, ready):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        keys = "1234567890"  # 0 is the tenth scene's key
        for key, name in zip(keys, scene_names(), strict=False):
            await pilot.press(key)
            await ready(app, pilot)
            assert app.scene.name == name
            assert app.query_one(f"#view-{name}") is not None
            assert app.result is not None and app.result.values == app.values
        # scenes past the tenth have no number key: the scene bar and the palette reach them
        for name in scene_names()[10:]:
            app.set_scene(name)
            await ready(app, pilot)
            assert app.scene.name == name and app.result.values == app.values
        await pilot.press("9")
        await until(lambda: app.scene.name == scene_names()[min(8, len(scene_names()) - 1)], pilot)
        assert app.scene.name == scene_names()[min(8, len(scene_names()) - 1)]


@pytest.mark.slow
async def test_clicking_a_tab_switches_scene(make_app, ready):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        tabs = app.query_one("#scene-tabs")
        await pilot.click("#scene-tabs", offset=tabs.tab_offset("memory"))
        await ready(app, pilot)
        assert app.scene.name == "memory"
        assert tabs.active == "memory"
        await pilot.click("#scene-tabs", offset=(1, 0))  # the app's name is no tab
        await pilot.pause()
        assert app.scene.name == "memory"


@pytest.mark.slow
async def test_step_home_end_and_play(make_app, ready):
    # 1000 frames take 17 s at 60 frames/s: playback cannot reach the end while a key is pressed.
    app = make_app("memory", {"steps": 1000}, animate=True, speed=60)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        n = app.n_frames
        await pilot.press("home")
        await until(lambda: app.frame == 0, pilot, what="home")
        await pilot.press("right", "right", "right")
        await until(lambda: app.frame == 3, pilot, what="three steps")
        await pilot.press("left")
        await until(lambda: app.frame == 2, pilot, what="one step back")
        await pilot.press("end")
        await until(lambda: app.frame == n, pilot, what="end")
        await pilot.press("space")  # at the end: plays again from the start
        await until(lambda: app.playing, pilot, what="play")
        assert app.frame < n, (app.frame, n)
        await until(lambda: 0 < app.frame, pilot, what="the first frames")
        await pilot.press("space")
        await until(lambda: not app.playing, pilot, what="pause")
        frozen = app.frame
        await pilot.pause(0.2)
        assert app.frame == frozen


@pytest.mark.slow
async def test_play_runs_to_the_end_and_stops(make_app, ready):
    app = make_app("memory", {"steps": 10}, animate=True, speed=60)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        app.play()
        await until(lambda: not app.playing, pilot, what="the end")  # a busy machine is slow
        assert app.frame == app.n_frames == 10 and not app.playing


@pytest.mark.slow
async def test_plus_minus_brackets_change_the_focused_parameter(make_app, ready):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        app.focus_param("rho")
        await pilot.press("plus")
        await ready(app, pilot)
        assert app.values.rho == pytest.approx(1.05)
        await pilot.press("right_square_bracket", "equals_sign")
        await until(lambda: app.values.rho == pytest.approx(1.15), pilot)
        assert app.values.rho == pytest.approx(1.15)
        await pilot.press("minus", "left_square_bracket")
        await ready(app, pilot)
        assert app.values.rho == pytest.approx(1.05)
        assert max(abs(app.result.eigenvalues)) == pytest.approx(1.05)
        await pilot.press("tab")  # focus moves to the next parameter
        await pilot.press("plus")
        await ready(app, pilot)
        assert app.values.hidden == 72 and app.result.h.shape[1] == 72


@pytest.mark.slow
async def test_up_down_move_between_parameters(make_app, ready):
    app = make_app("memory")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        app.focus_param("w")
        await pilot.press("down")
        await pilot.press("plus")
        await ready(app, pilot)
        assert app.values.forget_bias == 5.5 and app.values.w == 0.9


@pytest.mark.slow
async def test_mouse_clicks_the_arrows(make_app, ready):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        row = app.query_one("#param-rho")
        right = row.region.right - 2  # the ▸ arrow, inside the row's padding
        await pilot.click(offset=(right, row.region.y))
        await ready(app, pilot)
        assert app.values.rho == pytest.approx(1.05)
        left = row.region.right - 2 - len(row.spec.format(row.value)) - 2
        await pilot.click(offset=(left, row.region.y))
        await ready(app, pilot)
        assert app.values.rho == pytest.approx(1.0)


@pytest.mark.slow
async def test_reset_restores_defaults(make_app, ready):
    app = make_app("vanishing", {"rho": 2.0, "seed": 3})
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("r")
        await ready(app, pilot)
        assert app.values == app.scene.defaults()


@pytest.mark.slow
async def test_speed_keys(make_app, ready):
    app = make_app(speed=20)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("greater_than_sign")
        await until(lambda: app.speed == 30, pilot, what="greater_than_sign")
        assert app.speed == 30
        await pilot.press("less_than_sign", "less_than_sign")
        await until(lambda: app.speed == 15, pilot, what='"less_than_sign", "less_than_sign"')
        assert app.speed == 15
        await pilot.press("full_stop")
        await until(lambda: app.speed == 20, pilot, what="full_stop")
        assert app.speed == 20
        with pytest.raises(ValueError, match="from 1 to 60"):
            app.set_speed(500)


@pytest.mark.slow
async def test_help_screen_opens_and_closes(make_app, ready):
    from seqviz.ui.help import HelpScreen

    app = make_app("memory")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("question_mark")
        await until(lambda: isinstance(app.screen, HelpScreen), pilot, what="question_mark")
        assert isinstance(app.screen, HelpScreen)
        names = list(app.screen.params_table.columns[0].cells)
        assert names == ["w", "forget_bias", "steps"]
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, HelpScreen), pilot, what="escape")
        assert not isinstance(app.screen, HelpScreen)


@pytest.mark.slow
async def test_q_quits(make_app, ready):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0 and not app.is_running


@pytest.mark.slow
async def test_palette_sets_a_parameter_by_name_and_value(make_app, ready):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await palette_search(app, pilot, "rho 1.2", "set rho = 1.2")
        await pilot.press("enter")
        await until(lambda: app.values.rho == pytest.approx(1.2), pilot, what="rho = 1.2")
        await ready(app, pilot)
        await palette_search(app, pilot, "scene memory", "scene memory")
        await pilot.press("enter")
        await until(lambda: app.scene.name == "memory", pilot, what="the memory scene")
        await ready(app, pilot)


@pytest.mark.slow
async def test_palette_refuses_out_of_range(make_app, ready):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await palette_search(app, pilot, "rho 99", "rho must be a number from 0.05 to 3.00")
        await pilot.press("enter")
        await pilot.pause()
        assert app.values.rho == 1.0


@pytest.mark.slow
async def test_palette_shows_brackets_as_typed(make_app, ready):
    """Palette lines hold what the user typed; Textual reads a plain str as markup, where "[/]"
    raised (and the app ended) and "[b]" vanished."""
    app = make_app("gates", {"text": "keys [/] to [b]it"})
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("ctrl+p")
        await until(lambda: palette_options(app), pilot, what="the palette's list")
        assert any("text keys [/] to [b]it" in line for line in palette_options(app))
        await palette_search(app, pilot, "hidden [/]", "hidden must be an integer")
        lines = palette_options(app)
        assert any("[/]" in line and "hidden" in line for line in lines), lines
        await pilot.press("enter")  # a refused value: a bell, nothing applied
        await pilot.pause()
        assert app.is_running and app.values.hidden == 16


@pytest.mark.slow
async def test_typed_text_drives_the_gates_scene(make_app, ready):
    app = make_app("gates", {"model": "random"})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        field = app.query_one("#param-text")
        field.focus()
        field.value = ""
        await pilot.press(*"hello")
        await ready(app, pilot)
        assert app.values.text == "hello" and app.result.T == 5
        app.focus_param("cell")
        await pilot.press("plus")
        await ready(app, pilot)
        assert app.result.cell == "gru"
        # the GRU's h as its two parts where the LSTM shows o and c
        assert app.query_one("#gate-4").border_title == "written z*n"
        app.focus_param("unit")
        await pilot.press("plus", "plus")
        await pilot.pause()
        assert app.values.unit == 2
        assert "unit 2" in str(app.query_one("#unit-panel").border_title)


@pytest.mark.slow
async def test_programmatic_interface(make_app, ready):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        app.set_scene("memory", {"w": 1.5})
        app.set_param("forget_bias", "10")
        await ready(app, pilot)
        assert (app.scene.name, app.values.w, app.values.forget_bias) == ("memory", 1.5, 10.0)
        assert f"{app.result.lstm_c[-1]:.3f}" == "0.942"
        app.home()
        app.step(5)
        assert app.frame == 5
        app.set_banner("The forget gate keeps the pulse")
        await pilot.pause()
        assert app.query_one("#banner").display
        app.set_banner(None)
        await pilot.pause()
        assert not app.query_one("#banner").display
        with pytest.raises(ValueError, match="no parameter 'rho'"):
            app.set_param("rho", 1)
        with pytest.raises(ValueError, match="unknown scene"):
            app.set_scene("nope")


@pytest.mark.slow
async def test_overflow_is_drawn_and_reported(make_app, ready):
    app = make_app("vanishing", {"rho": 3.0, "nonlinearity": "linear", "steps": 1000})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        assert app.result.overflow is not None
        status = str(app.query_one("#status").render())
        assert f"overflow at step {app.result.overflow.step}" in status
        readout = app.query_one("#readout")
        lines = [readout.render_line(y).text for y in range(readout.size.height)]
        # the readout opens with the overflow: where it happened, and how inf/nan are drawn
        assert lines and lines[0].startswith(f"overflow at step {app.result.overflow.step} (")
        assert "inf/nan drawn in magenta" in " ".join(lines[:2])
        heatmap = app.query_one("#h-heatmap")
        assert (heatmap._bins == heatmap._cmap.nonfinite_bin).any()


@pytest.mark.slow
async def test_resize_small_and_back(make_app, ready):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        for name in scene_names():
            app.set_scene(name)
            await ready(app, pilot)
            for size in ((40, 12), (80, 24), (200, 60), (20, 6), (160, 50)):
                await pilot.resize_terminal(*size)
                await pilot.pause()
            assert app.screen.has_class("-compact") is False


async def test_cli_values_reach_the_app(app_from_cli, ready):
    app = app_from_cli(["--scene", "vanishing", "--set", "rho=1.2", "--set", "steps=100"])
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        assert (app.values.rho, app.values.steps, app.result.T) == (1.2, 100, 100)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--scene", "nope"],
            "unknown scene 'nope'; scenes are vanishing, memory, gates, gradflow",
        ),
        (["--set", "rho=9"], "rho must be a number from 0.05 to 3.00"),
        (["--set", "zzz=1"], "its parameters are rho, hidden, steps"),
        (["--scene", "memory", "--set", "w"], "--set expects NAME=VALUE"),
        (["--weights", "/no/such/file.npz"], "no such weights file"),
    ],
)
def test_cli_errors_are_one_line(argv, message, capsys):
    from seqviz.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("seqviz: error: ") and message in err
    assert err.count("\n") == 1


def _bottom_line(app) -> str:
    from rich.console import Console

    console = Console(width=app.size.width, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text().splitlines()[-1]


@pytest.mark.slow
@pytest.mark.parametrize("scene", ["vanishing", "decoding"])
async def test_footer_keeps_every_key_hint_readable_when_narrow(make_app, ready, scene):
    """The palette hint, docked right, would cover the last hints: on a narrow screen it goes
    first; with room it comes back."""
    app = make_app(scene)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(app, pilot)
        wide = _bottom_line(app)
        assert "q quit" in wide and "palette" in wide
        for width in (80,):
            await pilot.resize_terminal(width, 24)
            await pilot.pause()
            await pilot.pause()
            line = _bottom_line(app)
            assert "? help" in line and "q quit" in line, line
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        await pilot.pause()
        assert "palette" in _bottom_line(app)


@pytest.mark.slow
async def test_param_labels_give_way_to_spacing_before_being_cut(make_app, ready):
    app = make_app("vanishing")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        row = app.query_one("#param-nonlinearity")
        width = row.size.width
        assert str(row.render()).split("◂")[0].strip() == "nonlinearity"  # not "nonlinearit"
        assert len(str(row.render())) == width - 1
        rho = str(app.query_one("#param-rho").render())
        assert rho.startswith("rho ") and "1.00" in rho  # the short name, not a cut label
        label, value = row._control(12)  # far too narrow: an ellipsis, never a silent cut
        assert label.endswith("…") and value == "tanh"


@pytest.mark.slow
async def test_switching_scenes_frees_the_old_views(make_app, ready):
    """A lecture switches scenes all the time: removed plots, text fields and footer hints must
    not stay reachable (signal subscriptions and data bindings used to hold them)."""
    import gc
    import weakref
    from collections import Counter

    from textual.widget import Widget

    # What earlier tests in this process left alive (a worker thread still finishing, a kept
    # traceback) is not this app's leak: only widgets made from here on are checked.
    gc.collect()
    earlier = weakref.WeakSet(o for o in gc.get_objects() if isinstance(o, Widget))

    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)

        async def one_round() -> Counter[str]:
            for name in scene_names():
                app.set_scene(name)
                await ready(app, pilot)
            # The app keeps its heap frozen between scene switches less than a second apart
            # (tests/test_latency_path.py): thaw it, so that what is collected here is exactly
            # what nothing references any more.
            app._thaw_heap(collect=False)
            gc.collect()
            return Counter(type(o).__name__ for o in gc.get_objects())

        await one_round()  # the first visit of each scene fills caches and imports lazily
        counts = [await one_round() for _ in range(3)]
        removed = [
            w
            for w in gc.get_objects()
            if isinstance(w, Widget) and not w.is_attached and w not in earlier
        ]
        assert [type(w).__name__ for w in removed] == []
        # A leak of the old views grows the heap by the same amount every round (it was +90,000
        # objects a round); a one-off (a lazy import, a cache filling up, another test's thread
        # ending) shows in one round only.
        sizes = [sum(counts[i + 1].values()) - sum(counts[i].values()) for i in range(2)]
        growths = [(counts[i + 1] - counts[i]).most_common(8) for i in range(2)]
        assert min(sizes) < 10_000, (sizes, growths)
