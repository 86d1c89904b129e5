"""What keeps an animation frame cheap: no frame re-lays the screen out, caches are right."""

from __future__ import annotations

import numpy as np
import pytest
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.widget import Widget
from widget_host import Host, drawn

from seqviz.ui.compat_textual import paint_now
from seqviz.ui.widgets.colormap import diverging, sequential
from seqviz.ui.widgets.heatmap import Heatmap
from seqviz.ui.widgets.plots import CutLines, SeriesPlot
from seqviz.ui.widgets.readout import Readout
from seqviz.ui.widgets.series import Series

SIZE = (160, 50)


@pytest.mark.parametrize("scene", ["gates", "inside"])
async def test_no_animation_frame_changes_a_readout_height(scene, make_app):
    # A readout whose line count changed between frames (a values line that wraps, after a
    # one-line "nothing read yet") re-laid the whole screen out on that frame and the next.
    app = make_app(scene)
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await pilot.pause()
        heights = {}
        for frame in range(app.n_frames + 1):
            app.seek(frame)
            await paint_now(app, pilot)
            for readout in app.query(Readout):
                heights.setdefault(readout.id, set()).add(readout.size.height)
        assert heights
        assert all(len(h) == 1 for h in heights.values()), heights


# --- the caches a frame reuses, and the direct path past Textual's line pass ------------------
def _textualdrawn(widget: Widget) -> list[list[tuple[str, Style | None]]]:
    """The same lines through Textual's own pass (its StylesCache), from scratch."""
    widget._styles_cache.clear()
    lines = Widget.render_lines(widget, Region(0, 0, *widget.size))
    return [[(ch, seg.style) for seg in line for ch in seg.text] for line in lines]


DATA = np.linspace(-1, 1, 6 * 12).reshape(6, 12)  # (units, steps)


async def test_a_heatmap_line_cache_follows_data_colours_cursor_and_size() -> None:
    # Lines are kept per (line, revealed edge); each change must draw them anew. A fresh heatmap
    # in the same state is the reference.
    cached, fresh = Heatmap(id="cached"), Heatmap(id="fresh")
    async with Host(cached, fresh).run_test(size=(40, 12)) as pilot:
        changes = [
            lambda h: h.set_data(DATA, diverging(1.0)),
            lambda h: h.set_visible(5),
            lambda h: h.set_data(DATA, sequential(-1.0, 1.0)),  # colours only
            lambda h: h.set_data(DATA[::-1], sequential(-1.0, 1.0)),  # data only
            lambda h: h.set_visible(5),
            lambda h: h.set_cursor(3),
            lambda h: h.set_labels("abcdefghijkl"),
            lambda h: h.set_visible(12),
            # the step and label lines are kept whatever the edge: a frame, new labels or steps
            lambda h: h.set_visible(4),
            lambda h: h.set_labels("ABCDEFGHIJKL"),
            lambda h: h.set_axes(x=range(20, 32)),
            lambda h: h.set_visible(9),
        ]
        for k, change in enumerate(changes):
            change(cached)
            await pilot.pause()
            drawn(cached)  # painted in this state: its lines are now cached
            fresh.remove()
            fresh = Heatmap(id=f"fresh-{k}")
            await pilot.app.mount(fresh)
            for earlier in changes[: k + 1]:
                earlier(fresh)
            await pilot.pause()
            assert drawn(cached) == drawn(fresh), f"after change {k}"
        await pilot.resize_terminal(52, 12)  # a new size: every line is drawn again
        await pilot.pause()
        assert drawn(cached) == drawn(fresh)
        assert drawn(cached) == _textualdrawn(cached)


async def test_a_growing_plot_reuses_a_frame_only_for_the_same_curves() -> None:
    t = np.arange(1.0, 13.0)
    first = [Series("a", t, np.sin(t), (255, 0, 0))]
    second = [Series("a", t, np.cos(t), (255, 0, 0))]
    cached, fresh = SeriesPlot(log_y=False, id="c"), SeriesPlot(log_y=False, id="f")
    async with Host(cached, fresh).run_test(size=(60, 24)) as pilot:
        for plot, series in ((cached, first), (fresh, second)):
            plot.set_series(series, ylim=(-1.0, 1.0))
        await pilot.pause()
        for upto in (4, 5):
            cached.set_upto(upto)
            await pilot.pause()
            drawn(cached)
        cached.set_series(second, ylim=(-1.0, 1.0))  # new curves, then the same frame again
        cached.set_upto(5)
        fresh.set_upto(5)
        await pilot.pause()
        assert drawn(cached) == drawn(fresh)
        assert drawn(cached) == _textualdrawn(cached)


