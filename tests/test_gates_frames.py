"""A gates frame shown for the first time repaints only what changed, and the terminal still
gets the whole truth (issue 16: first play)."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual._compositor import ChopsUpdate
from textual.filter import ANSIToTruecolor
from textual.strip import Strip
from widget_host import Host

from seqviz.core import backend
from seqviz.ui.compat_textual import (
    ScreenMirror,
    SpanChopsUpdate,
    capture_updates,
    full_render,
    paint_now,
)
from seqviz.ui.views.gates import GatesView
from seqviz.ui.widgets.colormap import diverging
from seqviz.ui.widgets.heatmap import Heatmap
from seqviz.ui.widgets.plots import SeriesPlot
from seqviz.ui.widgets.series import Series

SIZE = (160, 50)


def _sent(update: ChopsUpdate) -> str:
    console = Console(width=40, color_system=None, force_terminal=True)
    return Text.from_ansi(update.render_segments(console)).plain


def test_a_partial_update_sends_only_the_cells_of_its_spans() -> None:
    # one chop (a widget's line, cells 0..11) of which cells 8..9 changed
    line = Strip([Segment("abcdefgh"), Segment("ijkl", Style(bold=True))], 12)
    chops, spans, ends = [{0: line}], [(0, 8, 10)], [[12]]
    assert _sent(ChopsUpdate(chops, spans, ends)).endswith("abcdefghij")  # Textual: from 0
    sent = _sent(SpanChopsUpdate(chops, spans, ends))
    assert sent.endswith("ij") and "h" not in sent
    # a span across two chops sends the end of one and the start of the other
    two = [{0: Strip([Segment("abcd")], 4), 4: Strip([Segment("efgh")], 4)}]
    assert _sent(SpanChopsUpdate(two, [(0, 2, 6)], [[4, 8]])).replace("\x1b", "") != ""
    mirror = ScreenMirror(8, 1)
    mirror.apply(SpanChopsUpdate(two, [(0, 2, 6)], [[4, 8]]))
    assert mirror.text() == "  cdef  "
    plain = _sent(SpanChopsUpdate(two, [(0, 2, 6)], [[4, 8]]))
    assert "cd" in plain and "ef" in plain and "ab" not in plain and "gh" not in plain


async def test_heatmap_lines_need_no_ansi_to_rgb_filter() -> None:
    # Heatmap.TRUECOLOR skips Textual's ANSI->RGB filter: every style it draws (the map's
    # colours, inf/nan, the cursor, labels and ticks) must already be RGB without dim.
    assert Heatmap.TRUECOLOR
    heatmap = Heatmap()
    data = np.linspace(-1, 1, 8 * 10).reshape(8, 10)
    data[2, 3], data[5, 7] = np.inf, np.nan
    async with Host(heatmap).run_test(size=(40, 12)) as pilot:
        heatmap.set_data(data, diverging(1.0))
        heatmap.set_labels("abcdefghij")
        heatmap.set_cursor(3)
        heatmap.set_visible(6)
        await pilot.pause()
        (ansi,) = [f for f in pilot.app._filters if isinstance(f, ANSIToTruecolor)]
        background = heatmap.background_colors[1]
        lines = [heatmap.render_line(y) for y in range(heatmap.size.height)]
        assert any(seg.text == "▸" for line in lines for seg in line)  # the cursor is drawn
        for y, strip in enumerate(lines):
            assert list(ansi.apply(list(strip), background)) == list(strip), y


async def test_a_growing_plot_repaints_only_the_lines_its_curves_reach() -> None:
    t = np.arange(1.0, 41.0)
    plot = SeriesPlot(log_y=False, id="p")
    async with Host(plot).run_test(size=(60, 24)) as pilot:
        plot.set_series([Series("a", t, np.zeros_like(t), (255, 0, 0))], ylim=(-1.0, 1.0))
        plot.set_upto(10)
        await pilot.pause()
        plot.render_lines(plot.region.reset_offset)  # painted at the cut
        # what every repaint marks (Widget.refresh and compat_textual.refresh_lines)
        plot._dirty_regions.clear()
        plot.set_upto(11)  # a flat curve: one line holds its new point
        refreshed = list(plot._dirty_regions)
        lines = {r.y for r in refreshed}
        assert refreshed and all(r.height == 1 for r in refreshed)
        assert len(lines) <= 2, lines  # not the plot's 24 lines


@pytest.mark.slow
async def test_a_model_switch_mid_animation_repaints_every_changed_cell(make_app):
    # LSTM (six maps) -> GRU (four: two panels hidden) -> LSTM, stepping frames in between.
    app = make_app("gates")
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await pilot.pause()
        await paint_now(app, pilot)
        mirror = ScreenMirror.of_strips(full_render(app), SIZE[0])
        capture_updates(app, mirror.apply)
        spec = app.scene.spec("model")
        lstm = app.values.model
        gru = next(m for m in spec.choices if m.endswith("-gru"))
        for model in (gru, lstm, gru):
            app.set_param("model", model)
            await app.until_ready()
            await paint_now(app, pilot)
            for frame in range(1, 5):
                app.seek(frame)
                await paint_now(app, pilot)
            scratch = ScreenMirror.of_strips(full_render(app), SIZE[0])
            assert mirror.cells == scratch.cells, model
        values, frame = asdict(app.values), app.frame
    # the app's own caches drew both of those: a fresh app at the same frame must agree
    assert mirror.cells == (await _fresh_at(make_app, values, frame))[0]


async def _fresh_at(make_app, values: dict, frame: int) -> tuple[list, tuple]:
    """The cells a fresh gates app with ``values`` paints at ``frame``, and its view's region."""
    fresh = make_app("gates", values)
    async with fresh.run_test(size=SIZE) as pilot:
        await fresh.until_ready()
        await pilot.pause()
        fresh.seek(frame)
        await paint_now(fresh, pilot)
        cells = ScreenMirror.of_strips(full_render(fresh), SIZE[0]).cells
        return cells, tuple(fresh.query_one(GatesView).region)


