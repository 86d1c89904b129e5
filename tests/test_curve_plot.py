"""CurvePlot (the Training scene's curves): axes, gaps for nan, and cheap growth that stays true."""

from __future__ import annotations

import numpy as np
from textual.geometry import Region
from textual.widget import Widget
from widget_host import Host, drawn

from seqviz.ui.widgets.curves import BRAILLE, CurvePlot
from seqviz.ui.widgets.series import Series, int_ticks

RED, BLUE = (255, 0, 0), (0, 0, 255)


def _text(widget: Widget) -> list[str]:
    return ["".join(ch for ch, _ in line) for line in drawn(widget)]


def _loss(n: int) -> np.ndarray:
    return 2.0 * np.exp(-np.arange(n) / 300.0) + 0.05 * np.sin(np.arange(n))


def _set(plot: CurvePlot, n: int, extra: list[Series] | None = None) -> None:
    x = np.arange(1.0, n + 1)
    series = [Series("RNN", x, _loss(n), RED), *(extra or [])]
    plot.set_series(series, xlim=(0.0, 1000.0), ylim=(0.01, 10.0))


async def test_axes_ticks_and_label() -> None:
    plot = CurvePlot(log_y=True, xlabel="update", id="p")
    async with Host(plot).run_test(size=(60, 16)) as pilot:
        _set(plot, 400)
        await pilot.pause()
        text = _text(plot)
        labels = [line.split("┤")[0].strip() for line in text if "┤" in line]
        assert labels == ["1e1", "1e0", "1e-1", "1e-2"]  # whole decades, top down
        axis = next(line for line in text if "└" in line)
        numbers = text[text.index(axis) + 1].split()
        assert numbers == ["0", "200", "400", "600", "800", "1000"]
        assert text[-1].strip() == "update"
        # each number sits under its tick mark
        for value in (200, 400):
            col = plot.column_of(value)
            assert axis[col] == "┬"
            assert text[text.index(axis) + 1][col - 1 : col + 2].strip() == str(value)
        assert any(chr(BRAILLE) < ch <= chr(BRAILLE + 255) for line in text for ch in line)


async def test_a_grown_curve_equals_one_drawn_from_scratch_and_changed_only_its_end() -> None:
    grown, fresh = CurvePlot(id="grown"), CurvePlot(id="fresh")
    async with Host(grown, fresh).run_test(size=(60, 30)) as pilot:
        _set(grown, 400)
        await pilot.pause()
        before = drawn(grown)
        _set(grown, 410)
        _set(fresh, 410)
        await pilot.pause()
        after = drawn(grown)
        assert after == drawn(fresh)
        changed = {x for a, b in zip(before, after, strict=True) for x in range(len(a))
                   if a[x] != b[x]}  # fmt: skip
        near = range(grown.column_of(400) - 1, grown.column_of(410) + 2)
        assert changed and changed <= set(near)  # only the new points' columns
        # and the direct path gives what Textual's own line pass gives
        grown._styles_cache.clear()
        assert after == [
            [(ch, seg.style) for seg in line for ch in seg.text]
            for line in Widget.render_lines(grown, Region(0, 0, *grown.size))
        ]


async def test_nan_breaks_the_line_and_markers_show_as_characters() -> None:
    plot = CurvePlot(log_y=True, id="p")
    async with Host(plot).run_test(size=(50, 14)) as pilot:
        x = np.arange(1.0, 101.0)
        y = np.ones(100)
        y[40:60] = np.nan  # a stretch of non-finite losses: no line drawn through it
        bad = Series("nan", x[40:60], np.full(20, 10.0), (255, 0, 255), "x")
        plot.set_series([Series("a", x, y, RED), bad], xlim=(0.0, 100.0), ylim=(0.1, 10.0))
        await pilot.pause()
        text = _text(plot)
        row = next(line for line in text if "1e0" in line)
        inside = row[plot.column_of(45) : plot.column_of(55) + 1]
        assert inside.strip() == ""  # the gap
        assert row[plot.column_of(20)] != " " and row[plot.column_of(80)] != " "
        top = next(line for line in text if "1e1" in line)
        assert top.count("x") >= 5  # the markers sit on the top line


