"""A screen offset never finds a removed widget, also between a removal and the next layout.

The map places removed widgets until the layout after their removal; a mouse press found one
there and started a text selection in a widget with no parent, which ended the app
('NoneType' object has no attribute 'region' in Screen._forward_event).
"""

from __future__ import annotations

import asyncio

import pytest
from test_app_random_keys import send_key

from seqviz.ui.compat_textual import _in_dom

pytestmark = pytest.mark.slow  # an app session of a few seconds


def _removed_in_map(screen):
    """(widget, region) of a removed widget the compositor still places, or None."""
    comp = screen._compositor
    for widget, (region, clip) in list(comp.visible_widgets.items()):
        if widget is not screen and not _in_dom(widget) and region.intersection(clip):
            return widget, region.intersection(clip)
    return None


async def test_scene_switch_window_hands_out_no_removed_widget(make_app):
    from textual import events

    app = make_app("vanishing")
    windows = 0
    async with app.run_test(size=(100, 30)) as pilot:
        await app.until_ready()
        await pilot.pause()
        screen = app.screen_stack[0]
        for key in ["2", "3", "1", "5", "9", "1"]:
            send_key(app, key)
            for _ in range(400):  # the few milliseconds of a switch, a loop turn at a time
                await asyncio.sleep(0)
                found = _removed_in_map(screen)
                if found is None:
                    continue
                windows += 1
                widget, region = found
                x, y = region.x, region.y
                for hit, _ in screen._compositor.get_widgets_at(x, y):
                    assert _in_dom(hit), (key, hit)
                try:
                    hit, _ = screen.get_widget_at(x, y)
                except Exception:  # NoWidget: nothing placed there until the layout
                    hit = None
                assert hit is None or _in_dom(hit), (key, hit)
                hit, _ = screen.get_widget_and_offset_at(x, y)
                assert hit is None or _in_dom(hit), (key, hit)
                # the press that ended the app: a selection started there, then a drag
                down = events.MouseDown(None, x, y, 0, 0, 1, False, False, False, screen_x=x,
                                        screen_y=y)  # fmt: skip
                screen._forward_event(down)
                move = events.MouseMove(None, x + 1, y, 1, 0, 1, False, False, False,
                                        screen_x=x + 1, screen_y=y)  # fmt: skip
                screen._forward_event(move)
                up = events.MouseUp(None, x + 1, y, 0, 0, 1, False, False, False,
                                    screen_x=x + 1, screen_y=y)  # fmt: skip
                screen._forward_event(up)
                break
            await app.until_ready()
        await pilot.pause()
        assert app.is_running and app.return_code is None
    assert windows >= 3  # the window was met, so the offsets above were asked inside it
