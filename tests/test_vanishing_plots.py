"""The vanishing scene's raster plots: curves revealed frame by frame, the eigenvalue picture,
and an overflowed gradient drawn as inf/nan marks."""

from __future__ import annotations

import numpy as np
from rich.style import Style
from widget_host import Host, drawn

from seqviz.ui.widgets.curves import PATH, QUAD_GLYPHS, CurvePlot
from seqviz.ui.widgets.eigen import CIRCLE_COLOR, EIGEN_COLOR, EigenPlot
from seqviz.ui.widgets.series import Series

RED, BLUE = (255, 0, 0), (0, 0, 255)


def _text(widget) -> list[str]:
    return ["".join(ch for ch, _ in line) for line in drawn(widget)]


def _curves(n: int = 60) -> list[Series]:
    k = np.arange(n, dtype=float)
    return [Series("falls", k, 0.8**k, RED), Series("flat", k, np.full(n, 0.5), BLUE)]


def _colored(widget, color) -> list[tuple[int, int]]:
    """(row, column) of every cell drawn in ``color``."""
    want = Style(color="rgb({},{},{})".format(*color)).color
    return [(y, x) for y, line in enumerate(drawn(widget)) for x, (_, style) in enumerate(line)
            if style is not None and style.color == want]  # fmt: skip


async def test_a_revealed_curve_equals_one_cut_from_scratch_at_every_step() -> None:
    shown, fresh = CurvePlot(blocks=True, id="shown"), CurvePlot(blocks=True, id="fresh")
    async with Host(shown, fresh).run_test(size=(60, 30)) as pilot:
        limits = {"xlim": (0.0, 59.0), "ylim": (1e-6, 1.0)}
        shown.set_series(_curves(), **limits, upto=0)
        await pilot.pause()
        empty = _text(shown)
        assert not set("".join(empty)) & set(QUAD_GLYPHS[1:])  # axes only, no curve yet
        for upto in (1, 2, 9, 30, 29, 59, 60, None):  # forward, a step back, to the end
            shown.set_upto(upto)
            fresh.set_series(_curves(), **limits, upto=upto)
            await pilot.pause()
            assert drawn(shown) == drawn(fresh), upto
        full = _text(shown)

        def labels(text: list[str]) -> list[str]:
            return [line.split("┤")[0] for line in text if "┤" in line]

        assert labels(full) == labels(empty) == [" 1e0", "1e-2", "1e-4", "1e-6"]  # axes stay
        assert set("".join(full)) & set(QUAD_GLYPHS[1:])  # the curves, in quadrant blocks
        # a curve revealed halfway stops at the column of its last shown point
        shown.set_upto(30)
        await pilot.pause()
        cols = {x for _, x in _colored(shown, RED)}
        assert max(cols) <= shown.column_of(29) + 1 < shown.column_of(59)


async def test_a_path_is_joined_in_order_not_averaged_by_x() -> None:
    plot = CurvePlot(log_y=False, id="p")
    async with Host(plot).run_test(size=(40, 20)) as pilot:
        theta = np.linspace(0.0, 2.0 * np.pi, 241)
        ring = Series("ring", np.cos(theta), np.sin(theta), RED, PATH)
        plot.set_series([ring], xlim=(-1.2, 1.2), ylim=(-1.2, 1.2))
        await pilot.pause()
        centre = plot.column_of(0.0)
        rows = sorted(y for y, x in _colored(plot, RED) if x == centre)
        # the column through the middle crosses the ring twice, far apart (top and bottom)
        assert rows and rows[-1] - rows[0] >= 10
        assert not any(rows[0] + 2 < y < rows[-1] - 2 for y in rows)


