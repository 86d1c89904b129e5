"""Gradient flow tells the truth: its caption is computed from the curves, the GRU's highway can be
opened, the LSTM cell path is drawn beside the product of forget gates, nothing hides |dL/dh|."""

from __future__ import annotations

import re

import numpy as np
import pytest

from seqviz.scenes import get_scene
from seqviz.scenes.gradflow import CELLS

SCENE = get_scene("gradflow")


def _steepest(result) -> str:
    """Independently: the cell whose curve dropped most (log10) between k=0 and the farthest k
    at which all three curves are drawn on the log axis."""
    norms = {c: np.asarray(result.norms[c]) for c in CELLS}
    ok = np.all([np.isfinite(n) & (n > 0) for n in norms.values()], axis=0)
    k = int(np.nonzero(ok)[0][-1])
    return min(CELLS, key=lambda c: np.log10(norms[c][k]) - np.log10(norms[c][0]))


@pytest.mark.parametrize("rho", [0.5, 1.0, 1.3])
@pytest.mark.parametrize("forget_bias", [-2.0, 1.0, 6.0])
@pytest.mark.parametrize("update_bias", [-6.0, 0.0, 3.0])
def test_caption_names_the_line_that_falls_fastest(rho, forget_bias, update_bias):
    from seqviz.ui.views.gradflow import captions

    values = {"rho": rho, "forget_bias": forget_bias, "update_bias": update_bias, "steps": 60}
    r = SCENE.compute(SCENE.make({**values, "hidden": 16}))
    long, short = captions(r)
    pattern = r"the (RNN|LSTM|GRU)'s \|dL/dh\| falls fastest \(([-+.e0-9]+) at k=(\d+)\)"
    m = re.search(pattern, long)
    if m is None:
        assert "no |dL/dh| line falls" in long
        assert all(r.norms[c][-1] >= r.norms[c][0] for c in CELLS)
        return
    cell, value, k = m.group(1).lower(), float(m.group(2)), int(m.group(3))
    assert cell == _steepest(r)
    assert value == pytest.approx(r.norms[cell][k], rel=0.06)
    assert short.startswith(cell.upper())


def test_defaults_gru_falls_fastest_and_its_bias_opens_the_highway():
    from seqviz.ui.views.gradflow import captions

    r = SCENE.compute(SCENE.defaults())
    assert 0.45 < r.mean_update < 0.55  # untrained: z near 0.5
    assert "GRU's |dL/dh| falls fastest (3.2e-17 at k=99)" in captions(r)[0]
    opened = SCENE.compute(SCENE.make({"update_bias": -6.0}))
    assert opened.mean_update < 0.01
    assert opened.norms["gru"][-1] > 1e3 * r.norms["gru"][-1]
    assert "GRU's" not in captions(opened)[0]  # no longer the fastest


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("rho", [0.6, 1.0, 1.5])
@pytest.mark.parametrize("bias", [-2.0, 0.0, 2.0, 4.0])
def test_higher_forget_bias_flattens_cell_path_and_product(seed, rho, bias):
    """The caption's claim, checked over a grid: forget bias up -> both green and yellow higher."""
    low = SCENE.compute(SCENE.make({"seed": seed, "rho": rho, "forget_bias": bias, "steps": 50}))
    high = SCENE.compute(SCENE.make({"seed": seed, "rho": rho, "forget_bias": bias + 2,
                                     "steps": 50}))  # fmt: skip
    assert high.forget_product[-1] > low.forget_product[-1]
    assert high.cell_path[-1] / high.cell_path[0] > low.cell_path[-1] / low.cell_path[0]


@pytest.mark.slow
async def test_plot_draws_cell_path_total_as_total_and_lstm_on_top(make_app, ready):
    from seqviz.ui.views.gradflow import COLORS
    from seqviz.ui.widgets.plots import SeriesPlot

    app = make_app("gradflow")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        r = app.result
        plot = app.query_one("#flow-plot", SeriesPlot)
        by_label = {s.label: s for s in plot._series}
        path = [s for s in plot._series if np.array_equal(s.y, r.cell_path)]
        assert path and "cell path" in path[0].label
        total = [s for s in plot._series if np.array_equal(s.y, r.cell_norms)]
        assert total and "total" in total[0].label
        assert plot._series[-1].label == "LSTM |dL/dh|"  # drawn last: nothing covers it
        assert "LSTM |dL/dh|" in by_label
        lines = plot._lines(*plot.size)
        lstm = "#{:02x}{:02x}{:02x}".format(*COLORS["lstm"])
        cells = sum(
            len(seg.text.strip()) for line in lines for seg in line
            if seg.style is not None and seg.style.color is not None
            and seg.style.color.triplet is not None and seg.style.color.triplet.hex == lstm
        )  # fmt: skip
        assert cells >= 20
        caption = app.query_one("#flow-plot-panel .caption-long").render()
        assert "GRU's |dL/dh| falls fastest" in str(caption)