async def test_the_direct_path_draws_what_textual_draws_and_steps_aside_for_styles() -> None:
    heatmap = Heatmap()
    async with Host(heatmap).run_test(size=(40, 12)) as pilot:
        data = DATA.copy()
        data[1, 2], data[4, 3] = np.inf, np.nan  # the inf/nan colour
        heatmap.set_data(data, diverging(1.0))
        heatmap.set_labels("abcdefghijkl")
        heatmap.set_cursor(2)
        heatmap.set_visible(7)
        await pilot.pause()
        assert heatmap._direct_background() is not None
        # it skips Textual's ANSI-to-truecolor filter (TRUECOLOR): its lines, the cursor,
        # ticks, labels and inf/nan included, are what that filter and Textual's pass draw
        assert heatmap.TRUECOLOR
        assert drawn(heatmap) == _textualdrawn(heatmap)
        # a border, padding or tint: Textual's pass draws them, the direct path steps aside
        heatmap.styles.padding = (0, 1)
        heatmap.styles.tint = "red 30%"
        await pilot.pause()
        assert heatmap._direct_background() is None
        tinted = drawn(heatmap)
        assert tinted == _textualdrawn(heatmap)
        assert tinted[0][0][0] == " "  # the padding is drawn


async def test_a_keyed_readout_draws_each_key_once_and_a_new_builder_anew() -> None:
    state = {"n": 0}
    calls: list[int] = []

    def builder(width: int) -> Text:
        calls.append(state["n"])
        return Text(f"value {state['n']}")

    readout = Readout()
    async with Host(readout).run_test(size=(30, 4)) as pilot:
        readout.set_builder(builder, key=lambda: state["n"])
        await pilot.pause()

        def shown() -> str:
            return readout.render_line(0).text.rstrip()

        assert shown() == "value 0"
        state["n"] = 1
        readout.rebuild()
        assert shown() == "value 1"  # a new key: drawn anew
        drawn = len(calls)
        state["n"] = 0
        readout.rebuild()
        assert shown() == "value 0" and len(calls) == drawn  # a key seen before: kept lines
        readout.set_builder(lambda width: Text(f"other {state['n']}"), key=lambda: state["n"])
        assert shown() == "other 0"  # a new builder forgets the kept lines
        await pilot.resize_terminal(40, 4)  # another width: drawn anew, same text
        await pilot.pause()
        assert shown() == "other 0" and readout._strips_width == 40


async def test_the_gates_readout_follows_the_unit_at_the_same_frame(make_app):
    # Its lines are kept per (frame, unit, compact): a unit change at the same frame shows the
    # new unit's values, and going back shows the first unit's again.
    app = make_app("gates")
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        app.seek(3)
        await paint_now(app, pilot)
        readout = app.query_one("#gates-readout", Readout)

        def values_line() -> str:
            return next(s.text for s in readout._lines(readout.size.width) if "t=3" in s.text)

        first = values_line()
        assert first.startswith("unit 0,")
        app.set_param("unit", 5)
        await app.until_ready()
        await paint_now(app, pilot)
        assert values_line().startswith("unit 5,")
        app.set_param("unit", 0)
        await app.until_ready()
        await paint_now(app, pilot)
        assert values_line() == first
        await paint_now(app, pilot)
        assert values_line() == first


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_every_readout_takes_the_direct_path_and_draws_what_textual_draws(size, make_app):
    # Readouts skip Textual's line pass (DirectLines): in every scene with one (the training
    # scene's only while it trains, left out), each readout's lines are what Textual's own
    # pass draws, over the panel's background, at a full and a small screen.
    scenes = ["gates", "inside", "vanishing", "dynamics", "memory", "gradflow", "tagging",
              "seq2seq"]  # fmt: skip
    app = make_app(scenes[0])
    async with app.run_test(size=size) as pilot:
        for scene in scenes:
            app.set_scene(scene)
            await app.until_ready()
            await paint_now(app, pilot)
            readouts = [r for r in app.query(Readout) if r.size.area]
            assert readouts, scene
            for readout in readouts:
                assert readout._direct_background() is not None, (scene, readout.id)
                assert drawn(readout) == _textualdrawn(readout), (scene, readout.id)


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_every_legend_takes_the_direct_path_and_draws_what_textual_draws(size, make_app):
    # Colour and curve legends skip Textual's line pass (DirectLines): each one's line is what
    # Textual's own pass draws, over its panel's background, at a full and a small screen.
    from seqviz.ui.widgets.legend import ColorLegend
    from seqviz.ui.widgets.series import PlotLegend

    app = make_app("gates")
    checked: set[type] = set()
    async with app.run_test(size=size) as pilot:
        for scene, model in (("gates", "random"), ("gates", "agreement"), ("vanishing", None)):
            app.set_scene(scene)
            if model is not None:
                app.set_param("model", model)
            await app.until_ready()
            await paint_now(app, pilot)
            for legend in (w for w in app.query("ColorLegend, PlotLegend") if w.size.area):
                assert legend._direct_background() is not None, (scene, legend.id)
                assert drawn(legend) == _textualdrawn(legend), (scene, model, legend.id)
                checked.add(type(legend))
    assert checked == {ColorLegend, PlotLegend} if size == SIZE else checked


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_every_caption_takes_the_direct_path_and_draws_what_textual_draws(size, make_app):
    # Panel captions skip Textual's line pass (DirectLines; a model switch draws six anew):
    # in every scene each shown caption's lines are what Textual's own pass draws.
    from seqviz.ui.views.base import Caption

    scenes = ["vanishing", "memory", "gates", "gradflow", "decoding", "tagging", "dynamics",
              "inside", "training", "seq2seq"]  # fmt: skip
    app = make_app(scenes[0])
    checked = 0
    async with app.run_test(size=size) as pilot:
        for scene in scenes:
            app.set_scene(scene)
            await app.until_ready()
            await paint_now(app, pilot)
            for caption in (c for c in app.query(Caption) if c.size.area):
                assert caption._direct_background() is not None, (scene, caption.text)
                assert drawn(caption) == _textualdrawn(caption), (scene, caption.text)
                checked += 1
    assert checked >= 20


