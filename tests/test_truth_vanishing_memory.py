"""Vanishing and memory scenes say what they show: the network in the heatmap, numbers only once
the wave reached them, the README's screenshot example, the cell state on top, no tail below 0."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from seqviz.scenes import get_scene
from seqviz.ui.export import screen_text
from seqviz.ui.widgets.readout import sci

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.slow
async def test_linear_network_is_named_in_legend_and_now_column(make_app, ready):
    from seqviz.ui.widgets.series import PlotLegend

    app = make_app("vanishing", {"nonlinearity": "linear"})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        legend = str(app.query_one("#grad-legend", PlotLegend).render())
        assert "linear RNN (heatmap)" in legend and "tanh RNN (heatmap)" not in legend
        text = screen_text(app)
        assert "now lin" in text and "now tanh" not in text
        r = app.result
        assert re.search(rf"\b1\s+{re.escape(sci(r.norms_linear[1]))}", text)


@pytest.mark.slow
async def test_readout_numbers_wait_for_the_backward_wave(make_app, ready):
    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        r = app.result
        tanh = [sci(r.norms_tanh[k]) for k in (1, 10, 30, 59)]
        app.home()
        await pilot.pause()
        text = screen_text(app)
        assert re.search(r"\b1\s+·", text) and not re.search(rf"\b1\s+{re.escape(tanh[0])}", text)
        app.seek(r.T + 11)  # the wave has drawn k = 0..10
        await pilot.pause()
        await pilot.pause()
        text = screen_text(app)
        assert re.search(rf"\b10\s+{re.escape(tanh[1])}", text)
        assert not re.search(rf"\b30\s+{re.escape(tanh[2])}", text)
        app.end()
        await pilot.pause()
        await pilot.pause()
        assert re.search(rf"\b30\s+{re.escape(tanh[2])}", screen_text(app))


def test_readme_screenshot_example_shows_the_gradient():
    line = next(ln for ln in README.read_text().splitlines()
                if ln.startswith("seqviz screenshot --scene vanishing"))  # fmt: skip
    argv = shlex.split(line.split("#")[0])
    frame = int(argv[argv.index("--frame") + 1])
    settings = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
    scene = get_scene("vanishing")
    steps = scene.parse_settings(settings).steps
    assert steps < frame <= 2 * steps  # past the forward pass: gradient curves are drawn


@pytest.mark.slow
async def test_memory_cell_state_on_top_and_no_tail_below_zero(make_app, ready):
    from seqviz.ui.views.memory import CELL_COLOR, RNN_COLOR
    from seqviz.ui.widgets.plots import SeriesPlot

    app = make_app("memory", {"forget_bias": 0.0})  # c and h both fall to ~0 together
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        plot = app.query_one("#traj-plot", SeriesPlot)
        assert plot._series[-1].label.startswith("LSTM c")
        assert plot._ylim[0] == 0.0
        lines = plot._lines(*plot.size)
        zero_row = next(i for i, line in enumerate(lines) if re.match(r"\s*0(?![.\d])", line.text))

        def rows_with(color):
            hex_ = "#{:02x}{:02x}{:02x}".format(*color)
            return {
                i for i, line in enumerate(lines) for seg in line
                if seg.text.strip() and seg.style is not None and seg.style.color is not None
                and seg.style.color.triplet is not None and seg.style.color.triplet.hex == hex_
            }  # fmt: skip

        assert max(rows_with(RNN_COLOR)) <= zero_row
        assert zero_row in rows_with(CELL_COLOR)  # c sits at 0 at the end, drawn on top
