"""Every touch of Textual's internals, in one place (tests/test_compat.py checks their shape).

Textual is pinned to the tested series (pyproject.toml: >=8.2.4,<8.3), and each use here still
names the internal, why seqviz needs it, and degrades to doing nothing when the internal is gone;
the compat test then fails loudly on a release that moved it.
"""

from __future__ import annotations

import asyncio
import codecs
import functools
import importlib
import os
import sys
import weakref
from collections.abc import Callable
from typing import Any, TypeVar, cast

from rich.cells import cell_len
from rich.color import ColorSystem
from rich.control import Control
from rich.segment import Segment
from textual import events
from textual._compositor import ChopsUpdate, Compositor, CompositorUpdate, LayoutUpdate
from textual._segment_tools import line_pad
from textual._styles_cache import StylesCache
from textual.await_complete import AwaitComplete
from textual.cache import FIFOCache
from textual.command import CommandList, CommandPalette
from textual.filter import ANSIToTruecolor
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static


def clear_styles_cache() -> bool:
    """Let removed widgets' rendered lines go; True if the cache was found and emptied.

    Textual memoises ``StylesCache.get_inner_outer`` in an lru_cache (1024 entries) whose key is
    each widget's StylesCache, so the line caches of up to 1024 removed widgets stay reachable:
    about 55 MB after 30 scene switches here. Emptying it after a view is removed keeps memory
    flat; it refills with the live widgets on the next paint.
    """
    try:
        from textual._styles_cache import StylesCache
    except ImportError:
        return False
    clear = getattr(getattr(StylesCache, "get_inner_outer", None), "cache_clear", None)
    if not callable(clear):
        return False
    clear()
    return True


def being_removed(widget: Any) -> bool:
    """Whether Textual is taking ``widget`` down (``_pruning``/``_closing``: removed, or its
    screen closed as the app shuts down); False if those internals are gone."""
    return bool(getattr(widget, "_pruning", False) or getattr(widget, "_closing", False))


def static_height(widget: Any, content: Any, width: int) -> int:
    """Lines ``content`` would take in the Static ``widget`` at ``width``, measured as Textual's
    layout measures it (whether the text reads markup is the Static's private
    ``_render_markup``; taken as True, Static's default, if it is gone)."""
    from textual.visual import visualize

    if width <= 0:
        return 0
    markup = getattr(widget, "_render_markup", True)
    return int(visualize(widget, content, markup=markup).get_height(widget.styles, width))


def content_size(widget: Any) -> Size:
    """``widget.size`` (its content area) from the size its last layout gave it (``outer_size``)
    less its padding and border: ``size`` finds the widget's screen by walking its ancestors and
    looks it up in the compositor's map, and an animation frame asked that of every widget it
    repaints, several times. The same once laid out; a widget not shown keeps its last size."""
    width, height = widget.outer_size
    top, right, bottom, left = widget.styles.gutter
    return Size(max(0, width - left - right), max(0, height - top - bottom))


def set_content_lazily(static: Any, content: Any) -> bool:
    """What ``Static.update`` sets, but the Visual is made when the static is next drawn (its
    ``visual`` property makes it when it is None), not now: a status line set every frame and
    drawn from its kept lines (StatusLine) makes none. False (nothing done) if Static's private
    attributes are gone; the caller then updates it as Textual does. No refresh here."""
    attrs = getattr(static, "__dict__", {})
    if "_Static__content" not in attrs or "_Static__visual" not in attrs:
        return False
    attrs["_Static__content"] = content
    attrs["_Static__visual"] = None
    return True


def set_title_line(widget: Any, title: Any) -> None:
    """Set ``widget.border_title`` and repaint only the border's top line, where it is drawn.

    Textual's setter repaints the whole widget: for a panel, every line of it, and the compositor
    then takes every cell of it again. Its own refresh is held off (an instance attribute shadows
    the method) while its setter turns the title into Content exactly as it does.
    """
    setter = Widget.__dict__["border_title"]
    if not widget.is_mounted or not widget.outer_size:
        setter.__set__(widget, title)
        return
    quietly(widget, lambda: setter.__set__(widget, title))
    offset = widget.content_offset  # regions are relative to the content, the title is above it
    refresh_lines(widget, Region(-offset.x, -offset.y, widget.outer_size.width, 1))


def quietly(widget: Any, change: Callable[[], Any]) -> None:
    """Run ``change()`` (a Textual setter or update that refreshes the widget) with the widget's
    refresh held off (an instance attribute shadows the method): the caller repaints what
    changed, e.g. one line, or directly (``refresh_lines``)."""
    own = widget.__dict__.get("refresh")  # a refresh of its own (e.g. a test's spy) stays
    widget.refresh = lambda *args, **kwargs: widget
    try:
        change()
    finally:
        if own is None:
            del widget.refresh
        else:
            widget.refresh = own


def update_static(widget: Any, content: Any) -> None:
    """``Static.update(content, layout=False)``, its repaint handed to the screen directly
    (``refresh_lines``): a view that changes a dozen captions at once woke a dozen message
    loops for it."""
    quietly(widget, lambda: Static.update(widget, content, layout=False))
    refresh_lines(widget)


def render_screen(app: Any) -> Any:
    """The whole screen as one Rich renderable: the render App.export_screenshot uses (the
    screen's compositor), so a text export shows exactly what the SVG would."""
    return app.screen._compositor.render_update(
        full=True, screen_stack=getattr(app, "_background_screens", [])
    )


async def settle(app: Any, rounds: int = 8) -> None:
    """Wait until the app has handled what is queued on it now, and its screen and every widget
    on it have handled their queued messages (a frame's refreshes reach the screen as a chain
    of messages: a widget's prompt, then the screen's update).

    Like Pilot's wait for the screen, but it only waits on the message pumps that have something
    queued: a live app does not visit its idle widgets each frame, so a frame measured with this
    costs what it costs in the terminal, whatever the number of widgets on the screen. Messages
    that reach the app meanwhile (a worker's next result) are not waited for.
    """
    first = True
    for _ in range(rounds):
        screen = app.screen
        nodes = [app, screen] if first else [screen]
        busy = [n for n in nodes if not n._message_queue.empty()]
        # a queue's deque of messages, read directly: a method call per node and round was
        # most of this wait's cost (two rounds a frame over about ninety widgets)
        busy += [ref() for ref, queued in _screen_queues(app, screen) if queued]
        first = False
        busy = [n for n in busy if n is not None]
        if not busy:
            return
        await _handled(busy)


def _screen_nodes(app: Any, screen: Any) -> list[Any]:
    """Weak references to the screen's nodes below it (``walk_children``)."""
    return [ref for ref, _ in _screen_queues(app, screen)]


