"""The animation cursor: frame, frame count, play/pause and speed, with no Textual in it."""

from __future__ import annotations

SPEEDS = (1, 2, 5, 10, 15, 20, 30, 45, 60)  # frames per second the > and < keys step through


def check_speed(speed: float) -> None:
    """ValueError in one sentence unless 1 <= speed <= 60 frames per second."""
    if not 1 <= speed <= 60:
        raise ValueError(f"speed must be a number of frames per second from 1 to 60, not {speed}")


class Playback:
    """Where the animation is: frame 0 (nothing shown) .. n_frames (everything shown).

    The app owns one and moves its timer by ``playing`` and ``speed``; everything here is
    plain state, so it is tested without a running app.
    """

    def __init__(self, speed: float = 20, *, follow_end: bool = True) -> None:
        check_speed(speed)
        self.speed = float(speed)
        self.frame = 0
        self.n_frames = 0
        self.playing = False
        self.follow_end = follow_end
        """Whether a new result opens on its last frame (the whole picture)."""

    def seek(self, frame: int) -> int:
        """Go to ``frame`` (clamped to 0..n_frames); returns the frame."""
        self.frame = max(0, min(int(frame), self.n_frames))
        self.follow_end = self.frame >= self.n_frames and self.n_frames > 0
        return self.frame

    def play(self) -> None:
        """Start playing; from the start again if at the end."""
        if self.frame >= self.n_frames:
            self.seek(0)
        self.playing = True

    def pause(self) -> None:
        self.playing = False

    def step(self, n: int = 1) -> int:
        """Move n frames (negative: back); pauses."""
        self.pause()
        return self.seek(self.frame + n)

    def home(self) -> int:
        self.pause()
        return self.seek(0)

    def end(self) -> int:
        self.pause()
        return self.seek(self.n_frames)

    def tick(self) -> bool:
        """One timer tick: the next frame while playing, pausing at the end; True if moved."""
        if not self.playing:
            return False
        if self.frame >= self.n_frames:
            self.pause()
            return False
        self.seek(self.frame + 1)
        if self.frame >= self.n_frames:
            self.pause()
        return True

    def set_frames(self, n_frames: int) -> None:
        """A new result with ``n_frames`` frames: keep the frame, or follow the end."""
        self.n_frames = max(0, int(n_frames))
        if self.follow_end:
            self.frame = self.n_frames
        self.frame = min(self.frame, self.n_frames)

    def set_speed(self, speed: float) -> None:
        check_speed(speed)
        self.speed = float(speed)

    def next_speed(self, direction: int) -> float | None:
        """The next speed in SPEEDS up (+1) or down (-1), or None at the end of the range."""
        if direction > 0:
            faster = [s for s in SPEEDS if s > self.speed]
            return float(faster[0]) if faster else None
        slower = [s for s in SPEEDS if s < self.speed]
        return float(slower[-1]) if slower else None
