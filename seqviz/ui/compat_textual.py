"""Every touch of Textual's internals, in one place (tests/test_compat.py checks their shape).

Textual is pinned only from below, so each use here names the internal, why seqviz needs it,
and degrades to doing nothing when the internal is gone; the compat test then fails loudly.
"""

from __future__ import annotations

import codecs
import functools
from typing import Any

from textual import events
from textual.command import CommandList, CommandPalette


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


def render_screen(app: Any) -> Any:
    """The whole screen as one Rich renderable: the render App.export_screenshot uses (the
    screen's compositor), so a text export shows exactly what the SVG would."""
    return app.screen._compositor.render_update(
        full=True, screen_stack=getattr(app, "_background_screens", [])
    )


async def paint_now(app: Any, pilot: Any) -> None:
    """Let every widget process its refresh messages, then lay out and render the changed
    regions now (what the screen's update timer does), without Pilot.pause's idle sleeps."""
    await pilot._wait_for_screen()
    app.screen._on_timer_update()


class SafeCommandPalette(CommandPalette):
    """Textual's command palette, minus the crashes a fast burst of keys found (the
    2,000-random-key test).

    The palette gathers hits in a worker. Closed (Escape) while that worker still gathers, the
    worker's next update toggles the list's visibility on a palette whose list is already gone;
    the NoMatches error fails the worker, and a failed worker ends the app. Without the list
    there is nothing to show, so those updates are skipped. A palette closed before it mounted
    skips its set-up. (Reopening while one closes is handled in SeqvizApp.action_command_palette.)
    The overridden methods are Textual's private handlers.
    """

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
    ("textual.pilot.Pilot", "_wait_for_screen"),
    ("textual._compositor.Compositor", "render_update"),
    ("textual.app.App", "_background_screens"),
)


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


def install_input_fixes() -> None:
    """Apply both workarounds (idempotent); SeqvizApp calls it when its module is imported."""
    from textual.drivers import linux_driver, web_driver
    from textual.widgets import OptionList

    move_page = getattr(OptionList, "_move_page", None)
    if move_page is not None and not getattr(move_page, "_seqviz_safe", False):
        OptionList._move_page = _page_without_layout(move_page)  # type: ignore[method-assign]
    for module in (linux_driver, web_driver):
        if hasattr(module, "getincrementaldecoder"):
            module.getincrementaldecoder = _replacing_decoder  # type: ignore[attr-defined]


# the private names seqviz relies on here: (owner, attribute)
INPUT_INTERNALS = (
    ("textual.widgets._option_list.OptionList", "_move_page"),
    ("textual.drivers.linux_driver", "getincrementaldecoder"),
    ("textual.drivers.web_driver", "getincrementaldecoder"),
)
