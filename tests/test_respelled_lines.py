"""A one-line widget showing a new text of a known shape (a parameter's row, a legend naming a
value walked with +) respells a line it drew, and that line is what Textual draws for it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from seqviz.ui.widgets.controls import ParamRow
from seqviz.ui.widgets.kept import respelled, text_shape
from seqviz.ui.widgets.series import PlotLegend


def _segments(strip: Strip) -> list[tuple[str, Style | None]]:
    return [(text, style) for text, style, _ in strip]


def _cells(strip: Strip) -> list[tuple[str, Style | None]]:
    return [(ch, style) for text, style, _ in strip for ch in text]


def _line(widget: Widget) -> Strip:
    width = widget.outer_size.width
    return widget.render_lines(Region(0, 0, width, 1))[0]


def _drawn_by_textual(widget: Widget) -> Strip:
    widget.forget_kept()  # type: ignore[attr-defined]
    widget._styles_cache.clear()
    widget._dirty_regions.add(widget.size.region)  # its content drawn again, not Textual's cache
    return _line(widget)


@contextmanager
def _textual_draws() -> Iterator[list[Widget]]:
    """The widgets whose content Textual draws meanwhile (``Widget._render_content``)."""
    drawn: list[Widget] = []
    original = Widget._render_content

    def counted(widget: Widget) -> None:
        drawn.append(widget)
        original(widget)

    Widget._render_content = counted  # type: ignore[method-assign]
    try:
        yield drawn
    finally:
        Widget._render_content = original  # type: ignore[method-assign]


def _is_textuals(widget: Widget, line: Strip, drawn: list[Widget]) -> bool:
    """Whether ``line`` is, cell for cell, what Textual draws for the widget now."""
    textual = _drawn_by_textual(widget)
    assert widget in drawn  # drawn by Textual, not kept
    return _cells(line) == _cells(textual) and line.cell_length == textual.cell_length


async def test_a_walked_value_and_legend_are_respelled_as_textual_draws_them(make_app, ready):
    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        row = app.query_one("#param-rho", ParamRow)
        legend = app.query_one("#grad-legend", PlotLegend)
        with _textual_draws() as drawn:
            for rho in (1.05, 1.1, 1.15, 0.35, 2.5, 1.15):
                app.set_param("rho", rho)
                await ready(app, pilot)
                drawn.clear()
                shown = {w: _line(w) for w in (row, legend)}
                assert drawn == [], rho  # respelled (or kept), not drawn by Textual
                assert row.spec.format(rho) in shown[row].text
                assert f"rho={rho:.2f}" in shown[legend].text
                for widget, line in shown.items():
                    assert _is_textuals(widget, line, drawn), (rho, widget)


async def test_a_new_frame_label_respells_the_status_line_as_textual_draws_it(make_app, ready):
    """The status line's label at each frame (as at each new Training result: the update count)
    is respelled from the line drawn for the first frame, and is what Textual draws for it."""
    from seqviz.ui.status import StatusLine

    app = make_app("vanishing")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        status = app.query_one("#status", StatusLine)
        app.seek(2)
        await ready(app, pilot)
        _line(status)  # the label's shape drawn once
        with _textual_draws() as drawn:
            for frame in (3, 4, 7, 5):
                drawn.clear()
                app.seek(frame)
                await ready(app, pilot)  # painted
                line = _line(status)
                assert status not in drawn, frame  # respelled, not drawn by Textual
                assert f"read {frame}/" in line.text
                assert _is_textuals(status, line, drawn), frame


def test_a_shape_stands_for_letters_digits_signs_and_points_only() -> None:
    bold = Style(bold=True)
    a = Text("rho 1.05 ◂x▸")
    a.stylize(bold, 4, 8)
    b = Text("rho 2.50 ◂y▸")
    b.stylize(bold, 4, 8)
    assert text_shape(a) == text_shape(b)
    assert text_shape(Text("rho 1.05")) != text_shape(Text("rho 1.5 "))  # a space moved
    assert text_shape(Text("rho 1.05")) != text_shape(Text("rho 1,05"))  # a comma is kept
    assert text_shape(a) != text_shape(Text("rho 2.50 ◂y▸"))  # the span too
    assert text_shape(Text("two\nlines")) is None


def test_a_line_that_does_not_show_the_text_whole_once_is_not_respelled() -> None:
    style = Style(color="red")
    strip = Strip([Segment(" rho "), Segment("1.05", style), Segment(" ")])
    out = respelled(strip, "rho 1.05", "rho 2.50")
    assert out is not None and _segments(out) == [(" rho ", None), ("2.50", style), (" ", None)]
    assert respelled(Strip([Segment("1.0 1.0")]), "1.0", "2.0") is None  # twice: which one?
    assert respelled(Strip([Segment("rho 1.")]), "rho 1.05", "rho 2.50") is None  # cut
    assert respelled(Strip([Segment("宽 1.05")]), "1.05", "2.50") is None  # a wide character


async def test_a_model_switch_respells_the_gate_legends_as_textual_draws_them(make_app, ready):
    """An LSTM's gate legends after a GRU's: the same colours under another gate's name are
    respelled from the lines drawn for the GRU, and each is what Textual draws for it."""
    from seqviz.ui.widgets.legend import ColorLegend

    app = make_app("gates", {"model": "agreement-gru"})  # no LSTM legend drawn before
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        legends = [app.query_one(f"#legend-{i}", ColorLegend) for i in range(6)]
        gru = [_line(legend).text for legend in legends]  # drawn (and kept) for the GRU
        with _textual_draws() as drawn:
            app.set_param("model", "agreement")
            await ready(app, pilot)  # painted: the legends drawn or respelled meanwhile
            shown = {legend: _line(legend) for legend in legends}
            assert legends[0] not in drawn and legends[1] not in drawn  # r -> i, z -> f
            assert [shown[legend].text for legend in legends[:2]] != gru[:2]
            for legend, line in shown.items():
                assert _is_textuals(legend, line, drawn), legend.id
        assert [shown[legend].text.split()[0] for legend in legends[:2]] == ["i", "f"]