async def test_a_switch_to_a_text_of_another_length_draws_the_new_frame_once(make_app):
    # random reads the text by characters, agreement by words: the cursor following the end
    # moves with each switch. The readout and the unit plots are drawn at the new frame from
    # the start (they were drawn at the old one, then again), and the screen is what a fresh
    # app at that frame shows.
    app = make_app("gates")
    builds: list[int] = []
    original = GatesView._readout

    def counted(view: GatesView, width: int):  # type: ignore[no-untyped-def]
        builds.append(view.frame)
        return original(view, width)

    shown = []
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await paint_now(app, pilot)
        mirror = ScreenMirror.of_strips(full_render(app), SIZE[0])
        capture_updates(app, mirror.apply)
        GatesView._readout = counted  # type: ignore[method-assign]
        try:
            for model, seek in (("random", None), ("agreement", None), ("random", 3)):
                if seek is not None:
                    app.seek(seek)
                    await paint_now(app, pilot)
                before = app.frame
                builds.clear()
                app.set_param("model", model)
                await app.until_ready()
                await paint_now(app, pilot)
                assert (app.frame != before) == (seek is None), (model, before, app.frame)
                assert builds == [app.frame], (model, builds)  # one readout, at the new frame
                for key in ("gates", "states"):
                    plot = app.query_one(f"#unit-{key}")
                    drawn = plot.render_lines(plot.size.region)
                    plot.set_upto(None)  # every point, then back: drawn anew at the frame
                    plot.set_upto(app.frame)
                    assert plot.render_lines(plot.size.region) == drawn, (model, key)
                shown.append((asdict(app.values), app.frame, [list(r) for r in mirror.cells]))
        finally:
            GatesView._readout = original  # type: ignore[method-assign]
    for values, frame, cells in shown[-2:]:
        scratch, (x, y, width, height) = await _fresh_at(make_app, values, frame)
        assert [r[x : x + width] for r in cells[y : y + height]] == [
            r[x : x + width] for r in scratch[y : y + height]
        ], values["model"]