def _screen_queues(app: Any, screen: Any) -> list[tuple[Any, Any]]:
    """(weak reference, deque of queued messages) of each of the screen's nodes below it
    (``walk_children``), walked again only when a widget was made or the app's registry of
    mounted nodes changed size: walking about a hundred widgets twice a frame was a tenth of a
    frame of the gates scene, a cost the terminal does not pay. A widget joins a screen by
    being made (its compose) and registered at its mount, so either count moves (a removal
    too: the list holds no removed node's deque for long); a removed node left in the list has
    an empty queue or is closed (not waited for), and the weak reference lets it go. Kept on
    the screen."""
    registry = getattr(app, "_registry", None)
    made = getattr(Widget, "_sort_order", None)
    key = None if registry is None or made is None else (made, len(registry))
    kept = screen.__dict__.get("_seqviz_nodes")
    if key is None or kept is None or kept[0] != key:
        # Textual's Queue keeps its messages in a deque (``values``)
        queues = [(weakref.ref(n), n._message_queue.values) for n in screen.walk_children()]
        if key is None:
            return queues
        kept = screen.__dict__["_seqviz_nodes"] = (key, queues)
    return kept[1]  # type: ignore[no-any-return]


async def _handled(nodes: list[Any]) -> None:
    """Return once each node has handled what was queued on it when this was called."""
    done = asyncio.Event()
    left = 0

    def one_done() -> None:
        nonlocal left
        left -= 1
        if left == 0:
            done.set()

    for node in nodes:
        if node.call_later(one_done):
            left += 1
    if left:
        await done.wait()


async def paint_now(app: Any, pilot: Any | None = None) -> None:
    """Let every widget process its refresh messages, then lay out and render the changed
    regions now (what the screen's update timer does), without Pilot.pause's idle sleeps."""
    await settle(app)
    app.screen._on_timer_update()


def capture_updates(app: Any, sink: Any) -> None:
    """Hand each screen update the compositor makes to ``sink(update)``, in place of the
    terminal. A headless app (tests, the benchmark) renders its updates but Textual then drops
    them without encoding; the benchmark encodes them as a terminal's driver would, and the
    partial-repaint test replays them onto a grid of cells (ScreenMirror)."""

    def display(screen: Any, renderable: Any) -> None:
        if isinstance(renderable, CompositorUpdate) and not app._batch_count:
            sink(renderable)

    app._display = display


class ScreenMirror:
    """What a terminal shows after replaying the app's updates: one (character, style) per cell.

    A full update (``LayoutUpdate``) replaces lines; a partial one (``ChopsUpdate``) writes only
    its spans, exactly as ``SpanChopsUpdate.render_segments`` sends them. So a cell a frame
    forgot to repaint keeps its old content here, as it would on the screen. A character
    written over half of a double-width one blanks its other half, as a terminal does.
    """

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells: list[list[tuple[str, Any]]] = [[(" ", None)] * width for _ in range(height)]

    def _write(self, x: int, y: int, strip: Any, stop: int | None = None) -> None:
        row = self.cells[y]
        stop = self.width if stop is None else min(stop, self.width)
        for segment in strip:
            if segment.control:
                continue
            style = segment.style
            for ch in segment.text:
                if x >= stop:
                    return
                width = cell_len(ch)
                if row[x][0] == "" and x > 0:  # over a wide character's right half: a
                    row[x - 1] = (" ", row[x - 1][1])  # terminal blanks its left half too
                row[x] = (ch, style)
                for extra in range(1, width):
                    if x + extra < stop:
                        row[x + extra] = ("", style)
                after = x + max(width, 1)
                if after < self.width and row[after][0] == "":  # the right half of a wide
                    row[after] = (" ", row[after][1])  # character whose left half is gone
                x += width

    def apply(self, update: Any) -> None:
        if isinstance(update, LayoutUpdate):
            for y, line in enumerate(update.strips, update.region.y):
                x = update.region.x
                for strip in line:
                    self._write(x, y, strip)
                    x += strip.cell_length
            return
        if not isinstance(update, ChopsUpdate):
            raise TypeError(f"unexpected screen update {type(update).__name__}")
        for y, x1, x2 in update.spans:
            for end, (x, chop) in zip(update.chop_ends[y], update.chops[y].items(), strict=False):
                if chop is None or x > x2 or end <= x1:
                    continue
                if x < x1 or end > x2:  # cut to the span, as SpanChopsUpdate sends it
                    first, cells = span_cells(chop, max(0, x1 - x), min(end, x2) - x)
                    self._write(x + first, y, cells)
                    continue
                self._write(x, y, chop, end)

    @staticmethod
    def of_strips(strips: list[Any], width: int) -> ScreenMirror:
        """A mirror holding ``strips`` (e.g. a from-scratch render of the whole screen)."""
        mirror = ScreenMirror(width, len(strips))
        for y, strip in enumerate(strips):
            mirror._write(0, y, strip)
        return mirror

    def text(self) -> str:
        return "\n".join("".join(ch for ch, _ in row) for row in self.cells)

    def first_difference(self, other: ScreenMirror) -> str:
        """The first cell where two mirrors differ, as "(x,y): cell != cell"; "" if equal."""
        for y, (row_a, row_b) in enumerate(zip(self.cells, other.cells, strict=True)):
            for x, (cell_a, cell_b) in enumerate(zip(row_a, row_b, strict=True)):
                if cell_a != cell_b:
                    return f"({x},{y}): {cell_a!r} != {cell_b!r}"
        return ""


def full_render(app: Any) -> list[Any]:
    """Every line of the screen rendered from scratch (the compositor's full render)."""
    return list(app.screen._compositor.render_strips())


class SafeCommandPalette(CommandPalette):
    """Textual's command palette, minus the crashes a fast burst of keys found (the
    2,000-random-key test).

    The palette gathers hits in a worker. Closed (Escape) while that worker still gathers, the
    worker's next update toggles the list's visibility on a palette whose list is already gone;
    the NoMatches error fails the worker, and a failed worker ends the app. Without the list
    there is nothing to show, so those updates are skipped. A palette closed before it mounted
    skips its set-up. (Reopening while one closes is handled in SeqvizApp.action_command_palette.)
    Closing twice is a no-op (see dismiss). The other overridden methods are Textual's private
    handlers.
    """

    _dismiss_started = False

    def dismiss(self, result: Any = None) -> AwaitComplete:
        # Escape, Enter on a command and a click outside each dismiss; two in one burst (or one
        # while another screen is above the palette) would pop the screen below, or call the
        # result callback again: InvalidStateError ended the app under load (10,000-key test).
        if self._dismiss_started or self.app.screen is not self:
            return AwaitComplete()
        self._dismiss_started = True
        return super().dismiss(result)

    def _on_mount(self, event: events.Mount) -> None:
        # Closed again before it was mounted (ctrl+p and Escape or Enter in one burst): there is
        # no calling screen above which to set up, so skip Textual's set-up (an IndexError).
        if self not in self.app.screen_stack[1:]:
            event.prevent_default()

    def _watch__list_visible(self) -> None:
        if self.query(CommandList):
            super()._watch__list_visible()

    async def _watch__show_busy(self) -> None:
        if self.query(CommandList):
            await super()._watch__show_busy()

    def _start_no_matches_countdown(self, search_value: str) -> None:
        # The "No matches found" timer fires half a second later and looks the list up; on a
        # palette closed meanwhile it is gone (NoMatches ended the app under load).
        super()._start_no_matches_countdown(search_value)
        timer = getattr(self, "_no_matches_timer", None)
        show = getattr(timer, "_callback", None)
        if timer is None or not callable(show):
            return

        def guarded() -> None:
            if self.query(CommandList):
                show()

        timer._callback = guarded


