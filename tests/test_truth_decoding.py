"""The decoding scene tells the truth: pruned ends, pace, stop reasons, alpha, compact layouts."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from seqviz import cli
from seqviz.decoding import BeamSearch, toy_model
from seqviz.decoding.models import BigramModel
from seqviz.decoding.search import WIDTH_FINISHED
from seqviz.scenes import get_scene
from seqviz.scenes.decoding import compute, winners
from seqviz.ui.export import screen_text

SCENE = get_scene("decoding")
LSTM_CASE = {"model": "lstm", "prompt": "the keys to the door", "width": 2, "max_len": 8}


def make(**changes):
    return SCENE.make(changes)


def words(m, node):
    return " ".join(m.vocab[t] for t in node.tokens)


# --- a pruned </s> has no next word -------------------------------------------------------------
def _pruned_end(r):
    eos = r.model.eos_id
    return next(n for n in r.nodes.values() if n.status == "pruned" and n.token == eos)


def test_a_pruned_end_has_no_distribution():
    r = compute(make())
    node = _pruned_end(r)
    assert r.distribution(node.id, 1.0, 0, 1.0) is None
    s = BeamSearch(toy_model(), width=2, max_len=10, alpha=0.6)
    s.run()
    assert s.nodes()[node.id].tokens == node.tokens  # the same tree as the scene's
    with pytest.raises(ValueError, match="pruned one ending in </s>"):
        s.distribution(node.id)


async def test_a_pruned_end_shows_what_is_true_not_bars(make_app, ready):
    app = make_app("decoding")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        node = _pruned_end(app.result)
        app.set_param("node", node.id)
        await pilot.pause()
        await pilot.pause()
        bars = app.query_one("#bars").region
        lines = screen_text(app).splitlines()[bars.y : bars.y + bars.height]
        shown = " ".join(line[bars.x : bars.x + bars.width] for line in lines)
        shown = re.sub(r"\s+", " ", shown)
        assert "<s>" not in shown and "1.000" not in shown, shown
        assert "was pruned" in shown and f"p={node.token_prob:.3f}" in shown


# --- the default pace ----------------------------------------------------------------------------
async def test_the_default_tree_plays_at_a_pace_a_student_can_follow(make_app, ready):
    app = make_app("decoding")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        frames_per_step = 2  # scored, then decided
        seconds_per_step = frames_per_step / app.speed
        whole_tree = app.n_frames / app.speed
        assert seconds_per_step >= 1.0, seconds_per_step
        assert 4.0 <= whole_tree <= 15.0, whole_tree
        default = app.speed
        await pilot.press("greater_than_sign")
        assert app.speed > default
        await pilot.press("less_than_sign", "less_than_sign")
        assert app.speed < default
        picked = app.speed
        app.set_scene("vanishing")
        await pilot.pause()
        assert app.speed == 20  # other scenes keep the app's pace
        app.set_scene("decoding")
        await pilot.pause()
        assert app.speed == picked  # the user's pick for this scene is remembered


def test_an_explicit_app_speed_holds_in_the_decoding_scene(make_app):
    assert make_app("decoding", speed=30).speed == 30


# --- keep_live never stops while a live hypothesis could still win -------------------------------
def test_keep_live_does_not_return_a_worse_sentence_than_it_could_still_reach():
    m = toy_model()
    lesson = BeamSearch(m, width=3, max_len=10).run()
    s = BeamSearch(m, width=3, max_len=10, keep_live=True)
    res = s.run()
    assert f"{lesson.best.prob:.3f}" == "0.292"
    assert words(m, res.best) == "a small cat </s>" and f"{res.best.prob:.3f}" == "0.292"
    assert res.stop is not None


class _NoEarlyStop(BeamSearch):
    """keep_live that runs until nothing is live or the length limit: the reference."""

    def best_possible(self, node):
        return math.inf


def _random_table(rng):
    """A random bigram table over a few words; every word has a row, </s> is reachable."""
    words_ = ["a", "b", "c", "d"][: int(rng.integers(2, 5))]
    table = {}
    for prev in ["<s>", *words_]:
        pool = [*words_, "</s>"]
        k = int(rng.integers(1, len(pool) + 1))
        nexts = [pool[i] for i in rng.choice(len(pool), size=k, replace=False)]
        weights = rng.integers(1, 21, size=k).astype(float)
        table[prev] = {w: x / weights.sum() for w, x in zip(nexts, weights, strict=True)}
    return table


def _endings(m, max_len):
    """ends[k - 1, tok]: the best log P of k more tokens after `tok`, the k-th being </s>, by
    exhaustive dynamic programming over the bigram table (every path, not only those a beam
    would keep)."""
    lt, eos = m.log_table, m.eos_id
    through_words = lt.copy()
    through_words[:, eos] = -math.inf  # a sentence goes on only through a word
    ends = [lt[:, eos]]
    for _ in range(max_len - 1):
        with np.errstate(invalid="ignore"):
            ends.append(np.max(through_words + ends[-1][None, :], axis=1))
    return np.array(ends)


def _best_reachable(ends, node, max_len, alpha):
    """The best score of any finished sentence that extends `node` (exhaustively)."""
    k = np.arange(1, max_len - node.depth + 1)
    totals = node.logprob + ends[k - 1, node.token]
    return float(np.max(totals / (node.depth + k) ** alpha)) if k.size else -math.inf


def _bound(node, max_len, alpha):
    """What the docstring promises: log P only falls and t^alpha grows to max_len^alpha."""
    return node.logprob / max_len**alpha if alpha else node.logprob


def test_keep_live_early_stop_returns_what_running_on_would():
    """On 200 random tables keep_live stops at the first step where `width` hypotheses have
    finished and no live one's bound reaches the best of them, and not earlier or later; the
    bound holds for every live hypothesis against an exhaustive search of its extensions; and
    the sentence returned is the one the same search run to its end returns."""
    rng = np.random.default_rng(2026)
    stopped_early = 0
    for case in range(200):
        table = _random_table(rng)
        width, max_len = int(rng.integers(1, 4)), int(rng.integers(2, 8))
        alpha = float(rng.choice([0.0, 0.6, 1.0]))
        m = BigramModel(table)
        kw = dict(width=width, max_len=max_len, alpha=alpha, keep_live=True)
        s = BeamSearch(m, **kw)
        early = s.run()
        full = _NoEarlyStop(m, **kw)
        full.run()
        where = (case, table, width, max_len, alpha)
        ends, expected = _endings(m, max_len), None
        for step in full.history:
            for n in step.kept:
                assert _best_reachable(ends, n, max_len, alpha) <= _bound(n, max_len, alpha) + 1e-12
            if (
                expected is None and step.stop is None and len(step.finished) >= width
                and all(_bound(n, max_len, alpha) <= step.finished[0].score for n in step.kept)
            ):  # fmt: skip
                expected = step.index
        steps = s.history
        assert [h.candidates for h in steps] == [h.candidates for h in full.history[: len(steps)]]
        if expected is None:
            assert early.stop == full.history[-1].stop and len(steps) == len(full.history), where
        else:
            stopped_early += 1
            assert early.stop == WIDTH_FINISHED and steps[-1].index == expected, where
            assert early.best.tokens == full.result().best.tokens, where
    assert stopped_early > 25  # the early stop is exercised, not only the runs without it


# --- the stop reason is said --------------------------------------------------------------------
def test_decode_and_run_beam_say_why_the_search_stopped(capsys):
    assert cli.main(["decode", "--width", "3", "--keep-live", "--max-len", "10"]) == 0
    out = capsys.readouterr().out
    assert "stopped: width finished" in out
    assert cli.main(["decode", "--width", "2", "--max-len", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stopped"] == "max length"
    assert cli.main(["run", "beam"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [ln for ln in lines if "p = " in ln]
    assert [r.split()[-1] for r in rows] == ["0.140", "0.140", "0.292", "0.292"]  # the lesson's
    assert all("stopped: no live hypotheses" in r for r in rows)
    assert "2.08x as probable" in lines[-1]
    assert cli.main(["run", "beam", "--max-len", "2"]) == 0
    out = capsys.readouterr().out
    assert "stopped: max length" in out and "'the dog'" in out  # the sentence follows the rows


async def test_the_scene_says_why_the_search_stopped(make_app, ready):
    app = make_app("decoding", {"variant": "keep_live", "width": 3})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        text = re.sub(r"\s+", " ", screen_text(app))
        assert "beam stopped at step" in text and WIDTH_FINISHED.split(",")[0] in text
        assert "a small cat </s>" in text and "0.292" in text


# --- alpha: the lesson's 0.6, and a case where it changes the winner -----------------------------
def test_the_default_alpha_is_the_lessons():
    assert SCENE.defaults().alpha == 0.6  # the chapter's typical value for length normalisation


@pytest.mark.slow
@pytest.mark.parametrize(
    "changes",
    [{**LSTM_CASE, "alpha": a, "width": w} for a in (0.0, 0.3, 0.6, 1.0) for w in (2, 3)]
    + [{"alpha": a, "width": w} for a in (0.0, 0.6, 1.0, 2.0) for w in (2, 3, 4)],
)
async def test_the_winner_verdict_is_computed(changes, make_app, ready):
    """Across a grid the ranking's verdict agrees with an independent sort of the finished."""
    app = make_app("decoding", changes)
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        r = app.result
        done = [h for h in r.final.hypotheses if h.finished]
        plain = max(done, key=lambda h: h.logprob)
        norm = max(done, key=lambda h: h.score)
        text = re.sub(r"\s+", " ", app.query_one("#ranking").render().plain)
        changed = f"alpha {changes['alpha']:g} changes the winner" in text
        assert changed == (plain.id != norm.id and changes["alpha"] > 0)
        if changed:
            assert f"picks '{r.words(norm)}'" in text and f"plain log P '{r.words(plain)}'" in text


