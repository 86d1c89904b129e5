"""Load-proof waits for Pilot tests: poll for the state a test needs instead of sleeping.

On a loaded machine `pilot.press` can return before the key's binding has run (Textual's idle
wait takes a descheduled process for an idle one, and a key bubbles through several message
queues), and a fixed pause can end before the palette's search or the animation timer ran."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


async def until(condition: Callable[[], Any], pilot: Any, timeout: float = 60.0,
                what: str = "the condition") -> None:  # fmt: skip
    """Return once ``condition()`` is true; AssertionError after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await pilot.pause(0.01)


def palette_options(app: Any) -> list[str]:
    """The command palette's option lines (none while it is not open)."""
    from textual.command import CommandList, CommandPalette

    if not isinstance(app.screen, CommandPalette):
        return []
    options = app.screen.query_one(CommandList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def palette_search(app: Any, pilot: Any, query: str, first: str) -> None:
    """Open the palette, type ``query`` and wait until the highlighted first option (the one
    enter runs) contains ``first``: the search for the whole query has finished."""
    from textual.command import CommandList, CommandPalette

    await pilot.press("ctrl+p")
    await until(lambda: isinstance(app.screen, CommandPalette), pilot, what="the palette")
    await pilot.press(*query)

    def found() -> bool:
        options = palette_options(app)
        highlighted = app.screen.query_one(CommandList).highlighted if options else None
        return bool(options) and first in options[0] and highlighted == 0

    await until(found, pilot, what=f"the palette's first option for {query!r} to hold {first!r}")
