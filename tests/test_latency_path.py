"""The path from a parameter change to the repainted result: order, the last value wins, the
garbage collector's frozen heap, and nothing left running at quit."""

from __future__ import annotations

import gc
import weakref

from waiting import until

from seqviz.ui.views.base import Panel
from seqviz.ui.widgets.colormap import diverging, sequential
from seqviz.ui.widgets.legend import ColorLegend


async def test_a_burst_of_changes_ends_on_the_last_value(make_app, ready):
    """Ten values set faster than they compute: results are shown in the order asked, none
    older after a newer one, and the screen ends on the result of the last value."""
    app = make_app("vanishing")
    shown: list[tuple[int, float]] = []
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        view = app._view
        original = view.show_result

        def recording(result):
            shown.append((app._generation, result.values.rho))
            original(result)

        view.show_result = recording
        first = app._generation
        values = [round(1.05 + 0.05 * i, 2) for i in range(10)]
        for rho in values:
            app.set_param("rho", rho)  # no wait between them
        await ready(app, pilot)
        assert shown, "no result was shown after the burst"
        rhos = [rho for _, rho in shown]
        assert all(rho in values for rho in rhos)
        assert rhos == sorted(rhos)  # in the order asked: never an older value after a newer
        assert rhos[-1] == values[-1] == app.values.rho == app.result.values.rho
        assert app._shown_generation == app._generation == first + len(values)
        assert app.query_one("#status").render().plain.find("computing") < 0


async def test_results_for_stale_values_are_dropped(make_app, ready):
    """A result computed for values that were replaced meanwhile is never drawn."""
    app = make_app("gates")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        drawn: list[int] = []
        original = app._view.show_result
        app._view.show_result = lambda r: (drawn.append(r.values.layer), original(r))
        app.set_param("layer", 1)
        app.set_param("layer", 0)
        await ready(app, pilot)
        assert drawn and drawn[-1] == 0 == app.result.values.layer
        assert drawn in ([0], [1, 0])


async def test_the_heap_is_frozen_once_shown_and_thawed_on_switch_and_exit(
    make_app, ready, monkeypatch
):
    """After a view's first result everything alive is frozen (a collection skips it); a
    scene switch thaws and collects, so the old view is freed; quitting thaws the heap."""
    import seqviz.ui.app as app_module

    monkeypatch.setattr(app_module, "THAW_INTERVAL", 0.0)
    threshold = gc.get_threshold()
    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        await until(lambda: gc.get_freeze_count() > 0, pilot, what="the heap frozen")
        # the young generation is the app's while it runs, the older ones Python's
        assert gc.get_threshold() == (app_module.YOUNG_OBJECTS, *threshold[1:])
        old = weakref.ref(app._view)
        app.set_scene("memory")
        await ready(app, pilot)
        assert old() is None  # collected by the switch itself
        await until(lambda: gc.get_freeze_count() > 0, pilot, what="the new view frozen")
        assert gc.get_threshold()[0] == app_module.YOUNG_OBJECTS
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == threshold  # quitting gives the collector its own back


async def test_fast_switches_collect_at_most_once_a_second(make_app, ready, monkeypatch):
    """Switching faster than THAW_INTERVAL keeps the heap frozen (no full collection per key);
    the next switch after it thaws and frees every view shown meanwhile."""
    import seqviz.ui.app as app_module

    monkeypatch.setattr(app_module, "THAW_INTERVAL", 1e9)
    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        await until(lambda: gc.get_freeze_count() > 0, pilot, what="the heap frozen")
        old = []
        for name in ("memory", "gradflow", "vanishing"):
            old.append(weakref.ref(app._view))
            app.set_scene(name)
            await ready(app, pilot)
            assert gc.get_freeze_count() > 0  # not thawed: no full collection
        monkeypatch.setattr(app_module, "THAW_INTERVAL", 0.0)
        app.set_scene("memory")
        await ready(app, pilot)
        assert [ref() for ref in old] == [None, None, None]


def _threads_in_seqviz() -> list[str]:
    """Threads other than this one with seqviz code on their stack (a computation running)."""
    import sys
    import threading
    import traceback

    names = {t.ident: t.name for t in threading.enumerate()}
    busy = []
    for ident, frame in sys._current_frames().items():
        if ident == threading.get_ident():
            continue
        files = [entry.filename for entry in traceback.extract_stack(frame)]
        if any("/seqviz/" in name and "/tests/" not in name for name in files):
            busy.append(names.get(ident, str(ident)))
    return busy


async def test_no_computation_is_left_running_at_quit(make_app, ready):
    """Quit right after a burst of changes: no thread is left computing."""
    import asyncio

    app = make_app("vanishing", {"steps": 1000, "hidden": 256})  # each compute takes a while
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        for rho in (1.1, 1.2, 1.3):
            app.set_param("rho", rho)
    for _ in range(1000):
        if not _threads_in_seqviz():
            break
        await asyncio.sleep(0.01)
    assert _threads_in_seqviz() == []