# the private names seqviz relies on: (owner, attribute)
INTERNALS = (
    ("textual._styles_cache.StylesCache", "get_inner_outer.cache_clear"),
    ("textual.command.CommandPalette", "_on_mount"),
    ("textual.command.CommandPalette", "_watch__list_visible"),
    ("textual.command.CommandPalette", "_watch__show_busy"),
    ("textual.command.CommandPalette", "_start_no_matches_countdown"),
    ("textual.screen.Screen", "_on_timer_update"),
    ("textual.app.App", "_display"),
    ("textual._compositor.Compositor", "render_partial_update"),
    ("textual._compositor.Compositor", "_get_renders"),
    ("textual._compositor.Compositor", "render_strips"),
    ("textual._compositor.Compositor", "render_update"),
    ("textual._compositor.Compositor", "render_full_update"),
    ("textual.app.App", "_background_screens"),
    ("textual._styles_cache.StylesCache", "get_inner_outer"),
    ("textual._styles_cache.StylesCache", "clear"),
    ("textual._styles_cache.StylesCache", "render_line"),
    ("textual._styles_cache.StylesCache", "set_dirty"),
    ("textual.screen.Screen", "_on_screen_resume"),
    ("textual.screen.Screen", "_screen_resized"),
)

# attributes of live objects (not callables), checked on a running app in tests/test_compat.py:
# MessagePump._message_queue, App._batch_count, Screen._compositor, Compositor.visible_widgets,
# Compositor._dirty_regions, ChopsUpdate.chops/spans/chop_ends (SpanChopsUpdate passes them to its
# constructor in that order), LayoutUpdate.strips/region, Widget._styles_cache, Style._link_id/_meta
# (DirectLines; tests/test_frame_cost.py compares it with Textual's own pass); StylesCache's
# render_line arguments (AlikeRowsCache; tests/test_alike_rows.py compares it with Textual's own
# cache); Strip.divide caching
# ``[self]`` (install_strip_fix; test_compat.py); Strip._crop_cache, Strip._render_cache and
# Strip._segments, Style._link (render_strip; test_compat.py) and rich's Console._color_system
# (SpanChopsUpdate keeps a span's sent text per strip; test_gates_frames); Static._render_markup
# (static_height; test_compat.py); ScreenResume.refresh_styles (RegionScreen skips the first
# restyle; tests/test_first_frame.py); Widget.border_title's setter calling self.refresh()
# (set_title_line; test_gates_frames compares a switch with a fresh screen); Static's private
# _Static__content/_Static__visual and its ``visual`` making a None visual (set_content_lazily),
# App._registry and Widget._sort_order (settle), Widget.outer_size (content_size): each checked on a
# running app in test_compat.py.


# --- input that ended the app (issue 10); Textual bugs, worked around here -------------------
def _page_without_layout(original: Any) -> Any:
    """OptionList._move_page, but a page key before the list is laid out does nothing.

    Ctrl+P and at once PgUp/PgDn reached the command palette's option list while it had height
    0 and no line cache yet: ``self._index_to_line[...]`` raised KeyError and ended the app (all
    10 crashes in 10,000 random keys). With nothing drawn there is no page to move by.
    """

    def move_page(self: Any, direction: Any) -> None:
        try:
            original(self, direction)
        except (KeyError, IndexError):
            pass

    move_page._seqviz_safe = True  # type: ignore[attr-defined]
    return move_page


def _replacing_decoder(encoding: str) -> Any:
    """codecs.getincrementaldecoder, but undecodable bytes become U+FFFD instead of raising.

    Textual's input threads decode stdin strictly; a truncated paste (invalid UTF-8) raised
    UnicodeDecodeError in the thread, which panicked the app (exit status 0).
    """
    return functools.partial(codecs.getincrementaldecoder(encoding), errors="replace")


WEB_DRIVER = "textual.drivers.web_driver"


def install_input_fixes() -> None:
    """Apply both workarounds (idempotent); SeqvizApp calls it when its module is imported."""
    from textual.drivers import linux_driver
    from textual.widgets import OptionList

    move_page = getattr(OptionList, "_move_page", None)
    if move_page is not None and not getattr(move_page, "_seqviz_safe", False):
        OptionList._move_page = _page_without_layout(move_page)  # type: ignore[method-assign]
    modules: list[Any] = [linux_driver]
    # The web driver (`seqviz serve`: textual-serve names it in TEXTUAL_DRIVER) is imported
    # only when it is used: importing it costs a terminal launch time for nothing.
    if "web_driver" in os.environ.get("TEXTUAL_DRIVER", "") or WEB_DRIVER in sys.modules:
        modules.append(importlib.import_module(WEB_DRIVER))
    for module in modules:
        if hasattr(module, "getincrementaldecoder"):
            module.getincrementaldecoder = _replacing_decoder  # type: ignore[attr-defined]


# --- strips that the garbage collector had to find (issue 16) ------------------------------------
def _divide_without_cycle(original: Any) -> Any:
    """Strip.divide, but a strip that is one piece is returned as ``[self]`` without caching it.

    Textual caches ``[self]`` in the strip's own divide cache, so every strip the compositor
    places whole (most lines of every frame) refers to itself: refcounting never frees it, only
    a cyclic collection does. In the inside scene's first play that was about 13,000 objects a
    parameter change, which brought a full collection (100-200 ms) every few changes. The
    other results are cached as before.
    """

    def divide(self: Any, cuts: Any) -> Any:
        length = self.cell_length
        kept = [cut for cut in cuts if cut <= length]
        if kept == [length]:
            return [self]
        return original(self, kept)

    divide._seqviz_acyclic = True  # type: ignore[attr-defined]
    return divide


# Strip's seven result caches (attribute -> size), as Textual's Strip.__init__ makes them.
STRIP_CACHES = {"_divide_cache": 4, "_crop_cache": 16, "_style_cache": 16, "_filter_cache": 4,
                "_line_length_cache": 4, "_crop_extend_cache": 4, "_offsets_cache": 4}  # fmt: skip


