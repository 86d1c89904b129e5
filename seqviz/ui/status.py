"""The status line: computing, the frame label, overflow, errors and the focused parameter."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from rich.text import Text
from textual.widgets import Static

from seqviz.ui.compat_textual import DirectLines, set_content_lazily
from seqviz.ui.widgets.kept import KeptLines
from seqviz.ui.widgets.readout import text_key

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
    user's typed text ("[", "]"). An error comes first: the line is cut at the screen's edge,
    and what went wrong (an unknown word and the closest known ones) must not be the part cut."""
    parts: list[Text] = []
    if error:
        parts.append(Text(error, style="bold red"))
    if kernels is not None:
        parts.append(kernels)  # e.g. compiling in the background, NumPy reference meanwhile
    if computing:
        parts.append(Text("computing…", style="bold"))
    if frame_label is not None:
        parts.append(Text(frame_label))
    if overflow is not None:
        parts.append(Text(f"overflow at step {overflow.step}", style=OVERFLOW_STYLE))
    if hint and not error:
        parts.append(Text(hint, style="dim"))
    return Text("  │  ").join(p for p in parts if p.plain)


class StatusLine(KeptLines, DirectLines, Static):
    """The status line: a Static whose repaints (a new frame label every animation frame) go to
    the screen at once (DirectRefresh), in the same screen update as the frame's maps and
    plots, not one message hop later (that hop often made a second screen update); its line
    skips Textual's StylesCache pass and is padded as that pass pads it (DirectLines).

    Its lines are kept as Textual drew them (KeptLines), per text, crop, size and styles: a
    frame label shown before (the same frame after a parameter change, a replay) is not drawn
    again. Drawing it through Textual's Static pipeline (its Content, then the StylesCache
    pass) was about a tenth of a gates animation frame. A new Text's Content is made only when
    it is drawn (``set_content_lazily``), not when it is set.
    """

    KEEP = 512  # labels: every frame of a long text, and the hints and errors between them
    _shown: tuple[Any, ...] | None = None  # the key of the Text shown; None: not a Text

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        # The app sets the line after every change and frame; mostly it reads as before (a
        # parameter change in a scene at its last frame): then there is nothing to repaint.
        if not layout and content == self.content:
            return
        self._shown = text_key(content) if isinstance(content, Text) else None
        if not set_content_lazily(self, content):
            super().update(content, layout=layout)
            return
        self.refresh(layout=layout)

    def kept_text(self) -> Text | None:
        """A new label of a known shape (the Training scene's update count, a frame number)
        respells a kept line: each new result's status line was a whole draw by Textual."""
        content = self.content
        return content if self._shown is not None and isinstance(content, Text) else None

    def kept_key(self) -> Hashable:
        """The text, and what Textual's pass draws it with besides the size and the styles
        (KeptLines adds those): the line filters and the ANSI theme. None with a hovered link."""
        if self._shown is None or self.hover_style._link_id:
            return None
        return (self._shown, *self.drawn_with())