async def test_an_unchanged_title_or_legend_repaints_nothing(make_app, ready, monkeypatch):
    """Views set every panel's title and legend with each result; Textual repaints the whole
    panel on each set, so an unchanged one must not reach it (by Textual's refresh, or told to
    the screen directly)."""
    from seqviz.ui import compat_textual

    app = make_app("gates")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        panel = app.query_one("#gate-0", Panel)
        legend = app.query_one("#legend-0", ColorLegend)
        calls: list[str] = []
        names = {panel: "panel", legend: "legend"}
        direct = compat_textual.repaint_directly

        def spy(widget, *regions):  # type: ignore[no-untyped-def]
            if widget in names:
                calls.append(names[widget])
            return direct(widget, *regions)

        monkeypatch.setattr(compat_textual, "repaint_directly", spy)
        panel.refresh = lambda *a, **k: calls.append("panel")  # type: ignore[method-assign]
        legend.refresh = lambda *a, **k: calls.append("legend")  # type: ignore[method-assign]
        title = panel.border_title
        panel.border_title = title
        legend.set_map(legend._cmap, legend._label)
        assert calls == []
        panel.border_title = "another title"
        legend.set_map(diverging(2.0) if legend._cmap == sequential() else sequential())
        assert list(dict.fromkeys(calls)) == ["panel", "legend"]
        assert panel.border_title == "another title"


def _drawn(renderable, width):
    """(text, style) runs of each line as a console draws ``renderable`` at ``width``."""
    from rich.console import Console
    from rich.segment import Segment
    from rich.style import Style

    console = Console(width=width, force_terminal=True, color_system="truecolor")
    options = console.options.update(width=width, height=None, highlight=False)
    lines = Segment.split_and_crop_lines(
        console.render(renderable, options), width, include_new_lines=False, pad=False
    )
    runs = ([Segment(t, style or Style.null()) for t, style, _ in line] for line in lines)
    return [[(s.text, s.style) for s in Segment.simplify(line)] for line in runs]


def test_number_tables_draw_as_rich_tables_do():
    """A readout's NumberTable draws cell for cell, style for style what rich's Table draws,
    whether it fits its width (drawn as text lines) or not (left to rich)."""
    from rich.style import Style
    from rich.table import Table

    from seqviz.ui.widgets.readout import NumberTable

    table = NumberTable()
    table.add_column("k back")
    table.add_column("now tanh", justify="right", style="bold")
    for rho in (0.8, 1.0, 1.2):
        table.add_column(f"rho {rho:.1f}", justify="right", style="dim")
    table.add_row("1", "6.5e-01", "·", "inf", "nan")
    table.add_row("lin 59", "·", "4.4e+02", "-inf", "1.0e-300")
    for width in (80, 46, 45, 20):  # 46 columns fit it exactly; 45 leave it to rich
        assert _drawn(table.renderable(width), width) == _drawn(table.rich_table(), width)
    header = (" k back  now tanh  rho 0.8  rho 1.0   rho 1.2 ", Style(bold=True))
    assert _drawn(table.renderable(80), 80)[0] == [header]
    assert isinstance(table.renderable(45), Table) and not isinstance(table.renderable(46), Table)


def _count_workers(app) -> list:
    """Record each compute handed to a Textual worker (finished workers leave app.workers)."""
    started: list = []
    original = app._compute
    app._compute = lambda *args: (started.append(args), original(*args))[1]
    return started


async def _fast_scene(app, pilot, ready):
    """Wait until the app waits for the current scene's compute in place (its last compute was
    timed under FAST_COMPUTE; on a loaded machine a few more may be needed)."""
    rhos = (1.05, 1.1)
    for i in range(20):
        if app._fast.get(app.scene.name) is not None:
            return
        app.set_param("rho", rhos[i % 2])
        await ready(app, pilot)
    raise AssertionError("the vanishing scene never computed under FAST_COMPUTE")


async def test_a_fast_change_is_painted_once_with_its_result(make_app, ready):
    """A change of a scene that computes fast starts no worker and paints nothing before its
    result: the screen's first update shows the new value and the new result together (before,
    the new value was painted alone while the worker started, the result in a later update)."""
    from seqviz.ui.compat_textual import capture_updates, paint_now

    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        await _fast_scene(app, pilot, ready)
        await paint_now(app)
        updates: list = []
        capture_updates(app, updates.append)
        workers = _count_workers(app)
        rho = 1.15 if app.values.rho != 1.15 else 1.2
        app.set_param("rho", rho)
        app.screen._on_timer_update()  # the screen's timer fires before the compute runs
        assert updates == []  # the new value is not painted alone
        await app.until_ready()
        # Painted as soon as the result was in (paint_pending), in one update, before the
        # screen's timer or anyone else painted: the widgets' own refresh hops are not
        # waited for, and none of them is left for a second update.
        assert len(updates) == 1
        await paint_now(app)
        assert len(updates) == 1
        assert workers == []  # no Textual worker was started for it
        assert app.result.values.rho == rho
        row = app.query_one("#param-rho")
        painted = {y for y, _, _ in updates[0].spans}
        legend = app.query_one("#grad-legend")  # its keys name rho
        for widget in (row, app.query_one("#h-heatmap"), app.query_one("#grad-plot"), legend):
            assert set(range(widget.region.y, widget.region.bottom)) & painted, widget.id
        assert f"{rho:g}" in str(row.render_line(0).text)
        assert f"rho={rho:.2f}" in str(legend.render())


