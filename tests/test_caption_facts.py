"""Facts a demo caption states about its own step's settings agree with those settings."""

from __future__ import annotations

import re

import pytest

from seqviz.lecture import demo_names, find_demo

NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve").split()
AFTER = re.compile(r"\b(\w+) words? after '([^']+)'", re.IGNORECASE)


def _count(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else NUMBER_WORDS.index(word)


def word_counts(name: str) -> list[tuple[int, str, int, int]]:
    """(step, word, count stated, count in the step's prompt) per "N words after 'w'"."""
    found = []
    for step in find_demo(name).steps:
        for said, word in AFTER.findall(step.caption):
            prompt = str(step.values.get("prompt", "")).split()
            assert word in prompt, f"step {step.number}: {word!r} is not in its prompt"
            after = len(prompt) - 1 - prompt.index(word)
            found.append((step.number, word, _count(said), after))
    return found


def test_the_counter_counts_the_words_after_a_word():
    # the lesson's sentence: to, the, cabinet, in, the, hallway follow 'keys'
    prompt = "the keys to the cabinet in the hallway".split()
    assert len(prompt) - 1 - prompt.index("keys") == 6


@pytest.mark.parametrize("name", demo_names())
def test_words_after_a_word_are_counted_right(name):
    """The decoding demo's step 9 said 'Seven words after 'keys'' where the prompt has six."""
    for step, word, said, after in word_counts(name):
        assert said == after, (
            f"{name} step {step}: {said} words after {word!r}, the prompt has {after}"
        )


def test_the_decoding_demo_states_a_count():
    assert word_counts("decoding"), "the check above would pass vacuously"


@pytest.mark.parametrize(
    "values",
    [{"forget_bias": 2.0}, {"forget_bias": -2.0, "w": 1.2}, {"forget_bias": 10.0, "w": 0.5}],
)
async def test_the_memory_caption_states_what_the_readout_shows(make_app, values):
    """One fixed sentence said the LSTM's c 'decays slowly' and the RNN 'sticks near 1 (large
    w)' while the readout showed c = 3.30e-06 (forget bias 2) or c = 3.38e-92 and h = 0.659
    (forget bias -2, w 1.2). The caption now states the final values shown."""
    import re

    from seqviz.ui.export import screen_text

    app = make_app("memory", values)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_ready()
        app.end()
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        caption = app.query_one("#traj-panel").query_one(".caption-long").render()
    caption = " ".join(str(caption).split())
    shown_c = re.search(r"LSTM f = [0-9.]+ c = (\S+)", text).group(1)
    shown_h = re.search(r"RNN w = [0-9.]+ h = (\S+)", text).group(1)
    assert f"the LSTM's c is {shown_c}" in caption and f"the RNN's h is {shown_h}" in caption
    assert "decays slowly" not in caption and "(large w)" not in caption
    fading = float(shown_c) < 0.01
    assert (f"c is {shown_c} (faded)" in caption) == fading, caption


async def test_the_seq2seq_verb_caption_states_where_the_verb_row_peaks(make_app):
    """'The verb is written last but read from the middle' stood under a verb row that peaked
    on another word ('casan' -> 'dog' 0.999). The caption names the word the row peaks on."""
    import numpy as np

    app = make_app("seq2seq")
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_ready()
        app.end()
        await pilot.pause()
        r = app.result
        caption = str(app.query_one("#attn-panel").query_one(".caption-long").render())
    caption = " ".join(caption.split())
    assert "read from the middle" not in caption
    verb_rows = [t for t, w in enumerate(r.output) if w.endswith(("a", "an")) and w != "</s>"
                 and any(w[:-1].startswith(s) or w[:-2].startswith(s)
                         for s in ("vid", "cas", "sat", "kon", "trov", "sekv", "dorm", "kur",
                                   "atend"))]  # fmt: skip
    assert verb_rows, r.output
    t = verb_rows[-1]
    peak = int(np.argmax(r.attn[t]))
    assert f"The verb {r.output[t]!r}" in caption
    assert f"peaks on {r.source[peak]!r} ({r.attn[t, peak]:.3f})" in caption, caption


async def test_the_inside_scene_opens_at_the_verb(make_app):
    """It opened after the last word, where every verb's probability read 0.000 and 'are' was
    rank 4; it opens where the model chooses the verb: every word before it read."""
    from seqviz.ui.export import screen_text

    app = make_app("inside")
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_ready()
        await pilot.pause()
        r = app.result
        words = list(r.words)
        assert app.frame == words.index("are") < app.n_frames
        text = " ".join(screen_text(app).split())
        assert "read 6/8 words: 'the keys to the cabinet'" in text, text[-400:]
        assert r.rank[app.frame - 1] == 1  # 'are' is the likeliest next word here
        app.end()  # the End key still shows the whole sentence
        await pilot.pause()
        assert app.frame == app.n_frames == len(words)


@pytest.mark.parametrize("size", [(120, 40), (160, 50)])
async def test_the_vanishing_readout_caption_describes_the_columns_shown(make_app, size):
    """At 120x40 the readout showed only this run's column while its caption described the
    lesson's rho 0.8/1.0/1.2 columns (and was cut: '... draw 2 at')."""
    app = make_app("vanishing")
    async with app.run_test(size=size) as pilot:
        await app.until_ready()
        await pilot.pause()
        await pilot.pause()
        readout = "".join(seg.text for seg in app.query_one("#readout").render_line(0)._segments)
        caption = str(app.query_one("#readout-panel").query_one(".caption-long").render())
    has_lesson_columns = "rho 0.8" in readout
    assert ("the lesson's runs (d=64" in " ".join(caption.split())) == has_lesson_columns, (
        readout,
        caption,
    )


@pytest.mark.parametrize("scene", ["inside", "gates", "vanishing", "decoding"])
async def test_panel_captions_show_whole_or_their_short_form(make_app, scene):
    """At 120x40 the inside scene's prediction caption was cut mid-sentence ('...the model knows
    the'): a caption that does not fit its three rows gives way to its short form."""
    from seqviz.ui.compat_textual import static_height
    from seqviz.ui.views.base import Caption, Panel

    app = make_app(scene)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.until_ready()
        for _ in range(4):
            await pilot.pause()
        checked = 0
        for panel in app.query(Panel):
            caption = panel.query(".caption-long").first(Caption)
            width = caption.content_region.width
            if not caption.display or not panel.display or width <= 0 or not caption.text:
                continue
            needed = static_height(caption, caption.text, width)
            assert needed <= caption.content_region.height, (panel.id, caption.text, width)
            checked += 1
        assert checked