async def test_a_model_switch_repaints_without_laying_the_screen_out(make_app):
    # LSTM and GRU fill the same 3x2 grid of maps (the GRU's h as its two parts in the LSTM's o
    # and c slots), the captions keep the tallest one's height and the readout's height is its
    # panel's: a switch changes what widgets show, never where they are (a layout pass was most
    # of a switch's time).
    from textual.screen import Screen

    from seqviz.ui.views.base import Panel

    app = make_app("gates")
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await paint_now(app, pilot)
        lstm = app.values.model
        gru = next(m for m in app.scene.spec("model").choices if m.endswith("-gru"))
        for model in (gru, lstm):  # the parameter info line grows to its tallest text once
            app.set_param("model", model)
            await app.until_ready()
            await paint_now(app, pilot)
        regions = {w: w.region for w in app.screen.query("*")}
        passes: list[int] = []
        original = Screen._refresh_layout

        def counted(screen, *args, **kwargs):  # type: ignore[no-untyped-def]
            passes.append(1)
            return original(screen, *args, **kwargs)

        Screen._refresh_layout = counted  # type: ignore[method-assign]
        try:
            for model, cell in ((gru, "gru"), (lstm, "lstm"), (gru, "gru")):
                app.set_param("model", model)
                await app.until_ready()
                await paint_now(app, pilot)
                await paint_now(app, pilot)
                assert app.result.cell == cell
                assert passes == [], cell
                assert {w: w.region for w in app.screen.query("*")} == regions, cell
                panels = list(app.query(".gate-panel").results(Panel))
                assert len(panels) == 6 and all(p.display for p in panels)
        finally:
            Screen._refresh_layout = original  # type: ignore[method-assign]


async def test_a_model_switch_lays_out_the_panel_and_paints_the_result_in_one_update(make_app):
    # The rows a model shows or hides ask for the panel's layout before the result comes; the
    # request reached the screen through the rows' and the screen's message queues after the
    # result was painted, so the panel came in a second update (random, agreement). Now the
    # screen knows at once: one update per switch, and what it leaves is a paint from scratch.
    app = make_app("gates")
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await paint_now(app, pilot)
        mirror = ScreenMirror.of_strips(full_render(app), SIZE[0])
        updates: list = []
        capture_updates(app, lambda update: (updates.append(update), mirror.apply(update)))
        spec = app.scene.spec("model")
        models = [*spec.choices[1:], spec.choices[0]]
        for visit, model in enumerate(models * 2):
            updates.clear()
            app.set_param("model", model)
            await app.until_ready()
            await paint_now(app, pilot)
            await paint_now(app, pilot)
            # (the first GRU grows the info line once: the whole screen is laid out then)
            assert visit < len(models) or len(updates) == 1, (model, len(updates))
            assert mirror.cells == ScreenMirror.of_strips(full_render(app), SIZE[0]).cells, model


# --- a parameter change lays the screen out only when something changed size ----------------
async def test_the_info_line_is_laid_out_again_only_when_its_height_changes(make_app):
    from dataclasses import replace

    from textual.widgets import Static

    from seqviz.ui.widgets.controls import ParamPanel

    app = make_app("gates")
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await paint_now(app, pilot)
        panel = app.query_one(ParamPanel)
        line = panel.query_one(".param-info", Static)
        width = line.content_size.width
        texts = {
            "short": "a" * (width - 4),
            "same height": "b" * (width - 2),  # another text on one line
            "longer": "c " * width,  # wraps to more lines
            "hidden": "",  # no info (model=file): the line is hidden and has no width
            "back": "d" * (width - 4),  # fits: the line keeps its two lines
            "longer again": "e " * width,
        }
        layouts: list[bool] = []
        original = line.refresh

        def spy(*regions, layout=False, **kw):
            layouts.append(layout)
            return original(*regions, layout=layout, **kw)

        line.refresh = spy  # type: ignore[method-assign]
        for name, text in texts.items():
            panel.scene = replace(panel.scene, info=lambda values, text=text: text)
            layouts.clear()
            panel._show_scope(app.values)
            await paint_now(app, pilot)
            await paint_now(app, pilot)
            asked = list(layouts)
            original(layout=True)  # anything that measures the line again (a layout pass)
            await paint_now(app, pilot)
            await paint_now(app, pilot)
            shown = line.content_size
            if name == "hidden":
                assert not line.display, name
                continue
            assert line.get_content_height(shown, shown, shown.width) <= shown.height, name
            assert shown.height == (1 if name in ("short", "same height") else 2), name
            assert line.render_line(0).text.strip().startswith(text.strip()[:8]), name
            if name in ("same height", "longer again"):
                assert not any(asked), name  # repainted in place (also after being hidden)
            if name == "longer":
                assert any(asked), name  # grown: laid out again