def _lazy_strip_init(self: Any, segments: Any, cell_length: int | None = None) -> None:
    """Strip.__init__ without its seven caches: each is made when first used (``_lazy_cache``).

    Textual makes seven FIFOCaches for every strip. Most strips are used once (a line of a
    frame, a crop, a filtered copy) and never touch them: in a first-play frame of the gates
    scene the caches were a third of the objects a frame left for the garbage collector
    (292 of 820 a frame), and making them about a tenth of the frame's time."""
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def _lazy_cache(self: Any, name: str) -> Any:
    """Strip.__getattr__: a cache slot not set yet gets its empty cache now."""
    size = STRIP_CACHES.get(name)
    if size is None:
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
    cache: FIFOCache[Any, Any] = FIFOCache(size)
    setattr(self, name, cache)
    return cache


def install_strip_fix() -> None:
    """Apply ``_divide_without_cycle`` and the lazy caches (idempotent); SeqvizApp's module
    calls it on import."""
    from textual.strip import Strip

    if not getattr(Strip.divide, "_seqviz_acyclic", False):
        Strip.divide = _divide_without_cycle(Strip.divide)  # type: ignore[method-assign]
    if Strip.__init__ is not _lazy_strip_init and set(STRIP_CACHES) <= set(Strip.__slots__):
        Strip.__init__ = _lazy_strip_init  # type: ignore[method-assign]
        Strip.__getattr__ = _lazy_cache  # type: ignore[attr-defined]


# the private names seqviz relies on here: (owner, attribute)
INPUT_INTERNALS = (
    ("textual.widgets._option_list.OptionList", "_move_page"),
    ("textual.drivers.linux_driver", "getincrementaldecoder"),
    ("textual.drivers.web_driver", "getincrementaldecoder"),
)


# --- frames that repaint only what changed (issue 16) ------------------------------------------
def _line_bands(regions: list[Any]) -> list[tuple[int, int]]:
    """The dirty regions' line ranges, merged: sorted disjoint (first, stop) pairs."""
    bands: list[tuple[int, int]] = []
    for y0, y1 in sorted((r.y, r.bottom) for r in regions):
        if bands and y0 <= bands[-1][1]:
            bands[-1] = (bands[-1][0], max(bands[-1][1], y1))
        else:
            bands.append((y0, y1))
    return bands


_WIDTHS: dict[str, int] = {}  # a segment's text -> its cells (span_cells)


def span_cells(strip: Any, start: int, end: int) -> tuple[int, list[Segment]]:
    """Cells ``start`` to ``end`` of a strip, widened to whole characters: (first cell, segments).

    A cut inside a double-width character (CJK, emoji) would send half of it as a space, and a
    terminal that gets a cell inside a wide character blanks the whole character; so the
    character is sent whole, from its first cell. No cropped Strip is made: ``Strip.crop`` would
    keep the crop (seven caches of its own) in the chop's crop cache, alive as long as the
    widget keeps that line, for the garbage collector to walk again and again."""
    cells: list[Segment] = []
    first = -1
    pos = 0
    widths = _WIDTHS
    for segment in strip:
        text, style, control = segment
        if control:
            continue
        width = widths.get(text)
        if width is None:  # rich's cell_len is cached too, behind two calls per segment
            if len(widths) >= 4096:  # as many as rich keeps
                widths.clear()
            width = widths[text] = cell_len(text)
        stop = pos + width
        if stop <= start or not text:
            pos = stop
            continue
        if pos >= end:
            break
        if start <= pos and stop <= end:
            first = pos if first < 0 else first
            cells.append(segment)
        elif stop - pos == len(text):  # one cell per character: cut by index
            a, b = max(start, pos), min(end, stop)
            first = a if first < 0 else first
            cells.append(Segment(text[a - pos : b - pos], style))
        else:  # wide characters: keep each one that overlaps the cells whole
            kept = []
            x = pos
            for ch in text:
                width = cell_len(ch)
                if x + max(width, 1) > start and x < end:
                    first = x if first < 0 else first
                    kept.append(ch)
                x += width
            if kept:
                cells.append(Segment("".join(kept), style))
        pos = stop
    return (start if first < 0 else first), cells


def _render_cells(strip: Any, start: int, end: int, console: Any) -> tuple[int, str]:
    """Cells ``start`` to ``end`` of a strip, widened to whole characters (``span_cells``), as
    terminal sequences as ``Strip.render`` writes them: (first cell, text). The text is kept in
    the strip's crop cache (a string, which the collector does not walk), so a frame shown again
    (a replay) sends it without rendering."""
    cache = strip._crop_cache
    key = ("sent", start, end)
    kept = cache.get(key)
    if kept is not None:
        return kept  # type: ignore[no-any-return]
    first, cells = span_cells(strip, start, end)
    sent = encoded(cells, console._color_system or ColorSystem.TRUECOLOR)
    cache[key] = kept = (first, sent)
    return kept


# color system -> segment -> its terminal text, as Strip.render writes it. Strip.render asks
# Strip.render_style for every segment of every new line (a call and an f-string each); a new
# result's lines are new strips of segments mostly seen before (a heatmap's runs are kept by
# colour and length), so each segment's text is looked up instead: about a third of the time.
_ENCODED: dict[Any, dict[Segment, str]] = {}
ENCODED_KEPT = 16384  # segments per color system (Textual keeps as many crops per widget)


def encoded(segments: Any, color_system: Any) -> str:
    """The segments as terminal sequences, exactly as ``Strip.render`` joins them."""
    cache = _ENCODED.get(color_system)
    if cache is None:
        cache = _ENCODED[color_system] = {}
    get = cache.get
    try:
        parts = [get(segment) for segment in segments]
    except TypeError:  # a control segment's codes are a list: not a key
        parts = [None] * len(segments)
    if None in parts:
        if len(cache) > ENCODED_KEPT:
            cache.clear()
        render = Strip.render_style
        for i, segment in enumerate(segments):
            if parts[i] is None:
                text, style, control = segment
                part = text if style is None else render(style, text, color_system=color_system)
                # a link's id is its style object's own; control codes may be a list
                if not control and (style is None or not style._link):
                    cache[segment] = part
                parts[i] = part
    return "".join(cast(list[str], parts))  # every one found or rendered


def render_strip(strip: Strip, console: Any) -> str:
    """``strip.render(console)`` (kept in the same place), encoded by ``encoded``."""
    text = strip._render_cache
    if text is None:
        color_system = console._color_system or ColorSystem.TRUECOLOR
        text = strip._render_cache = encoded(strip._segments, color_system)
    return text  # type: ignore[no-any-return]


_MOVES: dict[int, str] = {}


