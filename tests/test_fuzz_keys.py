"""10,000 random keys and raw bytes: PgUp/PgDn right after Ctrl+P, invalid UTF-8; never a crash."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_app_random_keys import KEYS, send_key
from textual._xterm_parser import XTermParser

from seqviz.scenes import scene_names

N_KEYS = 10_000
BURST = 20
# Raw input as a terminal would send it, decoded and parsed the way Textual's driver does.
# ctrl+c, ctrl+q and ctrl+z leave out: they stop or suspend the process by design.
INVALID_UTF8 = [b"\xff", b"\xfe\xff", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"ab\x80cd"]
ESCAPES = [b"\x1b[5~", b"\x1b[6~", b"\x1b[A", b"\x1b[B", b"\x1b", b"\x10"]  # PgUp PgDn up down


def random_bytes(rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        return rng.choice(INVALID_UTF8 + ESCAPES)
    data = bytes(rng.randrange(256) for _ in range(rng.randint(1, 6)))
    return bytes(b for b in data if b not in (0x03, 0x11, 0x1A))


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@pytest.mark.slow
async def test_ten_thousand_random_keys_and_bytes(make_app):
    from textual.drivers import linux_driver

    import seqviz.ui.app  # noqa: F401  (installs the input workarounds)

    start_mb = rss_mb()  # the test process already holds what earlier tests loaded (torch, ...)
    rng = random.Random(10)
    decode = linux_driver.getincrementaldecoder("utf-8")().decode  # what the driver uses
    parser = XTermParser()
    numbers = [str(i) for i in range(1, min(len(scene_names()), 9) + 1)]  # keys 1..9
    pool = KEYS * 3 + numbers + ["pageup", "pagedown"] * 4
    app = make_app("vanishing")
    quits: list[bool] = []
    app.action_quit = lambda: quits.append(True)  # a palette or 'q' quit is asked for, not a crash
    sent = {"page after ctrl+p": 0, "invalid utf-8": 0}
    async with app.run_test(size=(100, 30)) as pilot:
        await app.until_ready()
        for i in range(N_KEYS):
            r = rng.random()
            if r < 0.04:  # the crash the issue found: a page key before the palette is drawn
                send_key(app, "ctrl+p")
                send_key(app, rng.choice(["pageup", "pagedown"]))
                sent["page after ctrl+p"] += 1
            elif r < 0.10:
                data = random_bytes(rng)
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    sent["invalid utf-8"] += 1
                text = decode(data)
                if not text:  # an incomplete character waits for its next byte, as in the driver
                    continue
                for event in parser.feed(text):
                    event.set_sender(app)
                    app._driver.send_message(event)
            else:
                send_key(app, rng.choice(pool))
            if i % BURST == BURST - 1:  # keys arrive in bursts, as from a fast typist or paste
                await pilot._wait_for_screen()
            if i % 500 == 499:
                await pilot.pause()
                assert app.is_running, f"the app stopped after {i + 1} keys"
        await pilot.press("escape", "escape", "escape")
        app.set_scene("vanishing")
        app.reset_params()
        await app.until_ready()
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert app.result is not None
    assert sent["page after ctrl+p"] > 200 and sent["invalid utf-8"] > 100, sent
    print(f"rss {start_mb:.0f} -> {rss_mb():.0f} MB")
    assert rss_mb() - start_mb < 512  # the app's own growth over 10,000 keys: no runaway