async def test_an_unchanged_status_line_repaints_nothing(make_app, ready):
    """The app sets the status line after every change and frame; a change at the last frame
    mostly leaves its text as it was, and then the line is not drawn again."""
    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        status = app.query_one("#status")
        calls: list[str] = []
        status.refresh = lambda *a, **k: calls.append("status")  # type: ignore[method-assign]
        app._update_status()
        assert calls == []
        app._error = "ValueError: shown"
        app._update_status()
        assert calls == ["status"] and "shown" in str(status.render())


async def test_a_change_slower_than_the_wait_arrives_as_a_message(make_app, ready, monkeypatch):
    """If a compute takes longer than FAST_WAIT after all (a kernel compiling), the app
    stops waiting, says "computing", shows the result when it comes, and sends the next change
    to the worker."""
    import seqviz.ui.app as app_module

    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        await _fast_scene(app, pilot, ready)
        monkeypatch.setattr(app_module, "FAST_WAIT", 0.0)  # no compute is that fast
        monkeypatch.setattr(app_module, "FAST_COMPUTE", 0.0)
        rho = 1.25 if app.values.rho != 1.25 else 1.3
        workers = _count_workers(app)
        app.set_param("rho", rho)
        await ready(app, pilot)
        assert app.result.values.rho == rho == app.values.rho
        assert app._shown_generation == app._generation
        assert "computing" not in str(app.query_one("#status").render())
        assert workers == []
        assert app.scene.name not in app._fast  # the next change goes to the worker
        app.set_param("rho", 1.35)
        await ready(app, pilot)
        assert app.result.values.rho == 1.35
        assert len(workers) == 1


async def test_vanishing_readout_is_text_lines_unless_its_table_does_not_fit(make_app, ready):
    """The readout is handed Text lines (each unchanged line's strips kept, new ones drawn
    without rich's pipeline); too narrow for the table, it gets rich's shrinking table."""
    from rich.console import Group
    from rich.text import Text

    app = make_app("vanishing", {"rho": 3.0, "nonlinearity": "linear", "steps": 1000})
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        assert app.result.overflow is not None  # the overflow line comes first
        readout = app.query_one("#readout")
        width = readout.size.width
        lines = readout._builder(width)
        assert isinstance(lines, list) and all(isinstance(t, Text) for t in lines)
        assert lines[0].plain.startswith("overflow at step")
        assert len(lines) == 1 + 1 + len(app.result.readout_steps) + 1  # overflow, header, rows
        assert "rho 1.2" in lines[1].plain  # the lesson's columns
        drawn = [strip.text for strip in readout._lines(width)]
        assert drawn == [strip.text for strip in readout._draw(
            Group(*lines), app.console_options.update(width=width, height=None),
            readout.visual_style.rich_style, width)]  # fmt: skip
        assert isinstance(readout._builder(12), Group)  # even one column does not fit in 12


async def test_a_parameter_row_shown_again_is_not_drawn_again(make_app, ready):
    """A row's line is kept per value, state and focus: toggling a parameter back draws
    nothing new (a first value of the same shape is respelled, tests/test_respelled_lines.py),
    and a new focus state is drawn by Textual."""
    from textual.geometry import Region
    from textual.widget import Widget

    from seqviz.ui.compat_textual import paint_now

    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        row = app.query_one("#param-rho")
        drawn: list = []  # Textual's own draws of the row's content

        def counted() -> None:
            drawn.append(row.value)
            Widget._render_content(row)

        row._render_content = counted  # type: ignore[method-assign]
        crop = Region(0, 0, row.size.width, 1)
        lines = {}
        for rho in (1.05, 1.1, 1.05, 1.1):
            app.set_param("rho", rho)
            await ready(app, pilot)
            await paint_now(app)
            lines.setdefault(rho, []).append(row.render_lines(crop)[0].text)
        # at most the first new value is drawn; the next one of its shape is respelled from
        # it, and the second visit of each is kept
        assert drawn in ([], [1.05]), drawn
        first = len(drawn)
        assert all(len(set(texts)) == 1 and f"{rho:g}" in texts[0] for rho, texts in lines.items())
        row.focus() if not row.has_focus else app.query_one("#param-hidden").focus()
        await paint_now(app)
        assert len(drawn) == first + 1  # a new focus state is drawn