def test_length_normalisation_changes_the_winner_at_the_lessons_alpha():
    r = compute(make(**LSTM_CASE))
    plain, norm = winners(r.final.hypotheses)
    assert r.words(plain) == "are missing </s>" and r.words(norm) == "are in the hallway </s>"
    assert f"{plain.prob:.3f}" == "0.112" and f"{norm.prob:.3f}" == "0.092"
    assert r.final.best.id == norm.id  # what the beam returns at alpha 0.6
    plain0, norm0 = winners(compute(make(**{**LSTM_CASE, "alpha": 0.0})).final.hypotheses)
    assert plain0.id == norm0.id


# --- compact layouts show the ranking and the comparison ----------------------------------------
@pytest.mark.parametrize("size", [(120, 40), (100, 30), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_compact_layouts_show_the_table_and_the_comparison(size, make_app, ready):
    app = make_app("decoding", {"panel": "ranking"})
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        text = screen_text(app)
        lines = [re.sub(r"\s+", " ", ln) for ln in text.splitlines()]
        ranking = app.query_one("#ranking")
        assert ranking.region.height > 0
        rendered = ranking.render()
        widest = max(len(line) for line in rendered.plain.splitlines())
        assert widest <= ranking.size.width  # no table row wraps
        for row in ("1 1", "2 2"):
            assert any(ln.strip().startswith(row) for ln in lines if "</s>" in ln) or any(
                f" {row} " in ln for ln in lines
            )
        assert any("the dog </s> 3 0.140" in ln for ln in lines)
        if size[1] >= 30:  # below, the tree needs the verdict's row
            assert any("2.08x as probable" in ln for ln in lines)
        assert any("greedy the dog </s> p=0.140" in ln for ln in lines)
