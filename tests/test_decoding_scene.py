"""The decoding-tree scene: its computation and tree layout, and Pilot tests of its view."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from waiting import palette_search, until

from seqviz.decoding.search import WIDTH_FINISHED
from seqviz.scenes import get_scene, scene_names
from seqviz.scenes.decoding import compute, frame_step, frames, tree_rows

SCENE = get_scene("decoding")


def words(result, node):
    return result.words(node)


def make(**changes):
    return SCENE.make(changes)


# --- the scene's computation (no Textual) -------------------------------------------------------


def test_defaults_show_the_lessons_greedy_and_beam():
    r = compute(SCENE.defaults())
    assert r.error is None
    assert words(r, r.greedy) == "the dog </s>"
    assert math.exp(r.greedy.logprob) == pytest.approx(0.140, abs=5e-4)
    assert words(r, r.final.best) == "a small cat </s>"
    assert math.exp(r.final.best.logprob) == pytest.approx(0.2916, abs=5e-5)
    assert frames(r) == 2 * r.n_steps and r.n_steps == 5


def test_frames_map_to_search_steps():
    assert frame_step(0) == (0, True)
    assert [frame_step(f) for f in (1, 2, 3, 4)] == [(1, False), (1, True), (2, False), (2, True)]


def test_tree_grows_scored_then_decided():
    r = compute(SCENE.defaults())
    rows = tree_rows(r, 0, 3)
    assert [row.node.text for row in rows] == ["<s>"]
    scored = tree_rows(r, 1, 3)
    assert [(row.node.text, row.status, row.rank) for row in scored[1:]] == [
        ("the", "pending", 1),
        ("a", "pending", 2),
        ("</s>", "pending", 3),
    ]
    assert scored[0].live  # the root is the beam being extended
    decided = tree_rows(r, 2, 3)
    assert [(row.node.text, row.status) for row in decided[1:]] == [
        ("the", "kept"),
        ("a", "kept"),
        ("</s>", "pruned"),
    ]
    assert [row.node.text for row in decided if row.live] == ["the", "a"]


def test_last_frame_holds_every_node_and_marks_finished():
    r = compute(SCENE.defaults())
    rows = tree_rows(r, frames(r), 100)
    assert len(rows) == len(r.nodes)
    finished = {words(r, row.node) for row in rows if row.status == "finished"}
    assert finished == {"the dog </s>", "a small cat </s>", "a small cat sat </s>"}


def test_pruned_children_fold_but_the_selected_one_stays():
    r = compute(make(model="lstm", width=2, max_len=4))
    rows = tree_rows(r, 2, 2)
    folds = [row for row in rows if row.node is None]
    assert folds and all(row.folded > 0 for row in folds)
    shown = [row for row in rows if row.node is not None]
    # 1 root + every kept child + 2 pruned ones + a fold line for the rest
    assert len(shown) == 1 + 2 + 2
    assert folds[0].folded == len(r.children[0]) - 4
    assert folds[0].folded_max == pytest.approx(r.nodes[r.children[0][4]].token_prob)
    hidden = r.children[0][-1]
    rows = tree_rows(r, 2, 2, selected=hidden)
    assert hidden in {row.node.id for row in rows if row.node is not None}


def test_keep_live_variant_keeps_width_live_hypotheses():
    r = compute(make(variant="keep_live"))
    for step in r.steps:
        if step.stop is None:
            assert len(step.beam) == r.values.width
    assert r.steps[-1].stop == WIDTH_FINISHED
    lesson = compute(SCENE.defaults())
    assert len(r.final.hypotheses) > len(lesson.final.hypotheses)


def test_width_one_is_greedy():
    r = compute(make(width=1, alpha=0.0))
    assert r.final.best.tokens == r.greedy.tokens


def test_distribution_cut_offs_follow_the_parameters():
    r = compute(SCENE.defaults())
    d = r.distribution(0, 1.0, 0, 0.9)
    assert [r.vocab[i] for i in d.support] == ["the", "a"]
    assert d.final[r.model.index["the"]] == pytest.approx(0.5 / 0.9)
    d = r.distribution(0, 1.0, 1, 1.0)
    assert [r.vocab[i] for i in d.support] == ["the"]
    d = r.distribution(0, 1.0, 0, 1.0)  # 0 and 1 mean no cut
    assert len(d.support) == 3 and d.top_k is None and d.top_p is None
    hot = r.distribution(0, 3.0, 0, 1.0)
    assert hot.tempered[r.model.index["</s>"]] > d.tempered[r.model.index["</s>"]]
    finished = next(n for n in r.nodes.values() if n.finished)
    assert r.distribution(finished.id, 1.0, 0, 1.0) is None


def test_a_nodes_distribution_is_kept_per_cut_offs_and_is_what_the_filter_gives():
    """A frame asks again for the node the frame before showed: the result keeps each node's
    filtered distribution per temperature and cut-offs, the same as filtering anew."""
    from seqviz.decoding import filter_distribution

    r = compute(SCENE.defaults())
    d = r.distribution(0, 1.0, 0, 0.9)
    assert r.distribution(0, 1.0, 0, 0.9) is d  # kept
    fresh = filter_distribution(r._cache[0], r.vocab, 1.0, None, 0.9)
    for name in ("tempered", "final", "order", "support"):
        assert np.array_equal(getattr(d, name), getattr(fresh, name)), name
    assert r.distribution(0, 1.5, 0, 0.9) is not d  # other cut-offs: their own
    assert r.distribution(0, 1.5, 0, 0.9).tempered.tolist() != d.tempered.tolist()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"model": "file", "path": "/no/such/model.npz"}, "no model file"),
        ({"model": "file", "path": ""}, "model=file needs a path"),
        ({"prompt": "zebra"}, "'zebra' is not in the vocabulary"),
    ],
)
def test_bad_model_or_prompt_is_an_error_result(changes, message):
    r = compute(make(**changes))
    assert r.error is not None and message in r.error
    assert "\n" not in r.error
    assert frames(r) == 0 and tree_rows(r, 0, 3) == []


def test_unreadable_model_file_is_an_error_result(tmp_path):
    bad = tmp_path / "broken.npz"
    bad.write_bytes(b"not a zip file")
    r = compute(make(model="file", path=str(bad)))
    assert r.error is not None and "not a seqviz language model" in r.error
    table = tmp_path / "rows.json"
    table.write_text(json.dumps({"<s>": {"a": 0.5, "</s>": 0.4}, "a": {"</s>": 1.0}}))
    r = compute(make(model="file", path=str(table)))
    assert r.error is not None and "sums to 0.9" in r.error


def test_bigram_json_file_loads(tmp_path):
    table = tmp_path / "tiny.json"
    table.write_text(json.dumps({"<s>": {"hi": 0.7, "</s>": 0.3}, "hi": {"</s>": 1.0}}))
    r = compute(make(model="file", path=str(table), width=2))
    assert r.error is None and "tiny.json" in r.model_label
    assert words(r, r.final.best) == "hi </s>"
    assert math.exp(r.final.best.logprob) == pytest.approx(0.7)


def test_prompt_sets_the_root():
    r = compute(make(prompt="a"))
    assert r.root.text == "a" and r.prompt_text() == "<s> a"
    assert words(r, r.final.best) == "small cat </s>"


# --- the view, in Pilot ---------------------------------------------------------------------------


def screen_text(app) -> str:
    """Everything on screen as plain text, whitespace collapsed."""
    from rich.console import Console

    console = Console(width=app.size.width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(app.screen._compositor.render_update(full=True))
    return " ".join(console.export_text().split())


def tree(app):
    from seqviz.ui.widgets.beamtree import BeamTree

    return app.query_one(BeamTree)


@pytest.mark.slow
async def test_number_key_opens_the_scene_with_the_lessons_numbers(make_app, ready):
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        number = scene_names().index("decoding") + 1
        await pilot.press(str(number))
        await ready(app, pilot)
        assert app.scene.name == "decoding"
        assert app.frame == app.n_frames == 10
        text = screen_text(app)
        assert "greedy the dog </s> p=0.140" in text
        assert "beam w=2 a small cat </s> p=0.292" in text
        assert "2.08x as probable" in text
        assert "★" in text  # the best hypothesis is marked in the tree


@pytest.mark.slow
async def test_keys_step_through_the_search(make_app, ready):
    app = make_app("decoding")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        await pilot.press("home")
        await until(lambda: app.frame == 0, pilot, what="home")
        assert app.frame == 0
        assert [r.node.text for r in tree(app).rows] == ["<s>"]
        assert "step 0/5" in app._view.frame_label(app.frame)
        await pilot.press("right")
        rows = tree(app).rows
        assert [r.status for r in rows[1:]] == ["pending"] * 3
        assert "#1" in screen_text(app)  # the scored phase shows each candidate's rank
        await pilot.press("right")
        await until(
            lambda: [r.status for r in tree(app).rows[1:]] == ["kept", "kept", "pruned"], pilot
        )
        assert [r.status for r in tree(app).rows[1:]] == ["kept", "kept", "pruned"]
        assert "kept 2, finished 0, pruned 1" in app._view.frame_label(app.frame)
        await pilot.press("left")
        await until(lambda: app.frame == 1 and tree(app).rows[1].status == "pending", pilot)
        assert app.frame == 1 and tree(app).rows[1].status == "pending"
        await pilot.press("end")
        await until(lambda: len(tree(app).rows) == 16, pilot, what="end")
        assert len(tree(app).rows) == 16
        assert "stopped: no live hypotheses" in app._view.frame_label(app.frame)


@pytest.mark.slow
async def test_keys_move_the_selection_through_the_tree(make_app, ready):
    app = make_app("decoding")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        r = app.result
        assert tree(app).has_focus
        await pilot.press("down")
        await until(lambda: app.values.node == 1, pilot, what="down")
        assert app.values.node == 1  # "the"
        await pilot.press("j")
        await until(lambda: words(r, r.nodes[app.values.node]) == "the dog", pilot, what="j")
        assert words(r, r.nodes[app.values.node]) == "the dog"
        assert "after <s> the dog" in screen_text(app)
        await pilot.press("k", "down", "down")
        await until(lambda: words(r, r.nodes[app.values.node]) == "the dog </s>", pilot)
        assert words(r, r.nodes[app.values.node]) == "the dog </s>"
        assert "nothing follows it" in screen_text(app)
        await pilot.press("p")
        await until(lambda: words(r, r.nodes[app.values.node]) == "the dog", pilot, what="p")
        assert words(r, r.nodes[app.values.node]) == "the dog"
        await pilot.press("b")
        await until(lambda: app.values.node == r.final.best.id, pilot, what="b")
        assert app.values.node == r.final.best.id
        await pilot.press("g")
        await until(lambda: r.nodes[app.values.node].tokens == r.greedy.tokens, pilot, what="g")
        assert r.nodes[app.values.node].tokens == r.greedy.tokens
        await pilot.press("up", "up", "up", "up", "up", "up", "up", "up", "up", "up", "up", "up")
        await until(lambda: app.values.node == 0, pilot)
        assert app.values.node == 0
        # Stepping back past a node's step shows its nearest existing ancestor.
        await pilot.press("b", "home")
        await until(lambda: app._view.selected == 0 and app.values.node == r.final.best.id, pilot)
        assert app._view.selected == 0 and app.values.node == r.final.best.id


@pytest.mark.slow
async def test_clicking_a_row_selects_it(make_app, ready):
    app = make_app("decoding")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        widget = tree(app)
        index = next(i for i, row in enumerate(widget.rows) if row.node.text == "a")
        await pilot.click(widget, offset=(5, index + 1))
        await pilot.pause()
        assert app.values.node == widget.rows[index].node.id


@pytest.mark.slow
async def test_parameters_from_keys_and_palette(make_app, ready):
    from seqviz.ui.widgets.distribution import DistributionBars

    app = make_app("decoding")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        app.focus_param("width")
        await pilot.press("+")
        await ready(app, pilot)
        assert app.values.width == 3 and app.result.values.width == 3
        assert "beam w=3 a small cat </s> p=0.292" in screen_text(app)
        app.focus_param("alpha")
        await pilot.press("-")
        await ready(app, pilot)
        assert app.values.alpha == pytest.approx(0.5)
        assert "/t^0.5" in screen_text(app)
        for command, shown, check in [
            ("temperature 0.5", "set temperature = 0.5", lambda d: d.temperature == 0.5),
            ("top_k 1", "set top_k = 1", lambda d: d.top_k == 1 and len(d.support) == 1),
            ("top_p 0.5", "set top_p = 0.50", lambda d: d.top_p == 0.5),
        ]:
            name = command.split()[0]
            before = getattr(app.values, name)
            await palette_search(app, pilot, command, shown)
            await pilot.press("enter")
            changed = lambda n=name, b=before: getattr(app.values, n) != b  # noqa: E731
            await until(changed, pilot, what=command)
            await ready(app, pilot)
            assert check(app.query_one(DistributionBars)._dist), command
        summary = " ".join(str(app.query_one("#dist-summary").render()).split())  # may break at →
        assert summary == "T=0.5 · top-k 1 · top-p 0.50 → 1 token can be sampled"
        assert "top-k = 1" in screen_text(app)  # the cut line is drawn


@pytest.mark.slow
async def test_changing_width_keeps_the_selected_words(make_app, ready):
    app = make_app("decoding")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        r = app.result
        small = next(n.id for n in r.nodes.values() if words(r, n) == "a small")
        app.set_param("node", small)
        app.set_param("width", 3)
        await ready(app, pilot)
        await pilot.pause()
        r = app.result
        assert words(r, r.nodes[app.values.node]) == "a small"


@pytest.mark.slow
async def test_launch_values_reach_the_scene(app_from_cli, ready):
    app = app_from_cli(["--scene", "decoding", "--set", "width=3", "--set", "top_k=2"])
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        assert app.scene.name == "decoding"
        assert (app.values.width, app.result.values.width, app.values.top_k) == (3, 3, 2)


def test_launch_refuses_bad_values(capsys):
    from seqviz.cli import main

    assert main(["--scene", "decoding", "--set", "width=0"]) == 2
    err = capsys.readouterr().err
    assert "width must be an integer from 1 to 16" in err and err.count("\n") == 1


@pytest.mark.slow
async def test_bad_model_path_shows_one_line_and_recovers(make_app, ready):
    app = make_app("decoding", {"model": "file", "path": "/no/such/model.npz"})
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        error = app.query_one("#dec-error")
        assert error.display and error.region.height == 1
        assert "no model file" in screen_text(app)
        await pilot.press("right", "left", "down", "b", "home", "end")  # nothing to step: no crash
        app.set_param("model", "toy")
        await ready(app, pilot)
        assert not error.display
        await pilot.press("end")
        await until(lambda: "beam w=2 a small cat </s> p=0.292" in screen_text(app), pilot)
        assert "beam w=2 a small cat </s> p=0.292" in screen_text(app)


@pytest.mark.slow
async def test_shipped_lstm_draws_and_steps(make_app, ready):
    app = make_app("decoding", {"model": "lstm", "prompt": "the keys to the cabinet", "width": 3})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        r = app.result
        assert r.error is None and r.root.text == "cabinet"
        assert "are" in words(r, r.final.best).split()[:2]
        assert any(row.node is None for row in tree(app).rows)  # pruned candidates fold
        await pilot.press("home", "right", "right", "down")
        await until(lambda: app.values.node != 0, pilot, what='"home", "right", "right", "down"')
        assert app.values.node != 0


@pytest.mark.slow
@pytest.mark.parametrize("sizes", [[(80, 24), (40, 12), (160, 50), (20, 6), (80, 24)]])
async def test_resizing_never_crashes(make_app, ready, sizes):
    app = make_app("decoding", {"model": "lstm", "width": 4})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        for size in sizes:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.press("left", "down", "down")
            await pilot.pause()
        assert app.scene.name == "decoding"


@pytest.mark.slow
async def test_a_shorter_search_arriving_at_a_late_frame_draws(make_app, ready):
    app = make_app("decoding", {"model": "lstm", "max_len": 12})
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("end")
        app.set_params({"model": "toy", "max_len": 2})
        await ready(app, pilot)
        assert app.result.n_steps == 2 and "step 2/2" in app._view.frame_label(app.frame)
        assert [r.node.text for r in tree(app).rows][:2] == ["<s>", "the"]


@pytest.mark.slow
async def test_random_keys_in_the_decoding_scene(make_app):
    import random

    keys = [
        "space", "right", "left", "home", "end", "r", "plus", "minus", "left_square_bracket",
        "right_square_bracket", "tab", "shift+tab", "up", "down", "j", "k", "p", "b", "g",
        "pageup", "pagedown", "enter", "escape", "backspace", "l",
    ]  # fmt: skip
    rng = random.Random(5)
    app = make_app("decoding", {"model": "lstm", "width": 3})
    async with app.run_test(size=(100, 30)) as pilot:
        await app.until_ready()
        for i in range(400):
            await pilot.press(rng.choice(keys))
            if i % 100 == 99:
                await pilot.pause()
                app.set_scene("decoding")  # come back if a text box ate a number key
        await app.until_ready()
        assert app.is_running and app.scene.name == "decoding"


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_lessons_numbers_fit_on_screen(make_app, ready, size):
    app = make_app("decoding")
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        text = screen_text(app)
        assert "greedy the dog </s> p=0.140" in text
        assert "beam w=2 a small cat </s> p=0.292" in text


@pytest.mark.slow
async def test_small_screens_swap_bars_and_ranking(make_app, ready):
    app = make_app("decoding")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        bars, ranking = app.query_one("#dist-panel"), app.query_one("#rank-panel")
        assert bars.region.height > 0 and ranking.region.height == 0
        await pilot.press("v")
        await pilot.pause()
        assert bars.region.height == 0 and ranking.region.height > 0
        assert "a small cat </s> 4 0.292" in screen_text(app)
        await pilot.press("v")
        await pilot.pause()
        assert bars.region.height > 0