async def test_a_readout_sized_by_its_width_is_not_laid_out_again_for_a_new_height() -> None:
    from textual.containers import Vertical

    from seqviz.ui.widgets.readout import Readout

    layouts: list[bool] = []
    resized: list[bool] = []  # per Resize: whether the readout asked for a layout pass

    class Probe(Readout):
        def refresh(self, *regions, layout=False, **kw):  # type: ignore[override]
            layouts.append(layout)
            return super().refresh(*regions, layout=layout, **kw)

        def on_resize(self) -> None:
            before = len(layouts)
            super().on_resize()
            resized.append(any(layouts[before:]))

    lines = {"n": 3}
    fixed = Probe(id="fixed", width_only=True)
    async with Host(Vertical(fixed)).run_test(size=(40, 12)) as pilot:
        fixed.set_builder(lambda width: [Text(f"line {i}") for i in range(lines["n"])])
        await pilot.pause()
        assert fixed.size.height == 3
        resized.clear()
        lines["n"] = 5
        fixed.rebuild()  # new lines: a layout pass for the new height ...
        await pilot.pause()
        await pilot.pause()
        assert fixed.size.height == 5
        assert resized == [False]  # ... and none asked for by the Resize that followed it
        assert [fixed.render_line(y).text.strip() for y in range(5)] == [
            f"line {i}" for i in range(5)
        ]
        await pilot.resize_terminal(30, 12)  # a new width: the layout measures the lines anew
        await pilot.pause()
        await pilot.pause()
        assert fixed.size.width == 30 and fixed._strips_width == 30
        assert fixed.render_line(4).text.strip() == "line 4"


async def test_a_unit_cursor_move_repaints_the_cursor_lines_and_nothing_else_changes(make_app):
    # A cursor move repaints only the gutter of the old and the new cursor line of each map.
    app = make_app("gates")
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await pilot.pause()
        app.seek(4)
        await paint_now(app, pilot)
        mirror = ScreenMirror.of_strips(full_render(app), SIZE[0])
        capture_updates(app, mirror.apply)
        for unit in (5, 2, 9):
            app.set_param("unit", unit)
            await app.until_ready()
            await paint_now(app, pilot)
            scratch = ScreenMirror.of_strips(full_render(app), SIZE[0])
            assert mirror.cells == scratch.cells, unit
        values = asdict(app.values)
    fresh = make_app("gates", values)
    async with fresh.run_test(size=SIZE) as pilot:
        await fresh.until_ready()
        await pilot.pause()
        fresh.seek(4)
        await paint_now(fresh, pilot)
        assert mirror.cells == ScreenMirror.of_strips(full_render(fresh), SIZE[0]).cells


def test_a_span_sent_again_is_the_same_text_and_kept_on_its_strip() -> None:
    # the internals SpanChopsUpdate leans on: the strip's crop cache and the console's colours
    line = Strip([Segment("abcdefgh", Style(color="#ff0000")), Segment("ijkl")], 12)
    update = SpanChopsUpdate([{0: line}], [(0, 3, 9)], [[12]])
    first = _sent(update)
    assert hasattr(Console(), "_color_system")
    assert any(key[0] == "sent" for key in line._crop_cache.keys())
    assert _sent(update) == first and first.endswith("defghi")


