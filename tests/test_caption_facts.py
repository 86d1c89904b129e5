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
