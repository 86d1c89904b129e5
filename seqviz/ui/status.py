"""The status line: computing, the frame label, overflow, errors and the focused parameter."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from seqviz.ui.compat_textual import DirectRefresh

OVERFLOW_STYLE = "bold #ff2bd6"


def play_state(playing: bool, speed: float) -> tuple[str, str]:
    """(long, short) play-state labels for the scene bar."""
    state = "▶ playing" if playing else "❚❚ paused"
    return f"{state} · {speed:g} frames/s", f"{state[:2]} {speed:g}/s"


def param_hint(spec: Any, inactive: str | None = None) -> str:
    """The focused parameter's line: its help and allowed values, or why it does nothing now."""
    if inactive:
        return f"{spec.name}: inactive: {inactive}"
    return f"{spec.name}: {spec.help} ({spec.allowed()})"


def status_text(
    *,
    computing: bool,
    frame_label: str | None,
    overflow: Any,
    error: str,
    hint: str | None,
    kernels: Text | None = None,
) -> Text:
    """The status line's parts joined by bars. Plain Text, not markup: frame labels contain the
    user's typed text ("[", "]")."""
    parts: list[Text] = []
    if kernels is not None:
        parts.append(kernels)  # e.g. compiling in the background, NumPy reference meanwhile
    if computing:
        parts.append(Text("computing…", style="bold"))
    if frame_label is not None:
        parts.append(Text(frame_label))
    if overflow is not None:
        parts.append(Text(f"overflow at step {overflow.step}", style=OVERFLOW_STYLE))
    if error:
        parts.append(Text(error, style="bold red"))
    elif hint:
        parts.append(Text(hint, style="dim"))
    return Text("  │  ").join(p for p in parts if p.plain)


class StatusLine(DirectRefresh, Static):
    """The status line: a Static whose repaints (a new frame label every animation frame) go to
    the screen at once (DirectRefresh), in the same screen update as the frame's maps and
    plots, not one message hop later (that hop often made a second screen update)."""

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        # The app sets the line after every change and frame; mostly it reads as before (a
        # parameter change in a scene at its last frame): then there is nothing to repaint.
        if layout or content != self.content:
            super().update(content, layout=layout)