def _move_to(x: int, y: int) -> str:
    """``Control.move_to(x, y).segment.text``, kept per cell: building the Control (a Segment,
    a tuple of codes, a join) for every span of every frame cost more than sending it."""
    key = y * 65536 + x
    text = _MOVES.get(key)
    if text is None:
        if len(_MOVES) > 100_000:
            _MOVES.clear()
        text = _MOVES[key] = Control.move_to(x, y).segment.text
    return text


class SpanChopsUpdate(ChopsUpdate):
    """Textual's partial update, but each span is sent from its own first cell.

    Textual's ``render_segments`` (a "crop to x extents" TODO) sends a chop from the chop's
    first cell (a widget's left edge) to the span's end: one new heatmap column at the right of
    a map sent every cell of the map's lines to its left again, and encoded them. Here a chop
    is cut to the span on both sides, which is what ``ScreenMirror.apply`` (the partial-repaint
    tests' terminal) already assumed a terminal is sent: the cells outside the spans are
    unchanged on the screen.
    """

    def render_segments(self, console: Any) -> str:
        sequences: list[str] = []
        append = sequences.append
        move_to = _move_to
        chops, chop_ends = self.chops, self.chop_ends
        last_y = self.spans[-1][0]
        for y, x1, x2 in self.spans:
            for end, (x, strip) in zip(chop_ends[y], chops[y].items()):  # noqa: B905
                if strip is None or x >= x2 or end <= x1:
                    continue
                if x < x1 or end > x2:
                    first, sent = _render_cells(strip, max(0, x1 - x), min(end, x2) - x, console)
                    append(move_to(x + first, y))
                    append(sent)
                    continue
                append(move_to(x, y))
                append(render_strip(strip, console))
            if y != last_y:
                append("\n")
        return "".join(sequences)


def _cover(spans: list[tuple[int, int]], x0: int, x1: int) -> bool:
    """Add the columns [x0, x1) to a line's sorted, disjoint, non-touching spans; True if they
    were all covered already."""
    merged = []
    for a, b in spans:
        if a <= x0 and x1 <= b:
            return True
        if b < x0 or a > x1:
            merged.append((a, b))
        else:
            x0, x1 = min(a, x0), max(b, x1)
    merged.append((x0, x1))
    merged.sort()
    spans[:] = merged
    return False


def _runs(lines: list[int]) -> list[tuple[int, int]]:
    """Sorted line numbers as (first, stop) runs of consecutive lines."""
    runs: list[tuple[int, int]] = []
    for y in lines:
        if runs and runs[-1][1] == y:
            runs[-1] = (runs[-1][0], y + 1)
        else:
            runs.append((y, y + 1))
    return runs


# Region.overlaps and Region.contains_region, without their lru_caches: a frame's changed regions
# are new each frame, so every test was a cache miss that kept a new key (a tuple of two
# regions) alive in Textual's caches: about 300 objects a frame for the garbage collector.
def _overlaps(a: Region, b: Region) -> bool:
    x, y, w, h = a
    ox, oy, ow, oh = b
    x2, y2, ox2, oy2 = x + w, y + h, ox + ow, oy + oh
    return ((x2 > ox >= x) or (x2 > ox2 > x) or (ox < x and ox2 >= x2)) and (
        (y2 > oy >= y) or (y2 > oy2 > y) or (oy < y and oy2 >= y2)
    )


def _contains(a: Region, b: Region) -> bool:
    x1, y1, w, h = a
    ox, oy, ow, oh = b
    x2, y2 = x1 + w, y1 + h
    return x2 >= ox >= x1 and y2 >= oy >= y1 and x2 >= ox + ow >= x1 and y2 >= oy + oh >= y1


def _widened(strips: list[Strip], left: int, right: int) -> list[Strip]:
    """Each strip with ``left`` and ``right`` blank cells added: placeholders for cells that
    no span of the update shows (``SpanChopsUpdate`` sends only the spans' cells)."""
    pad_left = [Segment(" " * left)] if left else []
    pad_right = [Segment(" " * right)] if right else []
    return [Strip([*pad_left, *strip, *pad_right], left + strip.cell_length + right)
            for strip in strips]  # fmt: skip


def _in_dom(widget: Any) -> bool:
    """Whether ``widget`` is still linked to the app through its parents (not removed).
    Textual's ``is_attached`` walks the same way but says False for every widget once the app
    is exiting: a screen rendered then (``full_render`` after a test's app has stopped) would
    come out blank."""
    node = widget
    while (node := node._parent) is not None:
        if node.is_dom_root:
            return True
    return False


