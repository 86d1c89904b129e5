"""Interventions (ablate/clamp a unit's c or h from a step on): the kernel path against a NumPy
recomputation with the unit forced, and two properties that hold whatever the model."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqviz.core import Params
from seqviz.core.reference import forward_steps
from seqviz.inside.intervene import Intervention, ablate, describe, forced_forward, parse_units
from seqviz.inside.reading import read
from seqviz.models.lm import RNNLM, random_lm

CELLS = [("rnn", "textbook"), ("lstm", "textbook"), ("gru", "textbook"), ("gru", "pytorch")]


def numpy_forced(p: Params, x: np.ndarray, ivs) -> tuple[np.ndarray, np.ndarray]:
    """An independent NumPy forward pass, one step at a time, forcing units after each step."""
    d = p.hidden_size
    h_prev, c_prev = np.zeros(d), np.zeros(d)
    hs, cs = [], []
    for t in range(x.shape[0]):
        h1, c1, g1, _ = forward_steps(p, x[t : t + 1], h_prev, c_prev)
        h, c = h1[0].copy(), (c1[0].copy() if p.cell == "lstm" else np.zeros(d))
        for iv in ivs:
            if t >= iv.from_step and iv.state == "c":
                c[iv.unit] = iv.value
                h[iv.unit] = g1[0][3, iv.unit] * np.tanh(iv.value)  # o * tanh(c)
        for iv in ivs:
            if t >= iv.from_step and iv.state == "h":
                h[iv.unit] = iv.value
        hs.append(h)
        cs.append(c)
        h_prev, c_prev = h, c
    return np.array(hs), np.array(cs)


@pytest.mark.parametrize(("cell", "variant"), CELLS)
def test_forced_forward_matches_numpy(cell, variant):
    rng = np.random.default_rng(7)
    p = Params.random(cell, 3, 5, seed=2, scale=0.9, variant=variant)
    x = rng.normal(size=(9, 3))
    ivs = [Intervention("h", 1, 0.0, 2), Intervention("h", 4, 0.7, 5)]
    if cell == "lstm":
        ivs += [Intervention("c", 0, 0.0, 3), Intervention("c", 4, -1.5, 0)]
    h, c, gates = forced_forward(p, x, ivs)
    h_ref, c_ref = numpy_forced(p, x, ivs)
    np.testing.assert_allclose(h, h_ref, atol=1e-12)
    if cell == "lstm":
        np.testing.assert_allclose(c, c_ref, atol=1e-12)
        assert c[3:, 0].tolist() == [0.0] * 6
    assert h[2:, 1].tolist() == [0.0] * 7  # h wins over a forced c of the same unit
    assert (gates is None) == (cell == "rnn")
    # the intervention changed something after step 2 and nothing before
    h0, _, _ = forced_forward(p, x)
    np.testing.assert_array_equal(h[: 0 if cell == "lstm" else 2], h0[: 0 if cell == "lstm" else 2])
    assert np.abs(h[6:] - h0[6:]).max() > 1e-6


@settings(max_examples=40, deadline=None)
@given(
    cell=st.sampled_from(CELLS),
    seed=st.integers(0, 10_000),
    T=st.integers(1, 8),
    unit=st.integers(0, 3),
    state=st.sampled_from(["c", "h"]),
    data=st.data(),
)
def test_setting_a_unit_to_its_own_value_changes_nothing(cell, seed, T, unit, state, data):
    """Clamp a unit at step K (the last step read) to the value it has there: nothing moves."""
    name, variant = cell
    if name != "lstm":
        state = "h"
    rng = np.random.default_rng(seed)
    p = Params.random(name, 2, 4, seed=seed, scale=1.2, variant=variant)
    x = rng.normal(size=(T, 2))
    K = data.draw(st.integers(0, T - 1))
    h0, c0, g0 = forced_forward(p, x[: K + 1])
    own = float((c0 if state == "c" else h0)[K, unit])
    h1, c1, g1 = forced_forward(p, x[: K + 1], [Intervention(state, unit, own, K)])
    np.testing.assert_allclose(h1, h0, rtol=0, atol=1e-15)
    if c0 is not None:
        np.testing.assert_array_equal(c1, c0)
    if g0 is not None:
        np.testing.assert_array_equal(g1, g0)


def unread_unit_lm(cell: str, seed: int, unit: int) -> RNNLM:
    """An LM whose readout and recurrent weights never read h[unit] (its c only feeds h[unit])."""
    lm = random_lm(["<s>", "</s>", "a", "b", "c"], cell=cell, hidden=4, emb=3, seed=seed)
    p = lm.params
    w_hh = np.array(p.weight_hh)
    w_hh[:, unit] = 0.0
    params = Params.from_arrays(cell, p.weight_ih, w_hh, p.bias_ih, p.bias_hh)
    out_w = np.array(lm.out_weight)
    out_w[:, unit] = 0.0
    return RNNLM(params, lm.embedding, out_w, lm.out_bias, lm.vocab)


@settings(max_examples=30, deadline=None)
@given(
    cell=st.sampled_from(["rnn", "lstm", "gru"]),
    seed=st.integers(0, 10_000),
    unit=st.integers(0, 3),
    state=st.sampled_from(["c", "h"]),
    value=st.sampled_from([0.0, 0.5, -3.0]),
    from_step=st.integers(0, 6),
    words=st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=6),
)
def test_forcing_a_unit_the_readout_never_reads_changes_no_probability(
    cell, seed, unit, state, value, from_step, words
):
    if cell != "lstm":
        state = "h"
    lm = unread_unit_lm(cell, seed, unit)
    text = " ".join(words)
    intact = read(lm, text)
    forced = read(lm, text, [Intervention(state, unit, value, from_step)])
    np.testing.assert_allclose(forced.logp, intact.logp, rtol=0, atol=1e-12)
    # and the intervention is real: the forced unit holds the value from from_step on
    T = len(words) + 1
    if from_step < T:
        held = (forced.c if state == "c" else forced.h)[from_step:, unit]
        np.testing.assert_array_equal(held, np.full(T - from_step, value))


def test_ablating_a_read_unit_changes_probabilities():
    lm = random_lm(["<s>", "</s>", "a", "b"], cell="lstm", hidden=4, emb=3, seed=1)
    intact = read(lm, "a b a")
    forced = read(lm, "a b a", ablate([("c", 2)], from_step=1))
    np.testing.assert_array_equal(forced.logp[0], intact.logp[0])
    assert np.abs(forced.logp[1:, 1:] - intact.logp[1:, 1:]).max() > 1e-6  # column 0 is <s>


@pytest.mark.parametrize(
    ("spec", "cell", "message"),
    [
        ("c34,x1", "lstm", "'x1' is not a unit"),
        ("c3,c3", "lstm", "listed twice"),
        ("c1", "gru", "only an lstm has"),
        ("h9", "rnn", "units 0 to 3"),
        ("", "rnn", "'' is not a unit"),
    ],
)
def test_bad_unit_specs_are_one_sentence(spec, cell, message):
    p = Params.random(cell, 2, 4, seed=0)
    with pytest.raises(ValueError, match=message) as err:
        parse_units(spec, p)
    msg = str(err.value).replace("e.g. ", "")
    assert msg.count(". ") == 0 and msg.endswith(".") and "\n" not in msg


def test_parse_units_and_describe():
    p = Params.random("lstm", 2, 40, seed=0)
    assert parse_units("c34, h17 ,c[2]", p) == (("c", 34), ("h", 17), ("c", 2))
    ivs = ablate([("c", 34)]) + (Intervention("h", 17, 1.0, 3),)
    assert describe(ivs) == "c[34] ablated, h[17] = +1.00 from step 3"
    assert describe(()) == "none"
    with pytest.raises(ValueError, match="finite"):
        forced_forward(p, np.zeros((2, 2)), [Intervention("h", 1, float("nan"))])


def test_record_text_round_trip_and_errors():
    from seqviz.inside.intervene import from_text, to_text, with_unit

    ivs = (Intervention("c", 34), Intervention("h", 17, 1.5, 3), Intervention("h", 2, -0.25))
    assert to_text(ivs) == "c34, h17=1.5@3, h2=-0.25"
    assert from_text(to_text(ivs)) == ivs
    assert from_text(" c[34] , ,h17 = 1.5 @ 3") == ivs[:2]
    assert from_text("") == ()
    assert with_unit("c34, h2", Intervention("c", 34, 2.0)) == "h2, c34=2"
    p = Params.random("gru", 2, 8, seed=0)
    with pytest.raises(ValueError, match="'q3' is not an intervention"):
        from_text("h1, q3", p)
    with pytest.raises(ValueError, match="only an lstm has"):
        from_text("c1", p)
