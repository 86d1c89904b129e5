"""A CurvePlot reveal kept from frame to frame draws what a plot of the cut curves draws."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from widget_host import Host, drawn

from seqviz.ui.widgets.curves import CurvePlot, _left_of
from seqviz.ui.widgets.reveal import Reveal, is_sorted, polyline, segment
from seqviz.ui.widgets.series import Series


def _curves(rng: np.random.Generator) -> list[Series]:
    """One to four series of 0-60 points: x sorted (repeats, beyond the limits, +-inf; now and
    then unsorted or a nan), y with nan, inf, zeros and negatives; lines and marker series."""
    out = []
    for i in range(int(rng.integers(1, 5))):
        n = int(rng.integers(0, 61))
        if rng.random() < 0.5:  # several points a bin, or steps of one
            x = np.sort(rng.uniform(-5.0, 45.0, n))
        else:
            x = np.arange(1.0, n + 1.0)
        if n and rng.random() < 0.2:
            x[0] = -np.inf
        if n and rng.random() < 0.2:
            x[-1] = np.inf
        if n > 2 and rng.random() < 0.08:  # the plot rasters such series cut, as before
            x[n // 2] = np.nan if rng.random() < 0.5 else x[0] - 1.0
        y = rng.normal(0.0, 3.0, n) if rng.random() < 0.5 else np.exp(rng.normal(0.0, 2.0, n))
        hit = rng.random(n) < 0.1
        y[hit] = rng.choice([np.nan, np.inf, -np.inf, 0.0, -1.0, 1e308], int(hit.sum()))
        marker = "x" if rng.random() < 0.25 else "hd"
        out.append(Series(str(i), x, y, (40 * i, 200, 90), marker))
    return out


def _edge(series: list[Series], count: int | None) -> float | None:
    """Where the plot cuts for ``count`` (CurvePlot._reveal's rule): None shows everything."""
    longest = max(series, key=lambda s: len(s.x), default=None)
    if longest is None or count is None or count >= len(longest.x):
        return None
    return float(longest.x[max(count, 0)])


def _frames(rng: np.random.Generator, n: int) -> list[int | None]:
    """A first play (one more point a frame), with steps back, jumps, replays and the end."""
    out: list[int | None] = []
    at = int(rng.integers(0, 3))
    for _ in range(int(rng.integers(10, 60))):
        r = rng.random()
        at = (at + 1 if r < 0.7 else at - int(rng.integers(1, 4)) if r < 0.8
              else int(rng.integers(0, n + 2)))  # fmt: skip
        at = max(at, 0)
        out.append(None if rng.random() < 0.03 else at)
    return out


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_every_frame_of_a_reveal_is_what_a_plot_of_the_cut_curves_draws(seed: int) -> None:
    rng = np.random.default_rng(seed)
    series = _curves(rng)
    log_y, blocks = bool(rng.random() < 0.5), bool(rng.random() < 0.5)
    width, height = int(rng.integers(8, 70)), int(rng.integers(4, 30))
    xlim = (float(rng.uniform(-3.0, 5.0)), float(rng.uniform(10.0, 60.0)))
    ylim = (0.01, 100.0) if log_y else (-5.0, float(rng.uniform(0.5, 8.0)))
    n = max((len(s.x) for s in series), default=0)
    plot = CurvePlot(log_y=log_y, blocks=blocks)
    plot.set_series(series, xlim=xlim, ylim=ylim, upto=0)
    for count in _frames(rng, n):
        plot.set_upto(count)
        plot._reveals = {}  # draw every frame (a replay's kept grid is checked below)
        got = plot.cells(width, height)
        fresh = CurvePlot(log_y=log_y, blocks=blocks)
        edge = _edge(series, count)
        cut = series if edge is None else [_left_of(s, edge) for s in series]
        fresh.set_series(cut, xlim=xlim, ylim=ylim)
        assert got == fresh.cells(width, height), (seed, count)


def test_a_reveal_keeps_its_raster_and_draws_each_frames_new_segment_in_python() -> None:
    # The kept raster grows while the edge moves right; a step back draws it anew (in numpy).
    t = np.arange(1.0, 41.0)
    series = [Series("a", t, np.sin(t / 3), (255, 0, 0)),
              Series("b", t, np.cos(t / 5), (0, 0, 255))]  # fmt: skip
    plot = CurvePlot(log_y=False)
    plot.set_series(series, xlim=(1.0, 40.0), ylim=(-1.0, 1.0), upto=0)
    plot.cells(60, 20)
    revealed = plot._revealed
    assert isinstance(revealed, Reveal) and revealed.ok
    for count in range(1, 30):
        plot.set_upto(count)
        plot.cells(60, 20)
        assert plot._revealed is revealed  # the same reveal, grown
        assert revealed.level == [max(count - 1, 0)] * 2  # all bins but the newest kept
    bulk: list[int] = []
    drawn_at = revealed._bulk
    revealed._bulk = lambda need: (bulk.append(1), drawn_at(need))  # type: ignore[method-assign]
    plot.set_upto(25)  # a step back: the kept raster is drawn anew, in one pass
    plot._reveals = {}  # (not the grid kept for frame 25 of this play)
    plot.cells(60, 20)
    assert bulk and revealed.level == [24, 24]
    plot.forget_kept()  # the bench's first play forgets it
    assert plot._revealed is None


def test_a_segment_in_python_has_the_pixels_numpy_draws() -> None:
    rng = np.random.default_rng(1)
    for _ in range(3000):
        x0, y0, x1, y1 = (int(v) for v in rng.integers(0, 300, 4))
        who, px, py = polyline(np.zeros(2, np.int64), np.array([x0, x1]), np.array([y0, y1]))
        want = list(zip(px.tolist(), py.tolist(), strict=True))[:-2]  # without the two dots
        assert segment(x0, y0, x1, y1) == want


def test_sorted_means_never_decreasing_and_no_nan() -> None:
    assert is_sorted(np.array([1.0, 1.0, 2.0, np.inf])) and is_sorted(np.array([]))
    assert not is_sorted(np.array([1.0, 0.5])) and not is_sorted(np.array([np.nan]))
    assert not is_sorted(np.array([1.0, np.nan, 2.0]))


async def test_a_mounted_reveal_shows_what_a_fresh_plot_shows_at_every_frame() -> None:
    # through the repaint: a first play, a step back, a replay (kept grids), the end
    t = np.arange(1.0, 9.0)
    series = [Series("i", t, 0.5 + 0.4 * np.sin(t), (90, 170, 255)),
              Series("f", t, 0.5 + 0.4 * np.cos(2 * t), (255, 200, 60)),
              Series("o", t, np.linspace(0.1, 0.9, 8), (120, 220, 120))]  # fmt: skip
    plot, fresh = CurvePlot(log_y=False, blocks=True), CurvePlot(log_y=False, blocks=True)
    async with Host(plot, fresh).run_test(size=(36, 24)) as pilot:
        plot.set_series(series, xlim=(1.0, 8.0), ylim=(0.0, 1.0), upto=8)
        await pilot.pause()
        for upto in (*range(9), 5, 4, 6, *range(9), 3):
            plot.set_upto(upto)
            fresh.set_series(series, xlim=(1.0, 8.0), ylim=(0.0, 1.0), upto=None)
            edge = _edge(series, upto)
            cut = series if edge is None else [_left_of(s, edge) for s in series]
            fresh.set_series(cut, xlim=(1.0, 8.0), ylim=(0.0, 1.0))
            await pilot.pause()
            assert drawn(plot) == drawn(fresh), upto
