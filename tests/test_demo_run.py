"""Demos in the app (Pilot): every shipped demo plays to its end showing its numbers; the keys."""

from __future__ import annotations

import math
import textwrap

import pytest
from waiting import until

from seqviz.lecture import demo_names, find_demo, parse_demo
from seqviz.lecture.runner import SIZES, DemoApp, check_demo, cited_numbers, is_visible
from seqviz.ui.export import screen_text


@pytest.mark.slow
@pytest.mark.parametrize("name", demo_names())
async def test_every_shipped_demo_plays_to_its_end_and_shows_its_numbers(name):
    # check_demo steps through every step at 100x30, 120x40 and 160x50 and looks for each
    # `expect` text and each number the caption cites on screen (the caption's own rows aside).
    assert await check_demo(find_demo(name), SIZES) == []


def test_cited_numbers_and_their_visibility():
    assert cited_numbers("f near sigmoid(1) = 0.73, 0.5^10, 3.2e-17 at k = 99, 400 steps") == [
        "0.73", "0.5", "3.2e-17"]  # fmt: skip
    assert is_visible("0.73", ["mean f = 0.727"]) and is_visible("0.13", ["prod 1.3e-01"])
    assert is_visible("3.2e-17", ["GRU 3.2e-17"]) and not is_visible("3.2e-17", ["3.3e-17"])
    assert not is_visible("0.73", ["0.74 7.3"])


@pytest.mark.slow
async def test_a_caption_number_shown_only_in_the_caption_is_reported():
    demo = parse_demo(
        textwrap.dedent(
            """
            title = "cites what is not there"
            [[step]]
            scene = "memory"
            set = { forget_bias = 5.0 }
            caption = "c keeps 0.123456 of the pulse"
            """
        ),
        "cite.toml",
    )
    problems = await check_demo(demo, [(100, 30), (160, 50)])
    assert problems == [
        f"cite.toml:3: step 1 at {w}x{h}: the caption cites 0.123456, the screen does not show it"
        for w, h in [(100, 30), (160, 50)]
    ]


@pytest.mark.slow
async def test_the_results_behind_the_screen_are_the_lessons():
    """Beyond the screen text: the numbers the app computed at the demo's steps."""

    async def results(name):
        demo = find_demo(name)
        app = DemoApp(demo, animate=False)
        out = []
        async with app.run_test(size=(160, 50)) as pilot:
            for i in range(len(demo)):
                await app.goto(i)
                await pilot.pause()
                out.append(app.result)
        return out

    van = await results("vanishing")
    assert [f"{r.norms_tanh[59]:.1e}" for r in van[1:4]] == ["3.5e-13", "9.5e-09", "1.4e-05"]
    assert f"{van[4].norms_linear[59]:.1e}" == "2.2e+04"
    assert van[5].overflow is not None  # the last step pushes it into inf
    mem = await results("memory")
    assert f"{mem[0].rnn_h[-1]:.2e}" == "1.48e-05" and f"{mem[1].rnn_h[-1]:.3f}" == "0.859"
    assert [f"{r.lstm_c[-1]:.3f}" for r in mem[2:5]] == ["0.000", "0.487", "0.942"]
    assert f"{mem[5].forget ** 100:.2f}" == "0.13" and f"{mem[6].forget ** 10:.3f}" == "0.001"
    dec = await results("decoding")
    p = [math.exp(r.final.best.logprob) for r in dec[:3]]
    assert [f"{x:.3f}" for x in p] == ["0.140", "0.292", "0.292"]
    assert f"{math.exp(dec[0].greedy.logprob):.3f}" == "0.140"


@pytest.mark.slow
async def test_check_demo_reports_what_the_screen_does_not_show():
    demo = parse_demo(
        textwrap.dedent(
            """
            title = "wrong on purpose"
            [[step]]
            scene = "memory"
            set = { forget_bias = 5.0 }
            caption = "c"
            expect = ["LSTM f = 0.99331 c = 0.487", "LSTM f = 0.99331 c = 0.999"]
            """
        ),
        "wrong.toml",
    )
    problems = await check_demo(demo, (160, 50))
    assert problems == [
        "wrong.toml:3: step 1: the screen does not show 'LSTM f = 0.99331 c = 0.999'"
    ]


