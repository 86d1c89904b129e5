"""The status line quotes what a model has read: the end of it, cut before a whole word, and
marked as cut (a quote that starts mid-word misquotes the sentence)."""

from __future__ import annotations

import pytest

from seqviz.ui.views.base import read_so_far

SENTENCE = "the keys to the cabinet are missing"  # 35 characters


def test_text_that_fits_is_quoted_whole():
    assert read_so_far(SENTENCE, 35, words=True) == SENTENCE
    assert read_so_far("", 32, words=True) == ""


@pytest.mark.parametrize("width", range(9, 35))  # room for "…missing" and more
def test_a_cut_quote_is_marked_and_starts_with_a_whole_word(width):
    quoted = read_so_far(SENTENCE, width, words=True)
    assert quoted.startswith("…") and len(quoted) <= width
    rest = quoted[1:]
    assert SENTENCE.endswith(rest)
    start = len(SENTENCE) - len(rest)
    assert SENTENCE[start - 1] == " "  # the quote begins where a word begins
    assert len(rest) > width - 1 - len("cabinet ")  # only the one word cut off is dropped


def test_one_word_longer_than_the_room_is_cut_inside_it():
    assert read_so_far("a supercalifragilistic", 8, words=True) == "…ilistic"


def test_characters_are_cut_anywhere():
    assert read_so_far("hello world", 6, words=False) == "…world"
    assert read_so_far("hello world", 5, words=False) == "…orld"


async def test_the_gates_status_quotes_the_sentence_from_a_whole_word(make_app, ready):
    app = make_app("gates", {"model": "agreement", "text": SENTENCE})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        words = len(SENTENCE.split())
        label = app._view.frame_label(app.scene.frames(app.result))
        assert label == f"read {words + 1}/{words + 1} words: '…keys to the cabinet are missing'"
        assert app._view.frame_label(3) == f"read 3/{words + 1} words: 'the keys'"


async def test_the_inside_status_quotes_the_sentence_from_a_whole_word(make_app, ready):
    app = make_app("inside", {"text": SENTENCE})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        last = app.result.T
        assert app._view.frame_label(last) == (
            f"read {last}/{last} words: '…keys to the cabinet are missing'"
        )