@pytest.mark.slow
async def test_a_model_shown_again_from_kept_lines_is_what_a_fresh_app_draws(make_app):
    # The second visit of each model finds its maps', legends' and captions' lines kept: the
    # terminal must then show exactly what an app that never showed the other model shows.
    app = make_app("gates")
    shown: dict[str, tuple[dict, list]] = {}
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await paint_now(app, pilot)
        mirror = ScreenMirror.of_strips(full_render(app), SIZE[0])
        capture_updates(app, mirror.apply)
        lstm = app.values.model
        gru = next(m for m in app.scene.spec("model").choices if m.endswith("-gru"))
        drawn: list[tuple] = []
        original = Heatmap._draw_line

        def counted(heatmap: Heatmap, y: int) -> Strip:
            # what a failure needs to be explained (it failed once, under load, unexplained)
            kernels = "reference" if backend.using_reference() else "numba"
            drawn.append((heatmap.id, y, heatmap.size, kernels, backend.revision()))
            return original(heatmap, y)

        for visit, model in enumerate((gru, lstm, gru, lstm)):
            if visit == 2:  # from here on no map line is drawn: every one is kept
                Heatmap._draw_line = counted  # type: ignore[method-assign]
            app.set_param("model", model)
            await app.until_ready()
            await paint_now(app, pilot)
            shown[model] = (asdict(app.values), [list(row) for row in mirror.cells])
        Heatmap._draw_line = original  # type: ignore[method-assign]
        assert drawn == [], drawn[:8]
        # The view's cells: the sidebar's info line keeps the tallest height it has had (g6),
        # so a fresh app's has one line less, blank either way
        x, y, width, height = app.query_one(GatesView).region

    def view(cells: list) -> list:
        return [row[x : x + width] for row in cells[y : y + height]]

    for model, (values, cells) in shown.items():
        fresh = make_app("gates", values)
        async with fresh.run_test(size=SIZE) as pilot:
            await fresh.until_ready()
            await pilot.pause()
            await paint_now(fresh, pilot)
            assert fresh.query_one(GatesView).region == (x, y, width, height)
            scratch = ScreenMirror.of_strips(full_render(fresh), SIZE[0]).cells
            assert view(cells) == view(scratch), model


# --- a new unit's values lines are measured by their shape ------------------------------------
@given(
    words=st.lists(st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=12),
                   min_size=1, max_size=14),
    seed=st.integers(0, 2**16),
    width=st.integers(1, 60),
)  # fmt: skip
@settings(max_examples=200, deadline=None)
def test_lines_of_the_same_wrap_shape_wrap_alike(words, seed, width):
    # Another unit's values line: other characters, words of the same lengths (empty words are
    # runs of spaces). Rich must break both at the same places.
    from seqviz.ui.views.gates import wrap_shape
    from seqviz.ui.widgets.readout import _MEASURE, wrapped_lines

    rng = np.random.default_rng(seed)
    plain = " ".join(words)
    other = " ".join("".join(chr(int(c)) for c in rng.integers(33, 127, len(w))) for w in words)
    assert wrap_shape(plain) == wrap_shape(other)
    a, b = Text(plain), Text(other, style="bold")
    assert wrapped_lines([a], width) == wrapped_lines([b], width)
    assert [len(line) for line in a.wrap(_MEASURE, max(10, width))] == [
        len(line) for line in b.wrap(_MEASURE, max(10, width))
    ]
    # what is not printable ASCII is kept as itself
    assert wrap_shape("ü " + plain) == "ü " + plain
    assert wrap_shape(plain + "\t") == plain + "\t"


async def test_a_walk_through_every_model_again_draws_no_map_line_anew(make_app):
    # A user pressing + on the model walks through all of them (six): the second time round,
    # every map's lines and the model row's line are kept (a drawing per model), and the
    # terminal shows what a paint from scratch shows.
    from seqviz.ui.widgets.controls import ParamRow

    app = make_app("gates")
    async with app.run_test(size=SIZE) as pilot:
        await app.until_ready()
        await paint_now(app, pilot)
        mirror = ScreenMirror.of_strips(full_render(app), SIZE[0])
        capture_updates(app, mirror.apply)
        choices = app.scene.spec("model").choices
        walk = [*choices[1:], choices[0]]
        assert len(walk) > 4  # more than a widget kept before
        drawn: list[tuple] = []
        map_line, row_text = Heatmap._draw_line, ParamRow.render

        def counted_line(heatmap: Heatmap, y: int) -> Strip:
            drawn.append((heatmap.id, y))
            return map_line(heatmap, y)

        def counted_row(row: ParamRow) -> Text:
            drawn.append((row.id, row.value))
            return row_text(row)

        for lap in range(2):
            if lap == 1:  # from here on every line is kept
                Heatmap._draw_line = counted_line  # type: ignore[method-assign]
                ParamRow.render = counted_row  # type: ignore[method-assign]
            try:
                for model in walk:
                    app.set_param("model", model)
                    await app.until_ready()
                    await paint_now(app, pilot)
                    await paint_now(app, pilot)
                    scratch = ScreenMirror.of_strips(full_render(app), SIZE[0])
                    assert mirror.cells == scratch.cells, (lap, model)
            finally:
                Heatmap._draw_line = map_line  # type: ignore[method-assign]
                ParamRow.render = row_text  # type: ignore[method-assign]
        assert drawn == [], drawn[:8]