async def test_the_eigenvalue_plot_draws_a_round_unit_circle_and_each_eigenvalue() -> None:
    plot = EigenPlot(id="e")
    async with Host(plot).run_test(size=(60, 20)) as pilot:
        eig = np.array([2.0 + 0j, -0.5 + 0.5j, -0.5 - 0.5j, np.inf, np.nan + 1j])
        plot.set_eigenvalues(eig)  # the non-finite ones are left out, nothing fails
        await pilot.pause()
        text = _text(plot)
        circle = _colored(plot, CIRCLE_COLOR)
        wide = max(x for _, x in circle) - min(x for _, x in circle) + 1
        high = max(y for y, _ in circle) - min(y for y, _ in circle) + 1
        assert 1.6 <= wide / high <= 2.4  # round: a cell is about twice as high as wide
        dots = _colored(plot, EIGEN_COLOR)
        assert len(dots) == 3 and all(text[y][x] == "•" for y, x in dots)
        right = max(dots, key=lambda d: d[1])  # 2 + 0j: on the zero row, right of the circle
        zero_row = next(y for y, line in enumerate(text) if line.strip().startswith("0┤"))
        assert right[0] == zero_row and right[1] > max(x for _, x in circle)
        assert right[1] == plot.column_of(2.0)
        labels = [line.split("┤")[0].strip() for line in text if "┤" in line]
        assert labels == ["2", "1", "0", "-1", "-2"]  # the unit circle's crossings, the radius


async def test_an_overflowed_gradient_is_marked_inf_nan_on_the_top_line(make_app, ready) -> None:
    from seqviz.ui.views.vanishing import BAD_COLOR

    app = make_app("vanishing", {"rho": 3.0, "nonlinearity": "linear", "steps": 1000})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        norms = app.result.norms_linear
        assert not np.isfinite(norms).all()  # the case this test is about
        plot = app.query_one("#grad-plot")
        marks = _colored(plot, BAD_COLOR)
        text = _text(plot)
        assert marks and {y for y, _ in marks} == {0}  # the top line
        assert all(text[y][x] == "x" for y, x in marks)
        first_bad = float(np.flatnonzero(~np.isfinite(norms))[0])
        assert min(x for _, x in marks) == plot.column_of(first_bad)
        assert "inf/nan" in str(app.query_one("#grad-legend").render())
        app.seek(app.result.T + int(first_bad))  # the backward wave has not reached them yet
        await pilot.pause()
        assert _colored(plot, BAD_COLOR) == []


