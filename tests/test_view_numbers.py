"""What the views draw, asserted as numbers and text (SVG snapshots alone accept any change
after --snapshot-update): readout rows, gradflow's orientation, colour maps, captions."""

from __future__ import annotations

import numpy as np
import pytest
from textual.app import App, ComposeResult

from seqviz.scenes import get_scene
from seqviz.ui.widgets.colormap import DIVERGING, SEQUENTIAL, diverging, sequential
from seqviz.ui.widgets.heatmap import Heatmap
from seqviz.ui.widgets.readout import sci


def _rgb(color: str) -> tuple[int, int, int]:
    c = color.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def _lines(widget) -> list[str]:
    return [widget.render_line(y).text for y in range(widget.size.height)]


@pytest.mark.slow
async def test_vanishing_readout_rows_show_the_norms_k_steps_back(make_app, ready):
    app = make_app("vanishing", {"rho": 1.2, "steps": 80})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        r = app.result
        assert r.readout_steps == (1, 10, 30, 59)
        rows = {ln.split()[0]: ln.split() for ln in _lines(app.query_one("#readout")) if ln.strip()}
        for i, k in enumerate(r.readout_steps):
            lesson = [sci(norms[i]) for _, norms, _ in r.lesson]
            assert rows[str(k)][1:] == [sci(r.norms_tanh[k]), *lesson], k
        assert rows["lin"][1:] == ["59", sci(r.norms_linear[59]), *(sci(x) for *_, x in r.lesson)]


def test_vanishing_norms_count_steps_back_from_the_end():
    scene = get_scene("vanishing")
    r = scene.compute(scene.make({"steps": 40, "rho": 0.8}))
    tanh = scene.traces(r)["tanh"]
    # norms[k] is |dL/dh| at step T-1-k: k = 0 is the last state
    want = np.linalg.norm(tanh.grad_h[::-1], axis=1)
    np.testing.assert_allclose(r.norms_tanh, want, rtol=1e-12)
    assert r.norms_tanh[0] > r.norms_tanh[-1]  # it vanishes going back at rho < 1


@pytest.mark.slow
async def test_gradflow_plot_runs_k_steps_back(make_app, ready):
    app = make_app("gradflow", {"steps": 30})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        r = app.result
        traces = get_scene("gradflow").traces(r)
        series = {s.label: s for s in app.query_one("#flow-plot")._series}
        for cell in ("rnn", "lstm", "gru"):
            (s,) = [s for lbl, s in series.items() if lbl.startswith(cell.upper() + " |dL/dh|")]
            assert np.array_equal(s.x, np.arange(30))
            k_back = np.linalg.norm(traces[cell].grad_h[::-1], axis=1)
            np.testing.assert_allclose(s.y, k_back, rtol=1e-10, err_msg=cell)
            assert not np.allclose(s.y, k_back[::-1])  # the orientation is visible in the data


def test_colour_maps_run_the_right_way():
    blue, red = _rgb(DIVERGING[0]), _rgb(DIVERGING[-1])
    assert blue[2] > blue[0] and red[0] > red[2]  # negative blue, positive red
    middle = _rgb(DIVERGING[len(DIVERGING) // 2])
    assert sum(middle) < min(sum(blue), sum(red))  # dark at zero
    low, high = _rgb(SEQUENTIAL[0]), _rgb(SEQUENTIAL[-1])
    assert sum(high) > 2 * sum(low)  # gates: dark at 0, bright (yellow) at 1
    d = diverging(2.0)
    assert d.bins(np.array([-2.0, 0.0, 2.0, np.inf])).tolist() == [
        0,
        len(DIVERGING) // 2,
        len(DIVERGING) - 1,
        d.n,
    ]
    s = sequential(0.0, 1.0)
    assert s.bins(np.array([0.0, 1.0])).tolist() == [0, len(SEQUENTIAL) - 1]


class _Host(App):
    def __init__(self, widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


async def test_heatmap_paints_low_values_blue_and_high_values_red():
    heatmap = Heatmap()
    async with _Host(heatmap).run_test(size=(8, 2)) as pilot:
        # two units x three steps: unit 0 rises -1 -> 1, unit 1 falls (one line each here)
        heatmap.set_data(np.array([[-1.0, 0.0, 1.0], [1.0, 0.0, -1.0]]), diverging(1.0))
        await pilot.pause()
        blue, dark, red = (_rgb(DIVERGING[i]) for i in (0, len(DIVERGING) // 2, -1))
        for y, want in ((0, [blue, dark, red]), (1, [red, dark, blue])):
            runs = [seg.style for seg in heatmap.render_line(y) if seg.text.strip()]
            assert [tuple(st.color.triplet) for st in runs] == want, y
            assert [tuple(st.bgcolor.triplet) for st in runs] == want, y


@pytest.mark.slow
async def test_memory_readout_cites_the_computed_numbers(make_app, ready):
    app = make_app("memory", {"w": 0.9, "forget_bias": 3.0, "steps": 40})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        r = app.result
        text = " ".join(_lines(app.query_one("#readout")))
        assert f"f = {r.forget:.5f}" in text and f"c = {r.lstm_c[-1]:.3f}" in text
        assert f"f^40 = {r.forget**40:.3f}: the pulse's share left on the cell path" in text
        assert r.forget == 1 / (1 + np.exp(-3.0))


@pytest.mark.slow
async def test_vanishing_heat_caption_follows_the_nonlinearity(make_app, ready):
    from seqviz.ui.views.vanishing import LINEAR_CAPTION, TANH_CAPTION

    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        shown = " ".join(" ".join(_lines(w)) for w in app.query("#heat-panel .caption"))
        assert TANH_CAPTION[:40] in shown
        app.set_param("nonlinearity", "linear")
        await ready(app, pilot)
        shown = " ".join(" ".join(_lines(w)) for w in app.query("#heat-panel .caption"))
        assert LINEAR_CAPTION[:40] in shown and TANH_CAPTION[:40] not in shown


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["textbook", "pytorch"])
async def test_gates_scene_renders_a_gru(make_app, ready, variant):
    from seqviz.scenes.gates import GATE_LABELS
    from seqviz.ui.views.gates import PART_LABELS, caption

    app = make_app(
        "gates", {"model": "random", "cell": "gru", "variant": variant, "text": "the keys"}
    )
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        r = app.result
        assert r.gate_names == ("r", "z", "n") and r.c is None
        panels = [app.query_one(f"#gate-{i}") for i in range(6)]
        shown = [p for p in panels if p.display]
        parts = PART_LABELS[variant]
        labels = [GATE_LABELS["r"], GATE_LABELS["z"], GATE_LABELS["n"], parts["kept"],
                  parts["written"], "hidden state h"]  # fmt: skip
        assert [p.border_title for p in shown] == labels
        z_panel = shown[1]
        long, short = caption("z", "gru", variant)
        assert str(z_panel.query_one(".caption-long").render()) == long
        assert z_panel.short_text == short  # the short caption's (made on a compact screen)
        # the z map is z itself (units down, characters across) on the 0..1 map
        z_map = app.query_one("#map-1", Heatmap)
        want = sequential(0.0, 1.0).bins(r.gates[:, 1, :].T)
        assert np.array_equal(z_map._bins, want)
        # the kept and written maps are h's parts on h's map
        from seqviz.scenes.gates import gru_parts

        for i, name in ((3, "kept"), (4, "written")):
            want = diverging(1.0).bins(gru_parts(r)[name].T)
            assert np.array_equal(app.query_one(f"#map-{i}", Heatmap)._bins, want), name
