"""The inside scene's prediction readout: its lines drawn without rich's wrapping equal rich's
rendering, and a new result or theme never shows the old lines (issue 16: first play)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Group
from rich.text import Text
from widget_host import Host

from seqviz.ui.views.inside import InsideView
from seqviz.ui.widgets.readout import Readout, wrapped_lines

WORDS = st.text(alphabet="ab P(=)'.:-0123456789日本🙂", max_size=70)
STYLES = st.sampled_from(["", "bold", "dim", "red on blue", "italic #ff8800"])


@st.composite
def texts(draw: st.DrawFn) -> Text:
    text = Text(draw(WORDS), style=draw(STYLES))
    for _ in range(draw(st.integers(0, 3))):  # spans, possibly overlapping or empty
        a = draw(st.integers(0, len(text.plain)))
        text.stylize(draw(STYLES.filter(bool)), a, draw(st.integers(a, len(text.plain))))
    return text


def _rich(readout: Readout, text: Text, width: int) -> list:
    app = readout.app
    options = app.console_options.update(highlight=False, width=width, height=None)
    return readout._draw(Group(text), options, readout.visual_style.rich_style, width)


async def test_a_one_line_text_is_drawn_as_rich_draws_it() -> None:
    readout = Readout()
    async with Host(readout).run_test(size=(70, 6)) as pilot:
        await pilot.pause()
        base = readout.visual_style.rich_style
        checked: list[bool] = []

        @settings(max_examples=300, deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
        @given(text=texts(), width=st.integers(10, 60))
        def same(text: Text, width: int) -> None:
            options = pilot.app.console_options.update(highlight=False, width=width, height=None)
            fast = readout._text_strips(text, options, base, width)
            checked.append(fast is not None)
            if fast is not None:
                assert fast == _rich(readout, text, width), (text, text.spans, width)

        same()
        assert sum(checked) > 250  # nearly all took the fast path, wrapped lines included
        options = pilot.app.console_options.update(highlight=False, width=40, height=None)
        wrapped = readout._text_strips(Text("word " * 20), options, base, 40)
        assert wrapped is not None and len(wrapped) == 3
        assert readout._text_strips(Text("a\nb"), options, base, 40) is None  # left to rich


async def test_new_lines_and_a_new_theme_are_drawn_anew() -> None:
    readout = Readout()
    lines = [Text("after 'keys' (t=2): P(are)=0.812", style="bold"), Text("")]
    async with Host(readout).run_test(size=(70, 6)) as pilot:
        readout.set_builder(lambda width: list(lines), key=lambda: 0)  # the same key throughout
        await pilot.pause()
        width = readout.size.width

        def shown() -> list:
            return [readout.render_line(y) for y in range(len(lines))]

        assert shown() == [_rich(readout, t, width)[0] for t in lines]
        # a new builder (a new result) at the same key shows its lines, not the kept ones
        lines = [Text("after 'key' (t=2): P(is)=0.774"), Text("rank 1", style="dim")]
        readout.set_builder(lambda width: list(lines), key=lambda: 0)
        await pilot.pause()
        assert shown() == [_rich(readout, t, width)[0] for t in lines]
        # a new theme (another base style): the unchanged lines are drawn in its colours
        before = shown()
        pilot.app.theme = "textual-light" if pilot.app.theme != "textual-light" else "nord"
        await pilot.pause()
        assert shown() != before
        assert shown() == [_rich(readout, t, width)[0] for t in lines]


async def test_the_prediction_readout_equals_rich_over_a_play(make_app, ready) -> None:
    """Every frame's prediction readout, drawn as text lines, equals rich's rendering of the
    frame's lines as one Group padded to the readout's steady height (how it was drawn)."""
    app = make_app("inside")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        view, readout = app.query_one(InsideView), app.query_one("#pred-readout", Readout)
        width = readout.size.width
        options = app.console_options.update(highlight=False, width=width, height=None)
        base = readout.visual_style.rich_style
        heights = set()
        for frame in range(view.result.T + 1):
            view.show_frame(frame)
            await pilot.pause()
            lines = view._pred_lines(min(frame, view.result.T) - 1)
            shown = [readout.render_line(y) for y in range(readout.size.height)]
            blank = len(shown) - wrapped_lines(lines, width)
            assert blank >= 0
            group = Group(*lines, *(Text("") for _ in range(blank)))
            assert shown == readout._draw(group, options, base, width), frame
            heights.add(len(shown))
        assert heights == {view._pred_height[width]}  # one height over the whole play
