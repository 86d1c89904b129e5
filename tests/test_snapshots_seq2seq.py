"""Snapshots of the seq2seq scene at 80x24 and 160x50: attention with a forced error, bottleneck."""

from __future__ import annotations

import pytest

SIZES = [(80, 24), (160, 50)]


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_seq2seq_forced_error(size, snap_compare, make_app, until_drawn):
    app = make_app("seq2seq", {"force": 3})
    assert snap_compare(app, terminal_size=size, run_before=until_drawn)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_seq2seq_bottleneck_mid_decoding(size, snap_compare, make_app, until_drawn):
    app = make_app("seq2seq", {"model": "bottleneck"})

    async def run_before(pilot) -> None:
        await until_drawn(pilot)
        pilot.app.seek(pilot.app.result.S + 4)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)
