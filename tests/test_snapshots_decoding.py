"""Snapshots of the decoding-tree scene at its defaults (80x24, 120x40, 160x50) and mid-search."""

from __future__ import annotations

import pytest

SIZES = [(80, 24), (120, 40), (160, 50)]


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_decoding_at_defaults(size, snap_compare, make_app, until_drawn):
    app = make_app("decoding")
    assert snap_compare(app, terminal_size=size, run_before=until_drawn)


@pytest.mark.slow
def test_decoding_scored_step_with_a_selected_node(snap_compare, make_app, until_drawn):
    """Step 2 scored (ranks shown, nothing pruned yet), "the" selected, temperature 2, top-k 2."""
    app = make_app("decoding", {"temperature": 2.0, "top_k": 2})

    async def run_before(pilot) -> None:
        await until_drawn(pilot)
        await pilot.press("home", "right", "right", "right", "down")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(160, 50), run_before=run_before)
