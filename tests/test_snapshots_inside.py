"""Snapshots of the inside scene: every view alone at 80x24, all four at 160x50."""

from __future__ import annotations

import pytest

from seqviz.scenes.inside import PANELS


@pytest.mark.slow
@pytest.mark.parametrize("panel", PANELS)
def test_inside_each_view_at_80x24(panel, snap_compare, make_app, until_drawn):
    app = make_app("inside", {"panel": panel})
    assert snap_compare(app, terminal_size=(80, 24), run_before=until_drawn)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["agreement", "agreement-rnn"])
def test_inside_all_views_at_160x50(model, snap_compare, make_app, until_drawn):
    app = make_app("inside", {"model": model})
    assert snap_compare(app, terminal_size=(160, 50), run_before=until_drawn)