async def test_a_readout_with_no_width_draws_nothing_and_does_not_fail() -> None:
    """A screen squeezed to nothing gives a readout width 0: its lines (handed as Texts, which
    rich cannot wrap to width 0) are none, not an error that ends the app (the 10,000-key fuzz
    test met it in the Training scene)."""
    readout = Readout()
    async with Host(readout).run_test(size=(30, 4)) as pilot:
        readout.set_builder(lambda width: [Text("cell  acc loss |g| >=90% at", style="bold")])
        await pilot.pause()
        assert readout.render_line(0).text.startswith("cell")
        assert readout._lines(0) == []
        assert readout.render_line(0).text.startswith("cell")  # its lines at its width kept


async def test_the_status_line_keeps_its_lines_and_they_are_textuals(make_app):
    """A frame label shown before is not drawn again (StatusLine keeps Textual's lines per text,
    crop and styles), and what it keeps is what Textual draws for that text now: after a theme
    change a kept label is drawn anew in the new colours."""
    from seqviz.ui.status import StatusLine

    app = make_app("gates")
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await paint_now(app, pilot)
        status = app.query_one("#status", StatusLine)
        crop = status.size.region

        def textuals() -> list:
            status._set_dirty()  # Textual's own pass, from the text now, nothing kept
            return Widget.render_lines(status, crop)

        for theme in (app.theme, "textual-light"):
            app.theme = theme
            await paint_now(app, pilot)
            for frame in (2, 3, 2):
                app.seek(frame)
                await paint_now(app, pilot)
                kept = status.render_lines(crop)
                assert f"read {frame}/" in "".join(s.text for s in kept)
                assert kept == textuals(), (theme, frame)
            assert status.render_lines(crop) is status.render_lines(crop)  # kept, not drawn


def _cells_of(strip) -> list[tuple[str, Style | None]]:
    return [(ch, seg.style) for seg in strip for ch in seg.text]


def _every_range_is_the_lines_cut(widget, width: int, height: int) -> int:
    """Assert ``render_cells`` gives cell for cell what ``render_line`` cut there gives, for
    every range of every line (some narrow ranges, and the whole line); the ranges checked."""
    checked = 0
    ranges = [(a, b) for a in range(width) for b in (a + 1, a + 3, width) if b <= width]
    for y in range(height):
        cuts = [widget.render_cells(y, a, b) for a, b in ranges]  # before the line is drawn
        line = widget.render_line(y)
        assert line.cell_length == width
        for (a, b), cut in zip(ranges, cuts, strict=True):
            assert cut.cell_length == b - a, (y, a, b)
            assert _cells_of(cut) == _cells_of(line.crop(a, b)), (y, a, b)
            checked += 1
    return checked