class RegionCompositor(Compositor):
    """Textual's compositor, but a partial update renders only the widgets that a changed region
    touches, and only their changed lines; a full update renders only the lines of each widget
    that the widgets in front of it do not hide.

    Textual renders every widget overlapping the *bounding box* of all changed regions: a frame
    that changes one heatmap column at the top and the status line at the bottom rendered every
    widget on the screen (34 in the vanishing scene), their cached lines included. What reaches
    the terminal is the same (only the changed spans are sent); this skips the work of rendering
    lines that no span shows, and of widgets behind one that holds a changed region whole (a
    heatmap's panel, the view, the screen). Lines are narrowed; columns too for a widget that
    can draw a range of a line's cells (``render_cells(y, start, stop)``, DirectLines) when the
    changed regions span at most half its width: it draws those columns, and blank cells stand
    for the rest of its width, so its cut points stay where the compositor computed them. No
    span shows those blanks.
    """

    _update_regions: list[Any] | None = None
    _full_update = False

    def update_widgets(self, widgets: set[Any]) -> None:
        """Textual's, without the widgets hidden since they asked for a repaint. Textual takes
        a dirty widget it does not show for one mounted since, and arranges the whole screen
        again at the next size asked of any widget: a gates model switch sets the values of
        parameter rows and then hides them, which cost that whole pass (about a tenth of the
        switch). A widget with ``display: none`` is in no map; showing it again lays it out and
        draws it whole (``relayout_island``, Textual's pass)."""
        hidden = {widget for widget in widgets if not widget.display}
        super().update_widgets(widgets - hidden if hidden else widgets)

    def render_full_update(self, simplify: bool = False) -> Any:
        self._full_update = True
        try:
            return super().render_full_update(simplify)
        finally:
            self._full_update = False

    def render_partial_update(self) -> Any:
        self._update_regions = list(self._dirty_regions)
        try:
            update = super().render_partial_update()
        finally:
            self._update_regions = None
        if type(update) is ChopsUpdate:
            update = SpanChopsUpdate(update.chops, update.spans, update.chop_ends)
        return update

    def _get_renders(self, crop: Any = None) -> Any:
        if self._full_update:
            yield from self._front_renders()
            return
        regions = self._update_regions
        if not regions or crop is None:
            yield from super()._get_renders(crop)
            return
        left = list(regions)  # changed regions not yet covered by a widget in front
        bound = Region.from_union(left)  # a widget off it overlaps none of them: one test
        for widget, (region, clip) in self.visible_widgets.items():  # front to back
            if not left:
                return
            shown = region.intersection(clip)  # clip is the container's: the widget may be less
            if not _overlaps(shown, bound):
                continue
            hits = [r for r in left if _overlaps(shown, r)]
            if not hits:
                continue
            # A region inside this widget gets all its cells from it: the widgets behind (its
            # panel, the view, the screen) need not render their cached lines for it.
            left = [r for r in left if not _contains(shown, r)]
            if left:
                bound = Region.from_union(left)
            bands = _line_bands(hits)
            band = Region(shown.x, bands[0][0], shown.width, bands[-1][1] - bands[0][0])
            x, y, width, height = shown.intersection(band)
            if not (width and height):
                continue
            if getattr(widget, "render_cells", None) is not None:
                # Only the columns the changed regions span are sent: the widget draws those
                # (a heatmap's new column, a curve's new segment), blanks stand for the rest.
                # Most of its width (a new data set) is drawn whole: its kept lines serve it.
                x0 = max(x, min(r.x for r in hits))
                x1 = min(x + width, max(r.right for r in hits))
                if 0 < x1 - x0 <= width // 2:
                    crop_region = Region(x0 - region.x, y - region.y, x1 - x0, height)
                    lines = widget.render_lines(crop_region)
                    yield region, clip.intersection(band), _widened(lines, x0 - x, x + width - x1)
                    continue
            crop_region = Region(x - region.x, y - region.y, width, height)
            yield region, clip.intersection(band), widget.render_lines(crop_region)

    def render_update(self, full: bool = False, screen_stack: Any = None,
                      simplify: bool = False) -> Any:  # fmt: skip
        """Textual's, with the widgets removed since the last layout left out. Textual detaches
        a removed widget and only then asks its parent for a layout, through two message
        queues; a paint in between (a result painted at once, the screen's timer, a screenshot)
        drew it from the map, and a widget with no screen cannot draw (NoScreen ended the app:
        a scene switch's parameter rows, the random-keys test on a slower machine). The layout
        that follows makes the map anew and paints what the widget covered."""
        self._leave_out_removed()
        return super().render_update(full, screen_stack, simplify)

    def render_strips(self, size: Any = None) -> list[Strip]:
        """The whole screen from its last layout (a screen under another is drawn this way as
        the top one's background, and screenshots). A screen under another is laid out again
        only when it is on top: a widget removed since (a scene switch queued behind the key
        that opened help or the palette) is still in its map, and drawing it asked for a
        screen it no longer has (NoScreen ended the app, 10,000-key test). It is left out."""
        self._leave_out_removed()
        return super().render_strips(size)  # type: ignore[no-any-return]

    def get_widget_at(self, x: int, y: int) -> Any:
        """Textual's, never a removed widget. Between a removal and the layout after it the map
        still places the removed widgets, and Textual hands them out for a screen offset: a
        mouse press there started a text selection in a widget with no parent
        (``Screen._forward_event``: 'NoneType' object has no attribute 'region')."""
        self._leave_out_removed()
        return super().get_widget_at(x, y)

    def get_widgets_at(self, x: int, y: int) -> Any:
        self._leave_out_removed()
        return super().get_widgets_at(x, y)

    def get_widget_and_offset_at(self, x: int, y: int) -> Any:
        self._leave_out_removed()
        return super().get_widget_and_offset_at(x, y)

    def _leave_out_removed(self) -> None:
        """Leave the widgets no longer linked to the app out of what is drawn and what a screen
        offset finds, until the next layout makes the map anew. Textual's removal detaches the
        innermost widgets first (a widget waits for its children to close), so a removed widget
        that still has a parent has one with none: one look at each parent finds them, a
        frame's only cost here."""
        visible = self.visible_widgets
        if all(widget._parent is not None for widget in visible):
            return
        self._visible_widgets = {w: at for w, at in visible.items() if _in_dom(w)}
        self._layers_visible = None  # made from the visible widgets: made again without them

    def _render_chops(self, crop: Any, is_rendered_line: Any) -> Any:
        chops = super()._render_chops(crop, is_rendered_line)
        if self._full_update and any(None in line.values() for line in chops):
            # A widget in front drew fewer lines than its region holds, so a cell it was taken
            # to cover got nothing: render this update as Textual does, every line of every
            # widget (the cells behind fill the gap, as on Textual's own screens).
            self._full_update = False
            try:
                chops = super()._render_chops(crop, is_rendered_line)
            finally:
                self._full_update = True
        return chops

    def _front_renders(self) -> Any:
        """Every visible widget's lines that the widgets in front of it do not cover whole.

        Textual renders every line of every widget for a full update, and the first widget to
        reach a cell wins: the lines of a container filled by its children (the body, the
        sidebar, the view and its slot, the screen: about 280 of the first frame's 480 lines)
        were styled and then dropped. What reaches the terminal is the same.
        """
        covered: list[list[tuple[int, int]]] = [[] for _ in range(self.size.height)]
        for widget, (region, clip) in self.visible_widgets.items():  # front to back
            shown = region.intersection(clip)
            x0, x1 = shown.x, shown.right
            if x1 <= x0:
                continue
            lines = [y for y in shown.line_range if not _cover(covered[y], x0, x1)]
            for y0, y1 in _runs(lines):
                band = Region(x0, y0, shown.width, y1 - y0)
                crop_region = Region(x0 - region.x, y0 - region.y, shown.width, y1 - y0)
                yield region, clip.intersection(band), widget.render_lines(crop_region)


