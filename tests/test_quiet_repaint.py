"""Repaints told to the screen directly, or to nobody for a hidden widget, show what Textual's
own refresh would (issue 16: a model switch repaints without a message per widget)."""

from __future__ import annotations

from dataclasses import asdict

import pytest
from textual.containers import Vertical
from textual.widgets import Static
from widget_host import Host

from seqviz.ui.compat_textual import (
    ScreenMirror,
    capture_updates,
    full_render,
    paint_now,
    update_static,
)
from seqviz.ui.widgets.controls import ParamRow


def _screen_text(app) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(strip.text for strip in full_render(app))


async def test_a_widget_changed_while_hidden_shows_its_new_content_when_shown() -> None:
    label = Static("the old text", id="label")
    async with Host(Vertical(label, Static("below"))).run_test(size=(30, 6)) as pilot:
        await pilot.pause()
        assert "the old text" in _screen_text(pilot.app)
        label.display = False
        await pilot.pause()
        update_static(label, "the new text")
        assert label._message_queue.empty()  # nothing to wake for a widget not on screen
        label.display = True
        await pilot.pause()
        text = _screen_text(pilot.app)
        assert "the new text" in text and "the old text" not in text


@pytest.mark.slow
async def test_parameter_rows_changed_while_hidden_show_what_a_fresh_app_shows(make_app):
    # A shipped model hides the random network's rows; switching models changes their "the
    # ... model sets it" reasons while they are hidden, and the random model shows them again.
    app = make_app("gates")
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_ready()
        await paint_now(app, pilot)
        mirror = ScreenMirror.of_strips(full_render(app), 160)
        capture_updates(app, mirror.apply)
        gru = next(m for m in app.scene.spec("model").choices if m.endswith("-gru"))
        for model in (gru, "random"):
            app.set_param("model", model)
            await app.until_ready()
            await paint_now(app, pilot)
        rows = {row.spec.name: row.region for row in app.query(ParamRow) if row.display}
        assert len(rows) >= 6  # the random network's rows are shown
        values = asdict(app.values)
    fresh = make_app("gates", values)
    async with fresh.run_test(size=(160, 50)) as pilot:
        await fresh.until_ready()
        await pilot.pause()
        await paint_now(fresh, pilot)
        scratch = ScreenMirror.of_strips(full_render(fresh), 160)
        for name, (x, y, width, height) in rows.items():
            assert fresh.query_one(f"#param-{name}", ParamRow).region == (x, y, width, height)
            for line in range(y, y + height):
                assert mirror.cells[line][x : x + width] == scratch.cells[line][x : x + width], name
