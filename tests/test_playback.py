"""The animation cursor and the status line, without a running app."""

from __future__ import annotations

import pytest

from seqviz.ui.playback import SPEEDS, Playback, check_speed
from seqviz.ui.status import param_hint, play_state, status_text


def test_a_new_result_opens_on_its_last_frame_and_keeps_a_moved_cursor():
    p = Playback()
    p.set_frames(10)
    assert p.frame == 10 and p.follow_end
    p.seek(4)
    assert not p.follow_end
    p.set_frames(20)
    assert p.frame == 4  # the user moved it: stays
    p.set_frames(3)
    assert p.frame == 3  # clamped to the shorter result
    p.end()
    p.set_frames(30)
    assert p.frame == 30  # at the end: follows the end


def test_autoplay_starts_from_frame_zero():
    p = Playback(follow_end=False)
    p.set_frames(5)
    assert p.frame == 0


def test_play_ticks_to_the_end_and_stops():
    p = Playback()
    p.set_frames(3)
    p.play()  # at the end: starts over
    assert p.playing and p.frame == 0
    moved = [p.tick() for _ in range(5)]
    assert moved == [True, True, True, False, False]
    assert p.frame == 3 and not p.playing


def test_step_home_end_seek_clamp_and_pause():
    p = Playback()
    p.set_frames(8)
    p.play()
    assert p.step(-3) == 0 and not p.playing  # from 0 (play restarted it)
    assert p.step(5) == 5 and p.step(-2) == 3 and p.step(100) == 8
    assert p.seek(-4) == 0 and p.seek(99) == 8
    assert p.home() == 0 and p.end() == 8
    p.pause()
    assert p.tick() is False and p.frame == 8


def test_speeds_step_through_the_list_and_stop_at_its_ends():
    p = Playback(speed=20)
    assert p.next_speed(1) == 30 and p.next_speed(-1) == 15
    p.set_speed(60)
    assert p.next_speed(1) is None and p.next_speed(-1) == 45
    p.set_speed(1)
    assert p.next_speed(-1) is None
    p.set_speed(17)  # between two listed speeds
    assert p.next_speed(1) == 20 and p.next_speed(-1) == 15
    assert SPEEDS[0] == 1 and SPEEDS[-1] == 60
    for bad in (0, 61, -1):
        with pytest.raises(ValueError, match="from 1 to 60"):
            check_speed(bad)
    with pytest.raises(ValueError, match="from 1 to 60"):
        Playback(speed=100)


class _Spec:
    name, help = "rho", "spectral radius"

    def allowed(self):
        return "a number from 0.1 to 3.0"


class _Overflow:
    step = 17


def test_status_line_parts():
    text = status_text(computing=True, frame_label="step 3/9 [x]", overflow=_Overflow(),
                       error="", hint=param_hint(_Spec()))  # fmt: skip
    assert text.plain == (
        "computing…  │  step 3/9 [x]  │  overflow at step 17  │  "
        "rho: spectral radius (a number from 0.1 to 3.0)"
    )
    text = status_text(computing=False, frame_label=None, overflow=None, error="Boom: x",
                       hint="ignored while an error shows")  # fmt: skip
    assert text.plain == "Boom: x"
    assert param_hint(_Spec(), "the LSTM has no such gate") == (
        "rho: inactive: the LSTM has no such gate"
    )
    assert play_state(True, 20) == ("▶ playing · 20 frames/s", "▶  20/s")
    assert play_state(False, 7.5) == ("❚❚ paused · 7.5 frames/s", "❚❚ 7.5/s")