class RegionScreen(Screen):
    """A screen whose partial updates render only the changed lines (RegionCompositor)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._compositor = RegionCompositor()
        self._resumed = False

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """Textual restyles every widget on a screen when it is shown, in case the CSS changed
        while another screen was on top. The first time, the widgets were styled as they were
        mounted, moments before (about 30 widgets, ~10 ms of the launch): not again. Textual's
        own handler runs after this one."""
        if not self._resumed:
            event.refresh_styles = False
        self._resumed = True

    def _screen_resized(self, size: Any) -> None:
        """Textual lays the whole screen out again at every Resize the screen gets, also one to
        the size it is laid out at: at start-up three came at 160x50 (the app's, the one the
        screen's first layout posts to itself, one from its idle check), each a full layout
        pass while the first frame is held (``App.batch_update``: nothing is painted). While
        held, one to the same size only marks the layout as needed: the release lays out
        once, what was mounted meanwhile included."""
        app = self.app
        if app._batch_count and size == self._compositor.size and self is app.screen:
            self._layout_required = True
            return
        super()._screen_resized(size)

    def _refresh_layout(self, size: Any = None, scroll: bool = False) -> None:
        """A layout asked for only inside an island container (``compat_layout``) arranges
        that container alone; anything else is Textual's whole-screen pass."""
        from seqviz.ui.compat_layout import relayout_island

        if size is None and not scroll and self.app._dom_ready and self.is_current:
            if relayout_island(self):
                # after, not before as Textual does: rows shown now were refreshed while
                # hidden, and Textual takes a widget it cannot see for a new one (it marks the
                # whole map stale); in the island's new map they are there
                self._compositor.update_widgets(self._dirty_widgets)
                if self.app._batch_count:
                    self.call_later(self._compositor_refresh)
                else:
                    self._compositor_refresh()
                self.screen_layout_refresh_signal.publish(self)
                return
        super()._refresh_layout(size, scroll)

    def _compositor_refresh(self) -> None:
        """Textual renders an update even inside ``App.batch_update`` and then drops it
        (``App._display`` shows nothing while a batch is open): at start-up three such renders
        of the whole screen were thrown away. Skip the render; the screen repaints whole once
        the batch ends (its dirty regions are kept)."""
        app = self.app
        if app._batch_count and self is app.screen and not app.is_inline:
            self._repaint_required = True
            return
        compositor = self._compositor
        if self is app.screen and compositor.size.region in compositor._dirty_regions:
            # This update repaints the whole screen: a whole-screen repaint asked for before it
            # (a screen refresh, a skipped batch render) is done by it, not once more afterwards.
            self._repaint_required = False
        super()._compositor_refresh()


class AlikeRowsCache(StylesCache):
    """The styles cache (``Widget._styles_cache``) of a container that draws nothing of its own:
    its inner lines (between the first and the last, with no vertical padding) are all alike,
    the border's two sides and blank between, so one is drawn and the others are that line.
    Textual styles each of them anew (it reuses only a padding line): the first frame drew 86
    such lines for the vanishing view's four panels, 45 for the sidebar and 31 below the
    parameter rows, about a fifth of its rendering. Any stale line or a restyle (``clear``, also
    on a new width) draws the inner line anew."""

    _inner: Strip | None = None

    def clear(self) -> None:
        super().clear()
        self._inner = None

    def set_dirty(self, *regions: Region) -> None:
        super().set_dirty(*regions)
        self._inner = None

    def render_line(self, styles: Any, y: int, size: Size, *rest: Any) -> Strip:
        padding = rest[1]  # after content_size
        if 0 < y < size.height - 1 and not (padding.top or padding.bottom):
            if self._inner is None:
                self._inner = super().render_line(styles, y, size, *rest)
            return self._inner
        return super().render_line(styles, y, size, *rest)


_W = TypeVar("_W", bound=Widget)


def alike_rows(widget: _W) -> _W:
    """``widget`` (a container drawing nothing of its own) with an ``AlikeRowsCache``."""
    widget._styles_cache = AlikeRowsCache()
    return widget


def refresh_lines(widget: Any, *regions: Region) -> None:
    """``widget.refresh(*regions)``, with the screen told at once (``repaint_directly``), or
    nobody told for a hidden widget (``repaint_unseen``)."""
    if not repaint_directly(widget, *regions) and not repaint_unseen(widget):
        widget.refresh(*regions)


def repaint_unseen(widget: Any) -> bool:
    """For a widget with ``display: none``: what Textual's refresh does to its drawn lines
    (all marked stale), without the Prompt to its message loop and the Update to the screen
    that follows, which for a hidden widget repaint nothing. Showing it again lays the screen
    out, which draws it whole from those emptied caches. False (nothing done) for a widget on
    show or with anything else pending (a layout, styles, a scroll)."""
    if widget.display or not widget.is_mounted or _pending(widget):
        return False
    _mark_stale(widget)
    widget._repaint_required = True
    return True


def _pending(widget: Any) -> bool:
    """Whether the widget waits for more than a repaint (a layout, styles, a scroll)."""
    return bool(
        widget._layout_required
        or widget._refresh_styles_required
        or widget._scroll_required
        or widget._recompose_required
    )


def _mark_stale(widget: Any, *regions: Region) -> None:
    """What Widget.refresh does to a widget's drawn lines for a repaint."""
    widget._layout_cache.clear()
    if regions:
        # Widget._set_dirty's own steps, with the content offset read from the style's gutter:
        # Textual's adds the scrollbars' gutter, which is only on the right and the bottom, by
        # asking for each scrollbar's size (a few percent of an animation frame's cost)
        x, y = widget.styles.gutter.top_left
        moved = [region.translate((x, y)) for region in regions]
        widget._dirty_regions.update(moved)
        widget._repaint_regions.update(moved)
        widget._styles_cache.set_dirty(*moved)
    else:
        widget._set_dirty()
    widget.clear_cached_dimensions()
    widget._rich_style_cache.clear()


def repaint_directly(widget: Any, *regions: Region) -> bool:
    """Mark the regions of the widget (all of it if none) for the next paint and tell the
    screen at once, instead of through the widget's own message queue; False (nothing done)
    where Textual's refresh must do it.

    Textual's refresh posts a Prompt to the widget; its message loop then runs an Idle event
    whose handler posts an Update to the screen, which adds the widget to the screen's dirty
    widgets. An animation frame repaints about ten widgets (the gates scene: four to six maps,
    two plots, the readout, the status line), so each frame woke ten message loops for that
    hop alone, and a widget whose Update came late was painted in a second screen update.
    Here the widget's regions are marked dirty and the widget is added to the screen's dirty
    widgets directly, which is what that hop ends in. Anything else pending on the widget (a
    layout, styles, a scroll) takes Textual's path, as does a widget not shown on its screen.
    """
    screen = _shown_screen(widget)
    if screen is None or _pending(widget):
        return False
    # What Widget.refresh does for a repaint, then what its Idle handler and the screen's
    # Update handler do.
    _mark_stale(widget, *regions)
    screen._dirty_widgets.add(widget)
    _wake(screen)
    return True


def _wake(screen: Any) -> None:
    """Start the screen's update timer, as the screen's Idle handler does when it finds a dirty
    widget; without the Prompt message to the screen that ``check_idle`` posts for it (a
    message, and a turn of the screen's loop, per frame). While a batch is open or the screen
    is not current, that handler would wait: so does this, through ``check_idle``."""
    if screen.app._batch_count or not screen.is_current:
        screen.check_idle()
        return
    screen._update_timer.resume()


def paint_pending(app: Any) -> bool:
    """Paint every repaint the shown widgets have asked for, now, in one screen update; False
    (nothing done) if one of them waits for a layout, styles, a scroll or a recompose, or
    nothing is asked. A layout the screen already knows of (``compat_layout.layout_directly``)
    is done first, as the screen's update does it.

    Textual paints at the screen's next timer tick, after each widget's refresh has made its
    hop through the widget's message queue (Prompt, Idle, an Update to the screen): a
    parameter change's paint waited for that tick, and a widget whose hop came after the tick
    was painted in a second screen update. Here each widget is added to the screen's dirty
    widgets directly (what its Update would do) and the screen updates at once, as its timer
    would. The widgets' own hops then find nothing left to do.
    """
    try:
        screen = app.screen
    except Exception:  # no screen: the app is closing
        return False
    if app._batch_count or not screen.is_current or screen._recompose_required:
        return False
    asked = []
    for widget in screen._compositor.visible_widgets:
        if widget is screen and not (screen._refresh_styles_required or screen._scroll_required):
            continue  # a layout of the screen is what its update does first
        if _pending(widget):
            return False
        if widget._repaint_required:
            asked.append(widget)
    dirty = screen._dirty_widgets
    if not (asked or dirty or screen._repaint_required or screen._layout_required):
        return False
    for widget in asked:
        widget._repaint_required = False
        dirty.add(widget)
    screen._on_timer_update()
    return True


def _shown_screen(widget: Any) -> Any:
    """The app's current screen if the widget is mounted and on it, in the compositor's map of
    the widgets it shows (so that screen is laid out, as Screen._on_update requires), else None.
    Looked up in that map rather than by walking the widget's ancestors (``widget.screen``):
    a frame asks for every widget it repaints."""
    if widget._parent is None or not widget.is_mounted or widget._closing or not widget.display:
        return None
    try:
        screen = widget.app.screen
    except Exception:  # no app or no screen: closing
        return None
    return screen if widget in screen._compositor.visible_widgets else None


class DirectRefresh:
    """A widget mixin: its repaints go to the screen at once (``repaint_directly``), not one
    hop through its own message queue. A result or a frame repaints several widgets (a view's
    maps, plots, legends, readout; the status line): each hop woke the widget's message loop,
    and a hop that came after the screen's update was painted in a second one. Layouts,
    recomposes and anything ``repaint_directly`` declines take Textual's path."""

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Any:  # fmt: skip
        if repaint and not layout and not recompose and repaint_directly(self, *regions):
            return self
        return super().refresh(  # type: ignore[misc]
            *regions, repaint=repaint, layout=layout, recompose=recompose
        )


class DirectLines(DirectRefresh):
    """A line-API widget mixin: its lines go to the screen without Textual's StylesCache pass
    when that pass would not change them, or only pads them left and right (no border, outline,
    padding above or below, tint, hatch, text opacity or opacity, no hovered link), so what is
    shown is the same: the padding is added as Textual's pass adds it.

    Textual's pass costs about as much per line as drawing it (per line it reads a dozen style
    rules, looks the theme up and builds the strip anew, so even an unchanged line cached by
    the widget becomes a new strip and misses the filter caches). Here the widget's strip goes
    through the app's line filters only, and a strip the widget hands out again finds its
    filtered form in the strip's own cache. Anything else falls back to Textual's pass.

    A widget may also define ``render_cells(y, start, stop)``: cells ``start`` to ``stop`` of
    ``render_line(y)``, drawn without the rest of the line (a Strip of ``stop - start`` cells).
    The compositor then asks it for only the columns a partial update changes (an animation
    frame's new column). Its partial repaints must not cut a wide character.
    """

    _direct_last = False  # the last paint took the direct path (Textual's line cache is stale)
    # Every style the widget draws has truecolor (hex/rgb) colours or none, and none is dim:
    # Textual's ANSI-to-truecolor filter would return each line unchanged, as a new strip of
    # new segments (a line's cost again). Such a widget skips that filter.
    TRUECOLOR = False

    _direct_styles: tuple[tuple[Any, ...], Any] | None = None  # (styles key, colours or None)

    def _direct_background(self) -> Any:
        """(base background, background, left padding, right padding) if the direct path draws
        this widget as Textual's pass would, else None."""
        widget: Any = self
        if widget.auto_links:  # the hover style changes with the mouse, not with the styles
            hover = widget.hover_style
            if hover._link_id and hover._meta and "@click" in hover.meta:
                return None
        # The rest depends only on the styles of the widget and its ancestors (the colours
        # blend theirs, the opacity multiplies theirs): computed again only when one of them
        # changes, as Textual's own visual_style is (walking them was a tenth of a heatmap's
        # frame).
        key = tuple((id(node), node.styles._cache_key) for node in widget.ancestors_with_self)
        kept = self._direct_styles
        if kept is not None and kept[0] == key:
            return kept[1]
        colors = self._direct_colors()
        self._direct_styles = (key, colors)
        return colors

    def _direct_colors(self) -> Any:
        widget: Any = self
        styles = widget.styles
        if widget.BLANK or styles.tint.a or styles.text_opacity != 1.0:
            return None
        if any(edge[0] for edge in styles.outline) or any(edge[0] for edge in styles.border):
            return None
        top, right, bottom, left = styles.padding
        if top or bottom:  # lines of padding: Textual's pass draws them
            return None
        if styles.has_rule("hatch") and styles.hatch != "none":
            return None
        if widget.opacity != 1.0:
            return None
        return (*widget.background_colors, left, right)

    def render_lines(self, crop: Region) -> list[Any]:
        widget: Any = self
        colors = self._direct_background()
        if colors is None:
            if self._direct_last:
                widget._styles_cache.clear()  # it missed the refreshes of the direct paints
                self._direct_last = False
            return super().render_lines(crop)  # type: ignore[misc]
        self._direct_last = True
        base_background, background, left, right = colors
        width = widget.outer_size.width  # its region's: no border on this path
        inner_width = width - left - right
        filters = widget.get_line_filters()
        if self.TRUECOLOR:
            filters = [f for f in filters if not isinstance(f, ANSIToTruecolor)]
        inner = None
        strips = []
        x1, x2 = crop.column_span
        narrow = (x1, x2) != (0, width)
        # a widget that draws a range of cells draws only the crop's (no padding to place)
        cells = getattr(widget, "render_cells", None) if narrow and not (left or right) else None
        for y in crop.line_range:
            if cells is not None:
                strip = cells(y, x1, x2)  # the line's cells x1..x2, as render_line draws them
                for line_filter in filters:
                    strip = strip.apply_filter(line_filter, background)
                strips.append(strip)
                continue
            strip = widget.render_line(y)
            if strip.cell_length != inner_width or left or right:
                if inner is None:  # Textual pads with the widget's background
                    inner = widget._styles_cache.get_inner_outer(base_background, background)
                    inner = inner[0].rich_style
                if strip.cell_length != inner_width:
                    strip = strip.adjust_cell_length(inner_width, inner)
                if left or right:  # as StylesCache.render_line pads a content line
                    strip = Strip(line_pad(strip, left, right, inner), width)
            for line_filter in filters:
                strip = strip.apply_filter(line_filter, background)
            strips.append(strip)
        if narrow and cells is None:
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips
