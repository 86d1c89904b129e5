"""Search vs model error in the decoding scene, and the beam-curse measurement."""

from __future__ import annotations

import math

from seqviz.decoding import toy_model
from seqviz.models.curse import measure
from seqviz.scenes import get_scene
from seqviz.scenes.decoding import compute

SCENE = get_scene("decoding")


def test_scene_marks_greedys_search_error_on_the_toy():
    """Greedy takes 'the' (0.5) over 'a' (0.4); the optimum, by hand, is 'a small cat </s>'
    = 0.4 x 0.9 x 0.9 x 0.9, so width 1 makes a search error at step 1."""
    r = compute(SCENE.make({"width": 1, "alpha": 0.0, "max_len": 6, "search": "exact"}))
    assert r.error is None and r.exact_proved
    assert math.isclose(r.exact.logprob, math.log(0.4 * 0.9**3))
    assert r.search_error == 1
    lines = r.error_lines()
    assert any("step 1 pruned 'a'" in x for x in lines)
    assert lines[-1] == "search errors 1 · model errors 0"
    wide = compute(SCENE.make({"width": 2, "alpha": 0.0, "max_len": 6, "search": "exact"}))
    assert wide.search_error is None and wide.error_lines()[-1].startswith("search errors 0")
    assert compute(SCENE.make({"width": 2})).error_lines() == []  # only with search=exact


def test_penalty_lines_name_each_penalties_winner():
    r = compute(SCENE.make({"width": 3, "alpha": 1.0, "max_len": 6, "search": "exact"}))
    (line,) = r.penalty_lines(r.final.hypotheses)
    done = [h for h in r.final.hypotheses if h.finished]
    plain = max(done, key=lambda n: n.logprob / n.depth)
    google = max(done, key=lambda n: n.logprob / ((5 + n.depth) / 6))
    assert f"picks '{r.words(plain)}'" in line and f"picks '{r.words(google)}'" in line


def test_curse_rows_on_the_toy():
    m = toy_model()
    rows = measure("lm", m, ["", ""], [["a", "small", "cat"], ["the"]], widths=(1, 2), alphas=(0,))
    by = {r.decoder: r for r in rows}
    assert by["exact"].search_errors == 0 and by["beam 2"].search_errors == 0
    assert by["beam 1"].search_errors == 1.0  # greedy's 'the dog' misses 'a small cat'
    assert by["beam 1"].mean_len == 2 and by["exact"].mean_len == 3
    assert by["exact"].ref_len == 2 and by["exact"].exact_match is None
    assert math.isclose(by["exact"].mean_logprob, math.log(0.4 * 0.9**3))


async def test_tree_marks_the_search_error_and_blocked_branches(make_app, ready):
    from seqviz.ui.widgets.beamtree import BeamTree

    values = {"width": 1, "alpha": 0.0, "max_len": 6, "search": "exact", "min_len": 2}
    app = make_app("decoding", values=values)
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        await pilot.press("end")
        await pilot.pause()
        tree = app.query_one(BeamTree)
        texts = [tree.row_text(i) for i in range(len(tree.rows))]
        # the optimum starts with 'a', which greedy (width 1) pruned at step 1
        (a_row,) = [t for t in texts if "✗ a" in t]
        assert "search error" in a_row
        blocked = [t for t in texts if "⊘ </s>" in t]
        assert blocked and all("min length" in t for t in blocked)
        assert tree.optimum_path == tuple(app.result.exact.tokens)


def test_scene_sample_histogram_counts_what_was_drawn():
    from collections import Counter

    from seqviz.decoding import Sampler
    from seqviz.scenes.decoding import histogram_lines

    r = compute(SCENE.make({"samples": 500, "top_p": 1.0, "max_len": 6}))
    h = r.samples
    drawn = Sampler(toy_model(), samples=500, seed=0, max_len=6).run().samples
    counts = Counter(tuple(s.tokens) for s in drawn)
    assert {row.tokens: row.count for row in h.sentences} == dict(counts)
    assert h.beam_count == counts[tuple(r.final.best.tokens)]
    lines = histogram_lines(r, 80)
    assert lines[1].startswith(f"{len(counts)} distinct · {1 - len(counts) / 500:.0%} repeats")
    top = h.sentences[0]
    assert lines[4].split()[0] == str(top.count)
    assert compute(SCENE.make({})).samples is None


def test_saved_curse_rows_plot_search_errors_by_width(tmp_path):
    import json

    from seqviz.models.curse import CurseRow, load_rows, plot_series, save_rows

    rows = [
        CurseRow("lm", d, w, 0.0, 4, None, 3.0, 5.0, -4.0, e, 0)
        for d, w, e in (("exact", 0, 0.0), ("beam 1", 1, 0.75), ("beam 4", 4, 0.25))
    ]
    path = save_rows(rows, tmp_path / "c.json", sentences=4)
    assert json.loads(path.read_text())["sentences"] == 4
    assert load_rows(path) == tuple(rows)
    assert load_rows(tmp_path / "missing.json") == ()
    ((label, x, y),) = plot_series(load_rows(path))
    assert label == "lm α=0" and x == [0.0, 2.0, 3.0] and y == [75.0, 25.0, 0.0]


def test_shipped_curse_rows_match_the_docs_table():
    from pathlib import Path

    from seqviz.models.curse import format_rows, load_rows

    rows = load_rows()
    assert len(rows) == 32
    docs = Path(__file__).resolve().parents[1] / "docs" / "decoding.md"
    text = docs.read_text(encoding="utf-8")
    for line in format_rows(list(rows)).splitlines()[2:]:
        assert line in text


async def test_seq2seq_scene_plots_the_curse(make_app, ready):
    from seqviz.ui.views.base import Panel
    from seqviz.ui.views.seq2seq import CURSE_TITLE, CURVE_TITLE
    from seqviz.ui.widgets.plots import SeriesPlot

    app = make_app("seq2seq", values={"plot": "beam-curse"})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        assert app.query_one("#curve-panel", Panel).border_title == CURSE_TITLE
        labels = [s.label for s in app.query_one("#curve-plot", SeriesPlot)._series]
        assert labels == ["lm α=0", "lm α=0.6", "translation α=0", "translation α=0.6"]
    app = make_app("seq2seq")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        assert app.query_one("#curve-panel", Panel).border_title == CURVE_TITLE


def test_the_pruned_prefix_of_the_optimum_is_never_folded():
    from seqviz.scenes.decoding import frames, tree_rows

    r = compute(SCENE.make({"width": 1, "alpha": 0.0, "max_len": 6, "search": "exact"}))
    rows = tree_rows(r, frames(r), pruned_shown=0)  # every other pruned node folds
    shown = [row.node for row in rows if row.node is not None and row.status == "pruned"]
    assert [tuple(n.tokens) for n in shown] == [tuple(r.exact.tokens)[:1]]  # 'a', step 1
