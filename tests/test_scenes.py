"""Scene protocol, registry and the scenes' computations (no Textual involved)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from seqviz.scenes import SCENES, get_scene, scene_names, scene_titles, scenes
from seqviz.scenes.base import ParamSpec, Scene


def test_registry_order_and_numbers():
    assert scene_names()[:4] == ("vanishing", "memory", "gates", "gradflow")
    assert get_scene("2").name == "memory"
    with pytest.raises(ValueError, match="scenes are vanishing, memory"):
        get_scene("nope")


def test_registered_titles_are_the_scenes_titles():
    # The scene bar and help screen read the registry's titles without importing the scenes;
    # each scene module must carry exactly its registered name and title.
    loaded = scenes()
    assert list(loaded) == [name for name, _ in SCENES] == list(scene_titles())
    for name, title in SCENES:
        assert loaded[name].name == name
        assert loaded[name].title == title, (name, loaded[name].title, title)
        assert get_scene(name).title == scene_titles()[name]


def test_values_are_frozen_scalars():
    for scene in scenes().values():
        values = scene.defaults()
        assert dataclasses.is_dataclass(values)
        with pytest.raises(dataclasses.FrozenInstanceError):
            values.seed = 3  # type: ignore[misc]
        for spec in scene.specs:
            assert isinstance(getattr(values, spec.name), (int, float, str))


def test_parse_settings_and_errors():
    scene = get_scene("vanishing")
    v = scene.parse_settings(["rho=1.2", "steps=100", "nonlinearity=LINEAR"])
    assert (v.rho, v.steps, v.nonlinearity) == (1.2, 100, "linear")
    with pytest.raises(ValueError, match=r"rho must be a number from 0.05 to 3.00, not 9.0"):
        scene.parse_settings(["rho=9"])
    with pytest.raises(ValueError, match="its parameters are rho, hidden"):
        scene.parse_settings(["bogus=1"])
    with pytest.raises(ValueError, match="steps must be an integer"):
        scene.parse_settings(["steps=2.5"])
    with pytest.raises(ValueError, match="one of tanh, linear"):
        scene.parse_settings(["nonlinearity=relu"])
    with pytest.raises(ValueError, match="NAME=VALUE"):
        scene.parse_settings(["rho"])
    with pytest.raises(ValueError, match="not 'abc'"):
        scene.parse_settings(["rho=abc"])


def test_nudge_snaps_clamps_and_cycles():
    spec = ParamSpec("x", "x", "float", 0.5, 0.0, 1.0, 0.1)
    value = 0.0
    for _ in range(3):
        value = spec.nudge(value, +1)
    assert value == 0.3  # no 0.30000000000000004 drift
    assert spec.nudge(1.0, +1) == 1.0 and spec.nudge(0.0, -1) == 0.0
    choice = ParamSpec("c", "c", "choice", "a", choices=("a", "b"))
    assert choice.nudge("b", +1) == "a" and choice.nudge("a", -1) == "b"
    integer = ParamSpec("n", "n", "int", 5, 1, 10, 4)
    assert integer.nudge(5, +1) == 8 and integer.nudge(8, +1) == 10  # multiples of 4, clamped


def test_bad_specs_are_refused():
    with pytest.raises(ValueError):
        ParamSpec("x", "x", "float", 5.0, 0.0, 1.0, 0.1)
    with pytest.raises(ValueError):
        ParamSpec("c", "c", "choice", "z", choices=("a",))
    with pytest.raises(ValueError, match="duplicate"):
        spec = ParamSpec("x", "x", "int", 1, 0, 2, 1)
        Scene("s", "S", "", (spec, spec), compute=lambda v: v, frames=lambda r: 0, view="m:C")


def test_vanishing_defaults_show_the_lessons_numbers():
    from seqviz import experiments

    scene = get_scene("vanishing")
    r = scene.compute(scene.defaults())
    # Draw 2 at rho 1.0 is the lesson's middle row: 7.8e-01 6.1e-02 8.5e-05 9.5e-09, linear 2.2e-01.
    shown = [f"{r.norms_tanh[k]:.1e}" for k in (1, 10, 30, 59)]
    assert shown == ["7.8e-01", "6.1e-02", "8.5e-05", "9.5e-09"]
    assert f"{r.norms_linear[59]:.1e}" == "2.2e-01"
    table = experiments.vanishing()
    assert [row.rho for row in table.rows] == [0.8, 1.0, 1.2]
    assert r.lesson[1][1] == pytest.approx(table.rows[1].norms)
    assert f"{r.lesson[0][1][3]:.1e}" == "3.5e-13" and f"{r.lesson[2][2]:.1e}" == "2.2e+04"
    assert scene.frames(r) == 120
    # The eigenvalues are W's: the largest modulus is the spectral radius.
    assert np.max(np.abs(r.eigenvalues)) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "settings, norms_only",
    [({}, 4), ({"rho": 1.2, "draw": 3}, 4), ({"rho": 1.05}, 6), ({"seed": 1}, 6)],
)
def test_vanishing_reuses_its_run_when_it_is_a_row_of_the_lessons_table(
    monkeypatch, settings, norms_only
):
    """The launch's first result (issue 16): the defaults are the table's middle row, so that
    network is run once, not twice, and the table's other rows run the backward pass for the
    gradient norms alone, not whole traces. The table is the same either way (to 1e-12)."""
    from seqviz import experiments, scenes
    from seqviz.core import trace
    from seqviz.core.reference import rnn_grad_norms

    vanishing = scenes.get_scene("vanishing")
    module = __import__("seqviz.scenes.vanishing", fromlist=["_lesson"])
    ran: list[str] = []

    def counting(function, name):
        def call(*args, **kwargs):
            ran.append(name)
            return function(*args, **kwargs)

        return call

    monkeypatch.setattr(module, "_lesson", [])  # as in a new process: the table not made yet
    monkeypatch.setattr(experiments, "trace", counting(trace, "trace"))
    monkeypatch.setattr("seqviz.core.trace", counting(trace, "trace"))
    monkeypatch.setattr(experiments, "rnn_grad_norms", counting(rnn_grad_norms, "norms"))
    r = vanishing.compute(vanishing.make(settings))
    assert (ran.count("trace"), ran.count("norms")) == (2, norms_only)
    monkeypatch.undo()
    table = experiments.vanishing()
    assert [row[0] for row in r.lesson] == [row.rho for row in table.rows]
    for got, row in zip(r.lesson, table.rows, strict=True):
        np.testing.assert_allclose(got[1], row.norms, rtol=1e-12, atol=0)
        assert got[2] == pytest.approx(row.linear_norm, rel=1e-12, abs=0)


def test_vanishing_rho_rescales_the_same_draw():
    scene = get_scene("vanishing")
    a = scene.compute(scene.make({"rho": 0.5}))
    b = scene.compute(scene.make({"rho": 1.0}))
    assert np.max(np.abs(a.eigenvalues)) == pytest.approx(0.5)
    assert np.allclose(np.sort(np.abs(a.eigenvalues)) * 2, np.sort(np.abs(b.eigenvalues)))


def test_vanishing_overflow_is_reported_not_raised():
    scene = get_scene("vanishing")
    r = scene.compute(scene.make({"rho": 3.0, "nonlinearity": "linear", "steps": 1000}))
    assert r.overflow is not None and r.overflow.phase == "forward"
    assert 0 < r.overflow.step < 1000
    assert not np.isfinite(r.h[-1]).all()


def test_memory_defaults_show_the_lessons_numbers():
    scene = get_scene("memory")
    r = scene.compute(scene.defaults())
    assert f"{r.rnn_h[-1]:.2e}" == "1.48e-05"
    assert f"{r.forget:.5f}" == "0.99331" and f"{r.lstm_c[-1]:.3f}" == "0.487"
    assert [f"{h:.3f}" for _, h in r.lesson_rnn][1] == "0.859"
    assert [f"{c:.3f}" for _, _, c in r.lesson_lstm] == ["0.000", "0.487", "0.942"]
    assert r.decay[10] == pytest.approx(r.forget**10)


def test_gates_counts_text_and_variants():
    scene = get_scene("gates")
    r = scene.compute(scene.make({"model": "random", "text": "abcab", "hidden": 10, "embed": 6}))
    assert r.gates.shape == (5, 4, 10) and r.c.shape == (5, 10)
    assert r.counts() == {"lstm": 4 * 10 * 16, "gru": 3 * 10 * 16}
    assert r.n_params == 4 * 10 * 16 + 2 * 40
    g = scene.compute(
        scene.make({"model": "random", "cell": "gru", "text": "abcab", "variant": "pytorch"})
    )
    assert g.gate_names == ("r", "z", "n") and g.c is None and g.variant == "pytorch"
    # Same character, same embedding: the first step's input repeats at step 4.
    from seqviz.scenes.gates import embed

    x = embed("abcab", 6, 0)
    assert np.array_equal(x[0], x[3]) and not np.array_equal(x[0], x[1])
    # A larger forget bias opens the forget gate.
    low = scene.compute(scene.make({"model": "random", "forget_bias": -2.0}))
    high = scene.compute(scene.make({"model": "random", "forget_bias": 4.0}))
    assert high.gates[:, 1].mean() > 0.9 > 0.5 > low.gates[:, 1].mean()


def test_gates_weights_file(tmp_path):
    from seqviz.core import Params

    path = tmp_path / "m.npz"
    Params.random("gru", 5, 7, seed=1).save(path)
    scene = get_scene("gates")
    r = scene.compute(scene.make({"model": "file", "weights": str(path)}))
    assert (r.cell, r.hidden, r.input_size, r.source) == ("gru", 7, 5, str(path))
    with pytest.raises(ValueError, match="does not exist"):
        scene.compute(scene.make({"model": "file", "weights": str(tmp_path / "none.npz")}))


def test_gradflow_forget_product_and_cell_path():
    from seqviz.scenes.gradflow import forget_products

    f = np.array([[0.5, 1.0], [0.25, 0.5], [0.5, 0.5]])
    assert np.allclose(forget_products(f), [[1, 1], [0.5, 0.5], [0.125, 0.25]])
    scene = get_scene("gradflow")
    r = scene.compute(scene.make({"steps": 40, "forget_bias": 8.0}))
    assert set(r.norms) == {"rnn", "lstm", "gru"} and r.T == 40
    assert r.mean_forget > 0.99
    assert r.forget_product[-1] > 0.5  # f near 1: the cell path keeps most of the signal
    weak = scene.compute(scene.make({"steps": 40, "forget_bias": -3.0}))
    assert weak.forget_product[-1] < 1e-10
    assert math.isclose(r.forget_product[0], 1.0)
