"""The Textual and plotext internals seqviz touches still have the shape it relies on.

A failure here after upgrading a library means: look at seqviz/ui/compat_textual.py or
seqviz/ui/compat_plotext.py, the only places that touch those internals."""

from __future__ import annotations

import importlib
import inspect

import pytest
from textual.geometry import Region
from textual.widget import Widget

from seqviz.ui import compat_plotext, compat_textual


def _resolve(owner: str, attribute: str):
    module_name, _, cls = owner.rpartition(".")
    try:
        obj = getattr(importlib.import_module(module_name), cls)
    except (ImportError, AttributeError):
        obj = importlib.import_module(owner)  # the owner is a module
    for part in attribute.split("."):
        obj = getattr(obj, part)
    return obj


# _background_screens is a property of a running app: checked in the running-app test below
CALLABLES = [
    (owner, attribute)
    for owner, attribute in (*compat_textual.INTERNALS, *compat_plotext.INTERNALS)
    if attribute != "_background_screens"
]


@pytest.mark.parametrize(("owner", "attribute"), CALLABLES)
def test_every_internal_still_exists(owner, attribute):
    assert callable(_resolve(owner, attribute)), (owner, attribute)


def test_the_styles_cache_is_an_lru_cache_that_clears():
    from textual._styles_cache import StylesCache

    info = StylesCache.get_inner_outer.cache_info()
    assert info.maxsize > 0  # an lru_cache: the reason removed widgets' lines stayed alive
    assert compat_textual.clear_styles_cache() is True
    assert StylesCache.get_inner_outer.cache_info().currsize == 0


def test_palette_overrides_match_textuals_handlers():
    from textual.command import CommandPalette

    safe = compat_textual.SafeCommandPalette
    for name in (
        "_on_mount",
        "_watch__list_visible",
        "_watch__show_busy",
        "_start_no_matches_countdown",
    ):
        theirs = getattr(CommandPalette, name)
        ours = getattr(safe, name)
        assert ours is not theirs
        assert inspect.iscoroutinefunction(ours) == inspect.iscoroutinefunction(theirs), name
        assert len(inspect.signature(ours).parameters) == len(
            inspect.signature(theirs).parameters
        ), name


def test_compositor_render_update_takes_full_and_screen_stack():
    from textual._compositor import Compositor

    params = inspect.signature(Compositor.render_update).parameters
    assert {"full", "screen_stack"} <= set(params)