@pytest.mark.slow
async def test_keys_move_like_slides_and_show_the_counter():
    demo = find_demo("memory")
    app = DemoApp(demo, animate=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.index == 0 and " 1/7 " in screen_text(app)
        await pilot.press("n")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.index == 1 and app.values.w == 1.5
        assert " 2/7 " in screen_text(app) and "locks near 0.86" in screen_text(app)
        await pilot.press("pagedown", "pagedown")
        await app.workers.wait_for_complete()
        assert app.index == 3 and app.values.forget_bias == 5.0
        # Live changes are allowed; stepping back and forth re-creates the script's values.
        app.set_param("forget_bias", 7.5)
        await pilot.press("N")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.index == 2 and app.values.forget_bias == 2.0
        await pilot.press("pageup", "pageup", "pageup")  # stops at the first step
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.index == 0 and app.values.w == 0.9 and app.values.forget_bias == 2.0
        for _ in range(10):  # and at the last
            await pilot.press("n")
        await app.workers.wait_for_complete()
        await app.until_ready()
        await pilot.pause()
        assert app.index == 6 and "7/7" in screen_text(app) and "(last step)" in screen_text(app)
        assert app.values.steps == 10 and app.result.T == 10


@pytest.mark.slow
async def test_slide_keys_work_while_a_text_box_has_focus():
    demo = find_demo("gates")
    app = DemoApp(demo, animate=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.workers.wait_for_complete()
        app.focus_param("text")
        await pilot.pause()
        await pilot.press("pagedown")  # a priority binding: the text box does not eat it
        await app.workers.wait_for_complete()
        assert app.index == 1


@pytest.mark.slow
async def test_play_action_animates_to_the_end():
    demo = parse_demo(
        textwrap.dedent(
            """
            title = "play"
            [[step]]
            scene = "memory"
            set = { steps = 20 }
            actions = ["speed 60", "home", "play"]
            caption = "watch"
            """
        )
    )
    app = DemoApp(demo)  # the animation timer runs
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        assert app.playing and app.speed == 60
        await until(lambda: not app.playing, pilot, what="the end of the animation")
        assert not app.playing and app.frame == app.n_frames == 20


@pytest.mark.slow
async def test_select_points_the_scene_cursor():
    demo = parse_demo(
        textwrap.dedent(
            """
            title = "select"
            [[step]]
            scene = "decoding"
            set = { width = 2, alpha = 0.0, max_len = 6 }
            actions = ["select a small"]
            caption = "a"
            [[step]]
            actions = ["select no such words"]
            caption = "b"
            [[step]]
            scene = "gates"
            actions = ["select 7"]
            caption = "c"
            """
        )
    )
    app = DemoApp(demo, animate=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        node = app.result.nodes[app.values.node]
        assert app.result.words(node) == "a small"
        assert "after <s> a small" in screen_text(app)
        await app.goto(1)
        assert app.step_errors == ["step 2: no tree node reads 'no such words'"]
        await app.goto(2)
        await pilot.pause()
        assert app.values.unit == 7 and "unit 7" in screen_text(app)


@pytest.mark.slow
@pytest.mark.parametrize("name", demo_names())
async def test_demos_run_at_80x24(name):
    demo = find_demo(name)
    app = DemoApp(demo, animate=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for i in range(len(demo)):
            await app.goto(i)
            await pilot.pause()
            assert not app._error
            text = screen_text(app)
            assert f"{i + 1}/{len(demo)}" in text


@pytest.mark.slow
def test_cli_check_passes_a_good_demo_and_fails_a_wrong_one(tmp_path, capsys):
    from seqviz.cli import main

    assert main(["demo", "gradflow", "--check"]) == 0
    assert capsys.readouterr().out.strip() == (
        "gradflow: 7 steps at 100x30, 120x40, 160x50, all expected values shown"
    )
    path = tmp_path / "wrong.toml"
    path.write_text('title = "t"\n[[step]]\nscene = "memory"\ncaption = "c"\nexpect = ["nope!"]\n')
    assert main(["demo", str(path), "--check", "--size", "160x50"]) == 1
    out = capsys.readouterr().out
    assert f"{path}:2: step 1: the screen does not show 'nope!'" in out  # one size: no label
    assert "1 problem(s)" in out