def _script(rng: np.random.Generator) -> list[tuple[str, int]]:
    """What happens between two draws: points added (most often one), or the limits, the size,
    the scale or a series changing under the kept bins."""
    events = ["grow"] * 12 + ["ylim", "xlim", "size", "scale", "restart", "rewrite", "swap"]
    return [(str(rng.choice(events)), int(rng.integers(1, 4))) for _ in range(120)]


def _ugly(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """n points with nan, inf, zeros and negatives in y and x beyond the limits or non-finite."""
    x = np.sort(rng.uniform(-20.0, 260.0, n))
    y = np.exp(rng.normal(0.0, 2.0, n))
    for values, bad in ((y, [np.nan, np.inf, -np.inf, 0.0, -1.0]), (x, [np.nan, np.inf])):
        hit = rng.random(n) < 0.08
        values[hit] = rng.choice(bad, int(hit.sum()))
    return x, y


def test_binning_only_the_new_points_draws_what_binning_all_of_them_draws() -> None:
    """Random series grown point by point (nan, inf, <= 0, points outside the x limits), with the
    y span, x limits, size, scale and the series themselves changing in between: the kept bins
    give the pixels a plot given the same series once gives, after every change. So do the
    cells a growing marker series hits (kept per series too)."""
    kept_hits = 0  # draws where a marker series' hit cells were kept and took its new points
    for seed in range(6):
        rng = np.random.default_rng(seed)
        data = [_ugly(rng, 400) for _ in range(3)]
        shown = [5, 1, 0]  # points of each series on screen
        xlim, ylim, size, log_y = (0.0, 200.0), (0.01, 100.0), (48, 40), True
        grown, cell_plot = CurvePlot(log_y=log_y), CurvePlot(log_y=log_y)
        kept = 0  # draws where a series' bins were kept and took only its new points
        unmoved = regrid = 0  # draws that moved no pixel: the last raster / grid reused
        for event, k in _script(rng):
            before, hits_before = dict(grown._bins), dict(grown._hits)
            if event == "grow":
                i = int(rng.integers(3))
                shown[i] = min(shown[i] + k, 400)
            elif event == "ylim":
                ylim = (float(rng.choice([1e-3, 0.01, 0.5])), float(rng.choice([1.0, 10.0, 1e3])))
            elif event == "xlim":
                xlim = (float(rng.choice([-10.0, 0.0])), float(rng.choice([100.0, 200.0, 250.0])))
            elif event == "size":
                size = (int(rng.choice([40, 48, 60])), int(rng.choice([32, 40])))
            elif event == "scale":
                log_y = grown.log_y = not log_y
            elif event == "restart":  # a new run: the same series, shorter
                shown[k % 3] = int(rng.integers(0, max(shown[k % 3], 1)))
            elif event == "rewrite":  # as long or longer, but other points before the new ones
                i, new = k % 3, _ugly(rng, 400)
                data[i] = (data[i][0], new[1]) if k > 1 else (new[0], data[i][1])  # y or x only
                shown[i] = min(shown[i] + int(rng.integers(0, 3)), 400)
            else:  # the series' order changes (one inserted in front, as the chance line is)
                data = data[1:] + data[:1]
                shown = shown[1:] + shown[:1]
            series = [Series(f"s{i}", x[:n], y[:n], RED, "x" if i == 2 and seed % 2 else "hd")
                      for i, ((x, y), n) in enumerate(zip(data, shown, strict=True))]  # fmt: skip
            grown.set_series(series, xlim=xlim, ylim=ylim)
            fresh = CurvePlot(log_y=log_y)
            fresh.set_series(series, xlim=xlim, ylim=ylim)
            got, want = grown._raster(*size), fresh._raster(*size)
            kept += sum(grown._bins.get(i) is b for i, b in before.items())
            kept_hits += sum(grown._hits.get(i) is h for i, h in hits_before.items())
            for a, b in zip(got, want, strict=True):  # dots, their colours, the markers
                assert np.array_equal(a, b), (seed, event)
            for i, bins in grown._bins.items():  # the sums too, bit for bit (a few points a
                once = fresh._bins[i]  # draw are binned one by one, all of them at once here)
                assert bins.seen.tobytes() == once.seen.tobytes(), (seed, event)
                assert bins.count.tobytes() == once.count.tobytes(), (seed, event)
                assert bins.total.tobytes() == once.total.tobytes(), (seed, event)
            # the cells of a kept plot too (a grid whose raster did not move is handed out again)
            drawn, grid = cell_plot._raster_out, cell_plot._grid_out
            cell_plot.log_y = log_y
            cell_plot.set_series(series, xlim=xlim, ylim=ylim)
            cells = cell_plot.cells(size[0] // 2, size[1] // 4 + 3)
            fresh = CurvePlot(log_y=log_y)
            fresh.set_series(series, xlim=xlim, ylim=ylim)
            assert cells == fresh.cells(size[0] // 2, size[1] // 4 + 3), (seed, event)
            unmoved += cell_plot._raster_out is drawn
            regrid += cells is grid
        assert kept > 100  # the kept bins were exercised, not only rebuilt
        assert unmoved > 5 and regrid > 5  # and so were the kept raster and grid
    assert kept_hits > 50


def test_the_line_series_drawn_in_one_pass_are_each_drawn_as_alone_and_later_ones_on_top() -> None:
    """All line series go through one binning and one polyline pass: every series' dots are
    the dots it draws alone (no segment joins the end of one series to the start of the next),
    and a cell two series reach takes the colour of the later one, whatever lies between."""
    blank = Series("none", np.zeros(0), np.zeros(0), RED)
    for seed in range(8):
        rng = np.random.default_rng(seed)
        data = [_ugly(rng, int(rng.integers(1, 200))) for _ in range(4)]
        log_y = bool(seed % 2)
        series = [Series(f"s{i}", x, y, RED, "x" if i == 1 and seed % 3 == 0 else "hd")
                  for i, (x, y) in enumerate(data)]  # fmt: skip
        series.insert(seed % 4, Series("flat", np.array([0.0, 200.0]), np.full(2, 0.5), BLUE))
        plot = CurvePlot(log_y=log_y)
        plot.set_series(series, xlim=(0.0, 200.0), ylim=(0.01, 100.0))
        bits, owner, _ = plot._raster(60, 40)
        alone_bits = np.zeros_like(bits)
        alone_owner = np.full(owner.shape, -1)
        for i, s in enumerate(series):
            if len(s.marker) == 1:
                continue
            alone = CurvePlot(log_y=log_y)  # series i at its index, nothing else drawn
            alone.set_series([blank] * i + [s], xlim=(0.0, 200.0), ylim=(0.01, 100.0))
            b, o, _ = alone._raster(60, 40)
            assert set(np.unique(o)) <= {-1, i}
            alone_bits |= b
            alone_owner = np.maximum(alone_owner, o)
        assert bits.any(), seed
        assert np.array_equal(bits, alone_bits), seed
        assert np.array_equal(owner, alone_owner), seed


async def test_an_animation_shown_again_draws_no_raster_and_shows_what_a_fresh_plot_does() -> None:
    # A replay steps set_upto through the frames again: each frame's grid is kept per reveal
    # (for the curves set last), and equals a fresh plot's at that frame.
    t = np.arange(1, 9, dtype=float)
    series = [Series("a", t, np.sin(t), (90, 170, 255), marker="hd"),
              Series("b", t, np.cos(t), (255, 200, 60), marker="hd")]  # fmt: skip
    plot, fresh = CurvePlot(log_y=False, blocks=True), CurvePlot(log_y=False, blocks=True)
    async with Host(plot, fresh).run_test(size=(36, 24)) as pilot:
        plot.set_series(series, xlim=(1.0, 8.0), ylim=(-1.0, 1.0), upto=0)
        await pilot.pause()
        for upto in range(9):  # the first play
            plot.set_upto(upto)
            await pilot.pause()
        drawn_now = plot._drawn
        calls: list[int] = []

        def counted(width: int, height: int) -> list:
            calls.append(1)
            return drawn_now(width, height)

        plot._drawn = counted  # type: ignore[method-assign]
        for upto in (*range(9), 3, 0):  # the replay
            plot.set_upto(upto)
            await pilot.pause()
            fresh.set_series(series, xlim=(1.0, 8.0), ylim=(-1.0, 1.0), upto=upto)
            await pilot.pause()
            assert drawn(plot) == drawn(fresh), upto
        assert calls == []
        plot.set_series(series[:1], xlim=(1.0, 8.0), ylim=(-1.0, 1.0), upto=3)  # new curves
        await pilot.pause()
        assert calls and _text(plot) != _text(fresh)


def test_a_linear_axis_labels_at_least_two_round_values() -> None:
    # gates' states axis spans +-max|c|: (-1.25, 1.25) once had the single label 0
    rng = np.random.default_rng(0)
    for lo, hi in [(-1.25, 1.25), (0.0, 1.0), (-5.88, 5.88), (1.0, 60.0), (0.0, 0.05)]:
        for count in (2, 3, 5):
            ticks = int_ticks(lo, hi, count)
            assert len(ticks) >= 2 and all(lo - 1e-9 <= t <= hi + 1e-9 for t in ticks)
            step = ticks[1] - ticks[0]
            mantissa = step / 10 ** np.floor(np.log10(step))
            assert min(abs(mantissa - m) for m in (1, 2, 5, 10)) < 1e-6
    for lo, width in zip(rng.uniform(-100, 100, 50), rng.uniform(1e-3, 50, 50), strict=True):
        assert len(int_ticks(float(lo), float(lo + width), 2)) >= 2


def test_a_results_few_points_binned_one_by_one_sum_as_binning_all_of_them() -> None:
    """Training-like results: three curves grow a few updates a result (nan, inf, zeros and
    spikes among them; x reaching the right limit exactly), a marker series grows with them, a
    line spans the x axis, and now and then the limits change. After every result the kept bins
    (a few new points binned one by one) hold bit for bit the sums of binning all the points at
    once, and the raster equals a new plot's."""
    rng = np.random.default_rng(16)
    n = 1500
    curves = [np.exp(rng.normal(0.0, 1.5, n)) for _ in range(3)]
    for y in curves:
        bad = rng.random(n) < 0.03
        y[bad] = rng.choice([np.nan, np.inf, -np.inf, 0.0, 1e30], int(bad.sum()))
    xs = np.arange(1, n + 1, dtype=float)
    plot = CurvePlot(log_y=True)
    size, ylim, upto, few = (76, 64), (0.01, 100.0), 0, 0
    for result in range(400):
        upto = min(upto + int(rng.integers(1, 6)), n)
        if result % 37 == 36:
            ylim = (float(rng.choice([1e-3, 0.01])), float(rng.choice([10.0, 100.0, 1e4])))
        xlim = (0.0, 500.0 if upto <= 500 else 1000.0 if upto <= 1000 else 2000.0)
        series = [Series(f"s{i}", xs[:upto], y[:upto], RED) for i, y in enumerate(curves)]
        series.insert(0, Series("chance", np.array(xlim), np.full(2, 0.5), RED))  # across
        big = np.flatnonzero(curves[0][:upto] > 30)
        series.append(Series("spikes", xs[big], curves[0][big], RED, "x"))
        before = dict(plot._bins)
        plot.set_series(series, xlim=xlim, ylim=ylim)
        fresh = CurvePlot(log_y=True)
        fresh.set_series(series, xlim=xlim, ylim=ylim)
        got, want = plot._raster(*size), fresh._raster(*size)
        for a, b in zip(got, want, strict=True):  # dots, their colours, the markers
            assert np.array_equal(a, b), result
        for i, bins in plot._bins.items():
            once = fresh._bins[i]
            for kept, all_at_once in ((bins.seen, once.seen), (bins.count, once.count),
                                      (bins.total, once.total)):  # fmt: skip
                assert kept.tobytes() == all_at_once.tobytes(), (result, i)
            few += before.get(i) is bins
    assert few > 1000  # series binned a few points at a time (not rebuilt)


def test_the_numba_line_raster_draws_what_the_numpy_path_draws(monkeypatch) -> None:
    """``raster_kernels.line_raster`` (used once the compiled kernels are ready) and the NumPy
    path (used before) give the same dots, colours and markers, bit for bit: random series with
    nan, inf, zeros, negatives and x outside the limits, on log and linear axes, lines in braille
    and in blocks, a closed PATH and marker series among them, y limits cutting curves off."""
    import seqviz.ui.widgets.curves as curves
    from seqviz.core.raster_kernels import line_raster

    assert curves.line_kernel() is line_raster  # the tests compute with the Numba kernels
    theta = np.linspace(0.0, 2 * np.pi, 61)
    compared = drawn_dots = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        log_y, blocks = bool(seed % 2), bool(seed % 3 == 0)
        series = []
        for i in range(int(rng.integers(1, 5))):
            x, y = _ugly(rng, int(rng.integers(1, 300)))
            marker = str(rng.choice(["hd", "hd", "x", curves.PATH]))
            if marker == curves.PATH:
                x, y = 120 + 100 * np.cos(theta), 10.0 ** (2 * np.sin(theta) * (i + 1))
            series.append(Series(f"s{i}", x, y, RED, marker))
        xlim = (float(rng.choice([-10.0, 0.0])), float(rng.choice([100.0, 250.0])))
        ylim = (float(rng.choice([1e-3, 0.5])), float(rng.choice([2.0, 1e3])))
        cells = (int(rng.choice([20, 48, 61])), int(rng.choice([4, 10, 13])))
        size = (cells[0] * 2, cells[1] * (2 if blocks else 4))
        pictures = []
        for kernel in (line_raster, None):
            monkeypatch.setattr(curves, "line_kernel", lambda k=kernel: k)
            plot = CurvePlot(log_y=log_y, blocks=blocks)
            plot.set_series(series, xlim=xlim, ylim=ylim)
            pictures.append(plot._raster(*size))
        for a, b in zip(*pictures, strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b), seed
        compared += 1
        drawn_dots += int(np.count_nonzero(pictures[0][0]))
    assert compared == 60 and drawn_dots > 2000  # lines were drawn, not only empty plots


def test_the_training_views_marker_points_grow_as_a_prefix() -> None:
    """The Training view hands the clipped updates (and the spikes/nan) of all cells to one
    marker series in update order: the next result's series is then this one followed by the
    new points, so the plot maps only those (its kept hits), where cell by cell a new point of
    the first cell landed before the other cells' points and every point was mapped again."""
    from seqviz.ui.views.training import _by_update

    rng = np.random.default_rng(0)
    steps = [np.sort(rng.choice(np.arange(1, 400), 60, replace=False)) for _ in range(3)]
    plot = CurvePlot(log_y=True)
    kept, last = 0, None
    for n in range(50, 400, 7):  # results: every cell's clipped updates up to update n
        xs = [s[s <= n].astype(float) for s in steps]
        cell = [np.full(x.size, i + 1.0) for i, x in enumerate(xs)]  # y: the cell's number
        x, y = _by_update(np.concatenate(xs), np.concatenate(cell))
        assert np.all(np.diff(x) >= 0)
        if last is not None:
            assert np.array_equal(x[: last.size], last)  # a prefix: the old points first
        last = x
        plot.set_series([Series("• clipped", x, y, RED, "•")], xlim=(0.0, 400.0), ylim=(0.1, 10.0))
        hits = plot._hits.get(0)
        plot._raster(80, 40)
        kept += plot._hits.get(0) is hits
    assert kept >= 45  # the kept hits grew; nothing was mapped again from scratch


def test_the_gradient_plots_y_axis_stays_while_the_data_fit_with_little_room() -> None:
    """While training runs the |dL/dh| plot keeps its y limits while the data's decades lie
    inside them with at most STEADY_DECADES to spare, and takes the data's own otherwise."""
    from seqviz.ui.views.training import STEADY_DECADES, _steady

    assert _steady(None, (1e-3, 1.0)) == (1e-3, 1.0)
    assert _steady((1e-4, 1.0), (1e-3, 1.0)) == (1e-4, 1.0)  # a decade to spare: kept
    assert _steady((1e-4, 10.0), (1e-3, 1.0)) == (1e-4, 10.0)  # two: kept
    assert STEADY_DECADES == 2
    assert _steady((1e-5, 10.0), (1e-3, 1.0)) == (1e-3, 1.0)  # three: the data's own
    assert _steady((1e-3, 1.0), (1e-4, 1.0)) == (1e-4, 1.0)  # data outside: the data's own
    assert _steady((1e-3, 1.0), (1e-3, 10.0)) == (1e-3, 10.0)
    # a jittering series: its limits move far less often than its own decades do
    rng = np.random.default_rng(1)
    lows = 10.0 ** -rng.integers(2, 5, 200)
    limits, moves, own = None, 0, 0
    for i, low in enumerate(lows):
        new = _steady(limits, (float(low), 1.0))
        moves += new != limits
        own += i > 0 and low != lows[i - 1]
        assert new[0] <= low and new[1] >= 1.0  # every point stays on the plot
        limits = new
    assert moves < own / 3