async def test_a_gradient_near_the_largest_float_is_drawn_not_a_crash(make_app, ready) -> None:
    from seqviz.ui.views.vanishing import BAD_COLOR

    values = {"rho": 3.0, "nonlinearity": "linear", "steps": 1000, "hidden": 256}
    app = make_app("vanishing", values)
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        norms = app.result.norms_linear
        assert np.nanmax(norms[np.isfinite(norms)]) > 1e308  # its axis would end at 1e309
        for frame in (app.n_frames // 2 + 10, app.n_frames):
            app.seek(frame)
            await pilot.pause()
        assert not app._error
        plot = app.query_one("#grad-plot")
        assert _colored(plot, BAD_COLOR) and _colored(plot, (90, 170, 255))  # marks, the curve


async def test_finite_gradients_have_no_inf_nan_key(make_app, ready) -> None:
    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        assert np.isfinite(app.result.norms_linear).all()
        assert "inf/nan" not in str(app.query_one("#grad-legend").render())


async def test_a_legend_is_measured_as_textual_measures_it() -> None:
    from seqviz.ui.compat_textual import static_height
    from seqviz.ui.widgets.series import PlotLegend

    legend = PlotLegend(id="legend")
    async with Host(legend).run_test(size=(40, 6)) as pilot:
        await pilot.pause()
        for keys in ([("tanh RNN, rho=1.05", RED)], [("a very long key " * 3, RED), ("b", BLUE)]):
            frozen = tuple((label, tuple(color)) for label, color in keys)
            for width in (10, 25, 40):
                expected = static_height(legend, legend._text(frozen, width), width)
                assert legend._height(frozen, width) == expected, (keys, width)
        short = (("ab", RED),)
        assert legend._height(short, 40) == 1  # the one-line case needs no measuring pass


async def test_the_unit_circle_is_kept_per_size_and_limits_and_the_plot_is_a_fresh_ones() -> None:
    # The eigenvalues change with every result; the circle's pixels only with the size and
    # the limits (a radius past 1.25): kept while they hold, and always what a fresh plot draws.
    from seqviz.ui.widgets import curves

    shown = EigenPlot(id="shown")
    rng = np.random.default_rng(0)
    radii = (0.9, 1.0, 1.0, 2.0, 0.5, 3.0, 0.9)
    steps = []
    for radius in radii:
        eig = radius * np.exp(1j * rng.uniform(0, 2 * np.pi, 12))
        eig[0] = radius
        steps.append(eig)
    pictures = []
    async with Host(shown).run_test(size=(60, 24)) as pilot:
        joined: list[int] = []
        original = curves.polyline

        def counted(series, cols, rows):
            joined.append(len(cols))
            return original(series, cols, rows)

        curves.polyline = counted
        try:
            for step, (radius, eig) in enumerate(zip(radii, steps, strict=True)):
                joined.clear()
                shown.set_eigenvalues(eig)
                await pilot.pause()
                pictures.append(drawn(shown))
                # the circle (241 points) is joined again only when the limits moved
                moved = step == 0 or max(radius, 1.25 / 1.1) != max(radii[step - 1], 1.25 / 1.1)
                assert (241 in joined) == moved, (radius, joined)
        finally:
            curves.polyline = original
    for radius, eig, picture in zip(radii, steps, pictures, strict=True):
        fresh = EigenPlot(id="fresh")
        async with Host(fresh).run_test(size=(60, 24)) as pilot:
            fresh.set_eigenvalues(eig)
            await pilot.pause()
            assert drawn(fresh) == picture, radius


KEYS = [("chance 12%", RED), ("RNN", BLUE), ("LSTM", RED), ("key, 20 back", BLUE)]


def _rows(widget) -> list[str]:
    return ["".join(ch for ch, _ in line).rstrip() for line in drawn(widget)]


async def test_a_legend_breaks_lines_between_keys_never_inside_one() -> None:
    # A colour ending one line read as the key of the label that starts the next (Training's
    # accuracy legend at 80x24: "━━ RNN   ━━" over "LSTM"). Every colour stays with its label,
    # at every width, and follows the width when the screen is resized.
    from seqviz.ui.widgets.series import PlotLegend

    legend = PlotLegend(id="legend")
    async with Host(legend).run_test(size=(24, 8)) as pilot:
        legend.show_keys(KEYS)
        for width in (24, 30, 15, 50, 27, 60):  # from the widest key's width up
            await pilot.resize_terminal(width, 8)
            await pilot.pause()
            rows = [row for row in _rows(legend) if row]
            labels = [label for label, _ in KEYS]
            keys = [key.strip() for row in rows for key in row.split("━━ ")[1:]]
            assert keys == labels, (width, rows)  # each key whole, in order, after its colour
            assert all(row.startswith("━━ ") for row in rows), (width, rows)
            one_line = "   ".join(f"━━ {label}" for label in labels)
            assert (len(rows) == 1) == (len(one_line) <= width), (width, rows)
            assert drawn(legend) == _textual_lines(legend), width  # the kept lines are current
        await pilot.resize_terminal(13, 8)  # narrower than a key: that key wraps inside itself
        await pilot.pause()
        rows = [row for row in _rows(legend) if row]
        assert rows == ["━━ chance 12%", "━━ RNN", "━━ LSTM", "━━ key, 20", "back"]


def _textual_lines(widget):
    from textual.geometry import Region
    from textual.widget import Widget

    widget._styles_cache.clear()
    lines = Widget.render_lines(widget, Region(0, 0, *widget.size))
    return [[(ch, seg.style) for seg in line for ch in seg.text] for line in lines]