async def test_render_screen_and_paint_now_on_a_running_app():
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Tiny(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("hello compat")

    app = Tiny()
    async with app.run_test(size=(30, 4)) as pilot:
        assert isinstance(app._background_screens, list)
        # the attributes (not callables) that compat_textual reads on live objects
        assert app._message_queue.empty() in (True, False) and app._batch_count == 0
        compositor = app.screen._compositor
        assert isinstance(compositor.visible_widgets, dict)
        assert isinstance(compositor._dirty_regions, set)
        await compat_textual.paint_now(app, pilot)
        from io import StringIO

        from rich.console import Console

        console = Console(width=30, height=4, file=StringIO(), record=True)
        console.print(compat_textual.render_screen(app))
        assert "hello compat" in console.export_text()


def test_plotext_grid_has_the_plot_in_it():
    import plotext

    plt = plotext._figure._figure_class()
    plt.plot([1, 2, 3, 4], [1, 4, 9, 16])
    compat_plotext.set_size(plt, 40, 12)
    grid = compat_plotext.build_grid(plt)
    assert len(grid.markers) == 12 and all(len(row) == 40 for row in grid.markers)
    assert all(len(k) == 40 and len(k[0]) == 3 for k in grid.keys)
    start, width = grid.canvas
    assert 0 <= start < 40 and 0 < width <= 40 - start
    assert any(ch.strip() for row in grid.markers for ch in row[start : start + width])
    assert isinstance(compat_plotext.colors_to_ansi(*grid.keys[0][0]), str)


def test_textual_plotext_theme_mapping():
    from textual_plotext import PlotextPlot

    name = compat_plotext.theme_name(PlotextPlot(), "textual-dark")
    assert isinstance(name, str) and name


async def test_the_no_matches_timer_is_guarded():
    """The palette's no-matches countdown is a Timer whose callback we wrap; on a palette without
    its list the wrapped callback does nothing instead of raising NoMatches."""
    from textual.app import App
    from textual.timer import Timer

    app = App()
    async with app.run_test(size=(60, 10)) as pilot:
        palette = compat_textual.SafeCommandPalette()
        app.push_screen(palette)
        await pilot.pause()
        palette._start_no_matches_countdown("zzz")
        timer = palette._no_matches_timer
        assert isinstance(timer, Timer) and callable(timer._callback)
        assert timer._callback.__name__ == "guarded"
        await palette.query_one("CommandList").remove()
        timer._callback()  # no list: nothing happens, nothing raises


def test_line_bands_merge_overlapping_and_touching_regions():
    from textual.geometry import Region

    regions = [Region(0, 5, 3, 2), Region(10, 0, 1, 2), Region(4, 6, 9, 3), Region(0, 12, 2, 1)]
    assert compat_textual._line_bands(regions) == [(0, 2), (5, 9), (12, 13)]


async def test_a_region_screen_sends_the_same_cells_as_textuals_own():
    """Two apps, one on Textual's compositor and one on RegionCompositor, change the same two
    far-apart widgets; what each sends to its terminal leaves the same picture, and the region
    compositor rendered only the widgets it had to."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    rendered: list[str] = []

    class Spy(Static):
        def render_lines(self, crop):
            rendered.append(self.id or "")
            return super().render_lines(crop)

    class Three(App[None]):
        region = False

        def get_default_screen(self):
            if self.region:
                return compat_textual.RegionScreen(id="_default")
            return super().get_default_screen()

        def compose(self) -> ComposeResult:
            yield Spy("top", id="top")
            yield Spy("middle " * 3, id="middle")
            yield Spy("bottom", id="bottom")

    pictures = []
    for region in (False, True):
        app = Three()
        app.region = region
        async with app.run_test(size=(30, 3)) as pilot:
            await compat_textual.paint_now(app, pilot)
            mirror = compat_textual.ScreenMirror.of_strips(compat_textual.full_render(app), 30)
            compat_textual.capture_updates(app, mirror.apply)
            rendered.clear()
            app.query_one("#top", Static).update("TOP!", layout=False)
            app.query_one("#bottom", Static).update("BOTTOM", layout=False)
            await compat_textual.paint_now(app, pilot)
            pictures.append((mirror.text(), sorted(set(rendered))))
    (textual_text, textual_rendered), (ours_text, ours_rendered) = pictures
    assert ours_text == textual_text and "TOP!" in ours_text and "BOTTOM" in ours_text
    assert "middle" in textual_rendered  # inside the bounding box of the two changes
    assert ours_rendered == ["bottom", "top"]


def test_a_strip_placed_whole_is_freed_without_the_collector():
    """Textual cached ``[self]`` in a strip's divide cache: every strip the compositor placed
    whole referred to itself, and only a full collection freed it (13,000 objects a change in
    the inside scene). The fix keeps the strip acyclic and every other division as before."""
    import gc

    from rich.segment import Segment
    from textual.strip import Strip

    compat_textual.install_strip_fix()
    strip = Strip([Segment("abc"), Segment("defg")])
    assert strip.divide([7]) == [strip]
    assert strip.divide([9, 7]) == [strip]  # cuts past the end are dropped, as Textual does
    assert [s.text for s in strip.divide([2, 7])] == ["ab", "cdefg"]
    assert [s.text for s in strip.divide([2, 7])] == ["ab", "cdefg"]  # from its cache
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(50):
            Strip([Segment("x" * 5)]).divide([5])
        gc.collect()
        cyclic = sum(isinstance(o, Strip) for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert cyclic == 0


async def test_static_height_is_the_height_a_layout_gives_a_static():
    from textual.containers import Vertical
    from textual.widgets import Static
    from widget_host import Host

    text = "[b]bold[/b] words that wrap " * 3
    static = Static(text)
    assert hasattr(static, "_render_markup")  # static_height reads it
    async with Host(Vertical(static)).run_test(size=(20, 12)) as pilot:
        await pilot.pause()
        width = static.content_size.width
        assert static.size.height == compat_textual.static_height(static, text, width) > 1
        assert compat_textual.static_height(static, "[b]ab[/b]" * 4, width) == 1  # markup read
        assert compat_textual.static_height(static, text, 0) == 0


# --- what a first-play frame no longer makes (issue 16, gates) -----------------------------------
def test_a_strip_makes_textuals_caches_only_when_one_is_used():
    """Strips make their seven FIFOCaches lazily: the same caches, of Textual's sizes, holding
    what Textual's would; a strip that is only drawn makes none."""
    import gc

    from rich.segment import Segment
    from rich.style import Style
    from textual.cache import FIFOCache
    from textual.strip import Strip

    compat_textual.install_strip_fix()
    assert set(compat_textual.STRIP_CACHES) <= set(Strip.__slots__)
    strip = Strip([Segment("abc", Style(bold=True)), Segment("defg")])
    for name in compat_textual.STRIP_CACHES:  # none made yet
        with pytest.raises(AttributeError):
            object.__getattribute__(strip, name)
    assert strip.crop(1, 5) is strip.crop(1, 5)  # cached, as Textual caches it
    assert strip.crop(1, 5).text == "bcde"
    assert isinstance(strip._crop_cache, FIFOCache) and strip._crop_cache._maxsize == 16
    red = Style(color="red")
    assert strip.apply_style(red) is strip.apply_style(red)
    assert [s.text for s in strip.divide([3, 7])] == ["abc", "defg"]
    assert strip.divide([3, 7]) is strip.divide([3, 7])
    with pytest.raises(AttributeError):
        strip.no_such_attribute  # noqa: B018
    gc.collect()
    before = sum(isinstance(o, FIFOCache) for o in gc.get_objects())
    kept = [Strip([Segment("x" * 5)], 5) for _ in range(100)]
    after = sum(isinstance(o, FIFOCache) for o in gc.get_objects())
    assert len(kept) == 100 and after - before < 10  # Textual made 700


def test_the_compositors_region_tests_agree_with_textuals():
    """RegionCompositor tests regions without Region's lru_caches; same answers."""
    import random

    from textual.geometry import Region

    rng = random.Random(16)
    for _ in range(3000):
        a = Region(rng.randint(0, 20), rng.randint(0, 20), rng.randint(0, 12), rng.randint(0, 12))
        b = Region(rng.randint(0, 20), rng.randint(0, 20), rng.randint(0, 12), rng.randint(0, 12))
        assert compat_textual._overlaps(a, b) == a.overlaps(b), (a, b)
        assert compat_textual._contains(a, b) == a.contains_region(b), (a, b)


def test_a_cursor_move_is_sent_as_rich_writes_it():
    from rich.control import Control

    for x, y in ((0, 0), (5, 3), (159, 49), (3, 200)):
        assert compat_textual._move_to(x, y) == Control.move_to(x, y).segment.text
        assert compat_textual._move_to(x, y) == Control.move_to(x, y).segment.text  # kept


async def test_a_direct_repaint_reaches_the_screen_in_the_next_update():
    """``refresh_lines`` marks the lines and tells the screen at once: the very next screen
    update sends them, with no message hop through the widget. A widget not shown, or one
    waiting for a layout, takes Textual's own refresh."""
    from rich.segment import Segment
    from textual.app import App, ComposeResult
    from textual.geometry import Region
    from textual.strip import Strip
    from textual.widget import Widget

    class Lines(Widget):
        DEFAULT_CSS = "Lines { height: 3; }"
        text = "before"

        def render_line(self, y: int) -> Strip:
            return Strip([Segment(f"{self.text} {y}")]).extend_cell_length(self.size.width)

    class Two(App[None]):
        def get_default_screen(self):
            return compat_textual.RegionScreen(id="_default")

        def compose(self) -> ComposeResult:
            yield Lines(id="a")
            yield Lines(id="b")

    app = Two()
    async with app.run_test(size=(20, 6)) as pilot:
        await compat_textual.paint_now(app, pilot)
        mirror = compat_textual.ScreenMirror.of_strips(compat_textual.full_render(app), 20)
        compat_textual.capture_updates(app, mirror.apply)
        a, b = app.query_one("#a", Lines), app.query_one("#b", Lines)
        a.text = "after"
        refreshed = []
        a.refresh = lambda *r, **k: refreshed.append(r)  # type: ignore[method-assign]
        compat_textual.refresh_lines(a, Region(0, 1, 20, 1))
        assert refreshed == []  # not through Textual's refresh
        app.screen._on_timer_update()  # the next screen update, nothing else run before it
        shown = [line.rstrip() for line in mirror.text().splitlines()]
        assert shown[:3] == ["before 0", "after 1", "before 2"]
        b.display = False
        await compat_textual.paint_now(app, pilot)
        assert not compat_textual.repaint_directly(b)  # hidden: Textual decides
        b.refresh(layout=True)
        b.display = True
        assert not compat_textual.repaint_directly(b)  # a layout is pending


async def test_the_direct_paths_colours_follow_the_ancestors_styles():
    """DirectLines keeps its background colours until a style of the widget or of an ancestor
    changes: an ancestor's new background reaches the next paint."""
    from textual.app import App, ComposeResult
    from textual.containers import Vertical

    from seqviz.ui.widgets.heatmap import Heatmap

    class Nest(App[None]):
        def compose(self) -> ComposeResult:
            with Vertical(id="outer"):
                with Vertical(id="inner"):
                    yield Heatmap(id="map")

    app = Nest()
    async with app.run_test(size=(30, 8)) as pilot:
        heatmap = app.query_one(Heatmap)
        await pilot.pause()
        assert heatmap._direct_background()[:2] == heatmap.background_colors
        outer = app.query_one("#outer")
        outer.styles.background = "red"
        await pilot.pause()
        assert heatmap._direct_background()[:2] == heatmap.background_colors
        assert heatmap._direct_background()[1].rgb == (255, 0, 0)
        app.query_one("#inner").styles.background = "blue 50%"
        await pilot.pause()
        assert heatmap._direct_background()[:2] == heatmap.background_colors
        assert heatmap._direct_background()[1].rgb == (127, 0, 127)  # blue half over red
        heatmap.styles.padding = (0, 1)
        await pilot.pause()
        assert heatmap._direct_background()[2:] == (1, 1)  # padded left and right as Textual does
        heatmap.styles.padding = (1, 0)
        await pilot.pause()
        assert heatmap._direct_background() is None  # Textual's pass draws lines of padding


async def test_a_padded_direct_line_is_what_textuals_pass_draws():
    """A widget padded left and right (the status line: padding 0 1, ellipsis, no wrap) takes
    the direct path, and its lines are Textual's own, cell for cell and style for style, for
    texts that fit, overflow into an ellipsis, hold wide characters or styles, whole and
    cropped, in two themes and after a padding change."""
    from rich.text import Text
    from textual.app import App, ComposeResult

    from seqviz.ui.status import StatusLine

    class Bar(App[None]):
        CSS = """
        StatusLine { height: 1; width: 1fr; padding: 0 1; background: $panel;
                     text-overflow: ellipsis; text-wrap: nowrap; }
        """

        def compose(self) -> ComposeResult:
            yield StatusLine(id="status")

    texts = [
        Text("read 3/12: 'abc'"),
        Text("read 3/12  │  ") + Text("gates: the forget gate (0..1)", style="dim"),
        Text("x" * 80, style="bold"),
        Text("日本語のテキスト " * 6) + Text("overflow at step 3", style="bold #ff2bd6"),
        Text(""),
    ]
    app = Bar()
    async with app.run_test(size=(40, 3)) as pilot:
        status = app.query_one(StatusLine)
        for padding in ((0, 1), (0, 3, 0, 0)):
            status.styles.padding = padding
            for theme in ("textual-dark", "textual-light"):
                app.theme = theme
                await compat_textual.paint_now(app, pilot)
                for text in texts:
                    status.update(text, layout=False)
                    await compat_textual.paint_now(app, pilot)
                    assert status._direct_background() is not None
                    for crop in (status.region.reset_offset, Region(5, 0, 20, 1)):
                        status.forget_kept()
                        direct = status.render_lines(crop)
                        status._styles_cache.clear()
                        assert direct == Widget.render_lines(status, crop), (padding, theme, text)


async def test_a_lazily_set_static_draws_what_update_draws():
    """``set_content_lazily`` sets what Static.update sets, and the Static makes the same
    visual when it is drawn: the status line (StatusLine) shows the same text either way."""
    from rich.text import Text
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Two(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("", id="a")
            yield Static("", id="b")

    app = Two()
    async with app.run_test(size=(40, 4)) as pilot:
        a, b = app.query_one("#a", Static), app.query_one("#b", Static)
        text = Text("read 3/9  │  ") + Text("overflow", style="bold red")
        a.update(text)
        assert compat_textual.set_content_lazily(b, text)
        assert b._Static__visual is None  # made only when drawn
        b.refresh()
        await pilot.pause()
        assert b.content is text and b.visual == a.visual
        assert [s.text for s in b.render_lines(b.region.reset_offset)] == [
            s.text for s in a.render_lines(a.region.reset_offset)
        ]
        assert not compat_textual.set_content_lazily(object(), text)  # not a Static: no-op


async def test_content_size_and_settles_node_list_follow_the_screen():
    """``content_size`` is ``size`` once laid out (padding and border taken off); the list of
    nodes ``settle`` waits on is walked again when a widget is mounted, so its messages are
    waited for in the next paint, and it holds no node alive."""
    import weakref

    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("x", id="a")

    app = One()
    async with app.run_test(size=(30, 6)) as pilot:
        a = app.query_one("#a", Static)
        a.styles.padding = (1, 2)
        a.styles.border = ("solid", "red")
        await compat_textual.paint_now(app, pilot)
        assert compat_textual.content_size(a) == a.size and a.size.width == 30 - 6
        handled = []
        late = Static("y", id="late")
        await app.mount(late)
        late.call_later(lambda: handled.append(1))
        await compat_textual.paint_now(app, pilot)
        assert handled == [1]
        assert any(ref() is late for ref in compat_textual._screen_nodes(app, app.screen))
        # weak references only: the list keeps no removed widget alive
        assert all(
            isinstance(ref, weakref.ref) for ref in compat_textual._screen_nodes(app, app.screen)
        )


def test_a_strip_is_encoded_as_textual_encodes_it():
    """render_strip (segments looked up, not rendered each time) writes exactly the bytes
    Strip.render writes: plain, styled, bold, background-only, a control code, a link (whose
    id is its style's own: each link rendered anew), for two color systems."""
    from io import StringIO

    from rich.console import Console
    from rich.control import Control
    from rich.segment import Segment
    from rich.style import Style
    from textual.strip import Strip

    assert "_render_cache" in Strip.__slots__ and "_segments" in Strip.__slots__
    link = Style(color="red", link="https://example.org")
    other_link = Style(color="red", link="https://example.org")  # equal, another id
    segments = [Segment("plain"), Segment("▀▀", Style(color="#ff0000", bgcolor="#0000ff")),
                Segment("b", Style(bold=True, italic=True)), Segment(" ", Style(bgcolor="red")),
                Control.move_to(3, 4).segment, Segment("see", link), Segment("also", other_link),
                Segment("", Style(color="green")),
                Segment("é漢", Style(underline=True))]  # fmt: skip
    for system in ("truecolor", "256"):
        console = Console(file=StringIO(), color_system=system, force_terminal=True)
        for _ in range(2):  # the second time from the looked-up texts
            for cut in (segments, segments[3:], segments[::-1]):
                ours = compat_textual.render_strip(Strip(cut), console)
                assert ours == Strip(cut).render(console)
        strip = Strip(segments)
        assert compat_textual.render_strip(strip, console) is strip.render(console)  # kept there