async def test_a_heatmaps_cells_are_its_lines_cut_at_every_edge() -> None:
    """A partial repaint asks a heatmap for a range of a line's cells (render_cells): they are
    the cells of the whole line cut there, whatever the revealed edge (from the start or from
    the end), the cursor's gutter, unit labels, step and label lines."""
    heatmap = Heatmap()
    async with Host(heatmap).run_test(size=(40, 12)) as pilot:
        data = DATA.copy()
        data[1, 2], data[4, 3] = np.inf, np.nan
        heatmap.set_data(data, diverging(1.0))
        heatmap.set_labels("abcdefghijkl")
        heatmap.set_cursor(2)
        checked = 0
        for visible, from_end in ((0, False), (5, False), (12, False), (4, True), (12, True)):
            heatmap.set_visible(visible, from_end=from_end)
            await pilot.pause()
            drawn(heatmap)  # laid out at this size
            width, height = heatmap.size
            checked += _every_range_is_the_lines_cut(heatmap, width, height)
        assert checked > 1000


async def test_a_growing_plots_cells_are_its_lines_cut() -> None:
    """The same for a growing plot: each frame's cells (CutLines, before its lines are drawn
    whole, at every cut) and the whole picture's."""
    t = np.arange(1.0, 13.0)
    plot = SeriesPlot(log_y=False)
    async with Host(plot).run_test(size=(40, 12)) as pilot:
        plot.set_series([Series("a", t, np.sin(t), (255, 0, 0)),
                         Series("b", t, np.cos(t), (0, 200, 0))], ylim=(-1.0, 1.0))  # fmt: skip
        plot.set_upto(6)
        await pilot.pause()
        assert isinstance(plot._paint_lines, CutLines)
        full, empty = plot._cut_pictures
        width, height = plot.size
        for cut in range(full.canvas[0], width + 1):
            fresh = CutLines(full, empty, cut, width)  # no line drawn yet
            cuts = {
                (y, a, b): fresh.cells(y, a, b)
                for y in range(height)
                for a in range(0, width, 3)
                for b in (a + 1, a + 4, width)
                if b <= width
            }
            whole = CutLines(full, empty, cut, width)
            for (y, a, b), cells in cuts.items():
                assert cells.cell_length == b - a
                assert _cells_of(cells) == _cells_of(whole[y].crop(a, b)), (cut, y, a, b)
        for upto in (1, 11, None):
            plot.set_upto(upto)
            await pilot.pause()
            assert _every_range_is_the_lines_cut(plot, width, height) > 500


async def test_a_curve_plots_cells_are_its_lines_cut_as_it_grows() -> None:
    """The same for the Training scene's curves (CurvePlot): a new result's changed cells are
    asked for alone. Every range of every line, before a line is drawn again (the changed ones)
    and from the lines kept (the others), after each of a few results."""
    from seqviz.ui.widgets.curves import CurvePlot

    plot = CurvePlot(log_y=True, xlabel="update")
    rng = np.random.default_rng(0)
    loss = np.exp(-np.linspace(0, 3, 60)) * (1 + 0.3 * rng.random(60))
    loss[17] = np.nan
    async with Host(plot).run_test(size=(40, 12)) as pilot:
        checked = 0
        for n in (10, 11, 30, 60):
            x = np.arange(1.0, n + 1)
            plot.set_series([Series("a", x, loss[:n], (255, 0, 0)),
                             Series("b", x, loss[:n] * 3, (0, 200, 0)),
                             Series("x", x[::7], loss[:n:7], (255, 0, 255), "x")],
                            xlim=(0.0, 60.0), ylim=(1e-2, 10.0))  # fmt: skip
            if n == 10:  # laid out and drawn once: each later result changes some lines
                await pilot.pause()
                drawn(plot)
            width, height = plot.size
            changed = [y for y in range(height) if y not in plot._strips]
            checked += _every_range_is_the_lines_cut(plot, width, height)  # before a paint
            assert n == 10 or changed  # the result left lines to be drawn
            await pilot.pause()
        assert checked > 1000


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_decodings_panels_take_the_direct_path_and_draw_what_textual_draws(size, make_app):
    """The decoding scene's next-word bars and text panels (ranking, comparison, summary) skip
    Textual's line pass (DirectLines): stepping through the search, each shown panel's lines
    are what Textual's own pass draws."""
    from seqviz.ui.views.decoding import Sized
    from seqviz.ui.widgets.distribution import DistributionBars

    app = make_app("decoding", {"model": "lstm", "width": 3})
    async with app.run_test(size=size) as pilot:
        await app.until_ready()
        checked = 0
        for frame in (1, 2, 5, app.n_frames):
            app.seek(frame)
            await paint_now(app, pilot)
            panels = [w for w in app.query(DistributionBars) if w.size.area]
            panels += [w for w in app.query(Sized) if w.size.area]
            assert panels
            for panel in panels:
                assert panel._direct_background() is not None, panel.id
                assert drawn(panel) == _textualdrawn(panel), (frame, panel.id)
                checked += 1
        assert checked >= 8
