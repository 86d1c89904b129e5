"""Copy and agreement tasks at a chosen lag: shapes, answers, determinism, errors."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from seqviz.tasks.lagged import MAX_LAG, TASKS, make_task


@pytest.mark.parametrize("name", TASKS)
@pytest.mark.parametrize("lag", [1, 2, 3, 7, 40, MAX_LAG])
def test_shapes_and_the_key_is_lag_steps_before_the_last(name, lag):
    task = make_task(name, lag)
    b = task.batch(np.random.default_rng(0), 16)
    B, T, n = b.x.shape
    assert (B, n) == (16, task.n_inputs)
    assert T - 1 - b.key == lag
    assert len(b.tokens) == 16 and all(len(row) == T for row in b.tokens)
    assert np.all(b.x.sum(axis=2) >= 1.0)
    assert b.y.min() >= 0 and b.y.max() < task.n_classes


@pytest.mark.parametrize("name", TASKS)
def test_deterministic_for_a_seed(name):
    task = make_task(name, 9)
    a = task.batch(np.random.default_rng(3), 8)
    b = task.batch(np.random.default_rng(3), 8)
    c = task.batch(np.random.default_rng(4), 8)
    assert np.array_equal(a.x, b.x) and np.array_equal(a.y, b.y) and a.tokens == b.tokens
    assert not np.array_equal(a.x, c.x)


def test_copy_answer_is_the_marked_symbol():
    task = make_task("copy", 6)
    b = task.batch(np.random.default_rng(1), 50)
    for row, y in zip(b.tokens, b.y, strict=True):
        marked = [w for w in row if w.isupper()]
        assert marked == [task.classes[int(y)].upper()]
        assert row.index(marked[0]) == b.key and row[-1] == "?"
    # the marked symbol is also an ordinary input: only the marker channel sets it apart
    assert np.all(b.x[:, b.key, :8].sum(axis=1) == 1.0)


def test_agreement_answer_is_the_subjects_number():
    from seqviz.tasks.grammar import ANIMATE, THINGS

    plurals = set(ANIMATE.values()) | set(THINGS.values())
    task = make_task("agreement", 10)
    b = task.batch(np.random.default_rng(2), 60)
    for row, y in zip(b.tokens, b.y, strict=True):
        assert row[0] == "the"
        assert task.classes[int(y)] == ("plural" if row[1] in plurals else "singular")
    assert 0.3 < b.y.mean() < 0.7


@pytest.mark.parametrize("lag", [0, 101, 2.5, "5", True])
def test_bad_lag_is_one_sentence(lag):
    with pytest.raises(ValueError, match="lag must be"):
        make_task("copy", lag)


def test_unknown_task_and_bad_batch_size():
    with pytest.raises(ValueError, match="tasks are copy, agreement"):
        make_task("parity", 3)
    with pytest.raises(ValueError, match="batch size"):
        make_task("copy", 3).batch(np.random.default_rng(0), 0)


@pytest.mark.parametrize("name", TASKS)
def test_runnable_as_a_module(name):
    out = subprocess.run([sys.executable, "-m", f"seqviz.tasks.{name}", "--lag", "3", "-n", "2"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert out.count("->") == 2


@pytest.mark.parametrize("name", TASKS)
def test_each_registered_task_is_made_under_its_own_name(name):
    task = make_task(name, 4)
    assert (task.name, task.lag) == (name, 4)
