"""Next-token distribution as horizontal bars, with the temperature, top-k and top-p cut-offs."""

from __future__ import annotations

import textwrap
from functools import lru_cache
from typing import Any

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from seqviz.scenes.decoding import shown
from seqviz.ui.compat_textual import DirectLines, content_size
from seqviz.ui.widgets.beamtree import COLORS, MARKERS, fmt_prob

BAR = "#5f87d7"
BAR_CUT = "#4e4e4e"
TICK = "#ff5f87"
CUT_LINE = "#ffaf00"
EIGHTHS = " ▏▎▍▌▋▊▉"


@lru_cache(maxsize=64)
def _style(spec: str) -> Style:
    return Style.parse(spec) if spec else Style()


def seg(text: str, style: str = "") -> Segment:
    return Segment(text, _style(style))


def bar_cells(value: float, width: int) -> str:
    """A bar of `value` (0..1) times `width` cells, in eighths of a cell."""
    eighths = int(round(max(0.0, min(1.0, value)) * width * 8))
    full, rest = divmod(eighths, 8)
    text = "█" * full + (EIGHTHS[rest] if rest else "")
    return text.ljust(width)[:width]


class DistributionBars(DirectLines, Widget):
    """Bars of P(next token) after the selected node, most probable first.

    Each bar is the tempered probability on an absolute 0..1 scale (a "│" tick marks the
    temperature-1 value when T != 1); a dashed line is drawn where top-k and top-p cut; the right
    column is the renormalised probability sampling would use, or the cut-off that removed the
    token. The marker before a token says what beam search did with that child (● kept,
    ■ finished, ✗ pruned, ○ scored). Drawn with the line API from strips built once per change;
    its lines skip Textual's line pass and its repaints go to the screen at once (DirectLines).
    """

    DEFAULT_CSS = """
    DistributionBars {
        height: 1fr;
        width: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._dist: Any = None
        self._message = "select a node"
        self._marks: dict[int, str] = {}
        self._strips: list[Strip] = []
        self._strips_size: tuple[int, int] | None = None

    def set_distribution(
        self, dist: Any, marks: dict[int, str] | None = None, message: str = ""
    ) -> None:
        """A Distribution (seqviz.decoding.filters) and the tree status of each child token.
        Only the lines that differ from those on screen are repainted (a new frame of the tree
        usually changes a few markers, not the bars)."""
        self._dist = dist
        self._marks = dict(marks or {})
        self._message = message
        old, old_size = self._strips, self._strips_size
        self._strips_size = None
        if not self.is_mounted or old_size is None or old_size != tuple(self.size):
            self.refresh()
            return
        width, height = self.size
        new = self._build(width, height)
        blank = Strip.blank(width)
        changed = [
            y for y in range(height)
            if (old[y] if y < len(old) else blank) != (new[y] if y < len(new) else blank)
        ]  # fmt: skip
        if changed:
            self.refresh(*(Region(0, y, width, 1) for y in changed))

    def on_resize(self) -> None:
        self._strips_size = None

    def _build(self, width: int, height: int) -> list[Strip]:
        self._strips_size = (width, height)
        self._strips = [
            Strip(line).crop(0, width).extend_cell_length(width)
            for line in self._lines(width, height)
        ]
        return self._strips

    def render_line(self, y: int) -> Strip:
        width, height = content_size(self)  # the last layout's: no DOM walk per line
        if self._strips_size != (width, height):
            self._build(width, height)
        if y < len(self._strips):
            return self._strips[y]
        return Strip.blank(width)

    def _lines(self, width: int, height: int) -> list[list[Segment]]:
        dist = self._dist
        if dist is None:
            wrapped = textwrap.wrap(self._message, max(10, width)) or [""]  # never cut a sentence
            return [[seg(line, "italic #9e9e9e")] for line in wrapped]
        order = [int(i) for i in dist.order if dist.tempered[i] > 0.0]
        n_zero = len(dist.order) - len(order)
        tok_w = min(12, max(4, max((len(dist.vocab[i]) for i in order), default=4)))
        bar_w = max(4, width - tok_w - 17)
        k_cut = dist.top_k if dist.top_k is not None and dist.top_k < len(order) else None
        nucleus = [i for i in order if dist.in_top_p[i]]
        top_k_set = [i for i in order if dist.in_top_k[i]]
        p_cut = len(nucleus) if len(nucleus) < len(top_k_set) else None

        room = max(1, height)
        lines: list[int | list[Segment]] = []  # a token id (its bar is drawn lazily) or a line
        for pos, tok in enumerate(order):
            if k_cut is not None and pos == k_cut:
                lines.append(self._cut(f"top-k = {k_cut}", width))
            if p_cut is not None and pos == p_cut:
                mass = float(dist.tempered[nucleus].sum() / dist.tempered[top_k_set].sum())
                label = f"top-p {dist.top_p:.2f} reached: Σ {mass:.3f}"
                lines.append(self._cut(label, width))
            lines.append(tok)
        if len(lines) > room:
            hidden = [tok for tok in lines[room - 1 :] if isinstance(tok, int)]
            mass = float(dist.tempered[hidden].sum()) if hidden else 0.0
            note = f"⋯ {len(hidden)} more tokens (Σ p = {fmt_prob(mass)})"
            lines = lines[: room - 1] + [[seg(note, "italic #9e9e9e")]]
        elif n_zero and len(lines) < room:
            lines.append([seg(f"+ {n_zero} tokens with p = 0", "#6c6c6c")])
        return [
            self._bar(dist, line, tok_w, bar_w) if isinstance(line, int) else line for line in lines
        ]

    def _bar(self, dist: Any, tok: int, tok_w: int, bar_w: int) -> list[Segment]:
        stage = dist.stage(tok)
        kept = stage == "kept"
        mark = self._marks.get(tok)
        line = [seg(MARKERS[mark], COLORS[mark]) if mark else seg(" ")]
        name = shown(dist.vocab[tok])
        name = name if len(name) <= tok_w else name[: tok_w - 1] + "…"
        line.append(seg(" " + name.ljust(tok_w) + " ", "bold" if kept else "#8a8a8a"))
        cells = bar_cells(float(dist.tempered[tok]), bar_w)
        colour = BAR if kept else BAR_CUT
        if dist.temperature != 1.0:
            # Where the bar would end at temperature 1.
            tick = min(bar_w - 1, int(float(dist.probs[tok]) * bar_w))
            line.append(seg(cells[:tick], colour))
            line.append(seg("│", f"bold {TICK}"))
            line.append(seg(cells[tick + 1 :], colour))
        else:
            line.append(seg(cells, colour))
        line.append(seg(" " + fmt_prob(float(dist.tempered[tok])).rjust(5), "" if kept else "dim"))
        if kept:
            line.append(seg(" →" + fmt_prob(float(dist.final[tok])).rjust(5), "bold #5fd787"))
        else:
            line.append(seg(f" {stage:>6}", "#8a8a8a"))
        return line

    @staticmethod
    def _cut(label: str, width: int) -> list[Segment]:
        label = f" {label} "
        left = 3
        right = max(0, width - left - len(label))
        return [seg("┄" * left + label + "┄" * right, CUT_LINE)]


def summary(dist: Any) -> str:
    """One line: what the cut-offs leave for sampling."""
    n = int(np.count_nonzero(dist.in_top_p))
    parts = [f"T={dist.temperature:g}"]
    parts.append(f"top-k {dist.top_k}" if dist.top_k is not None else "top-k off")
    parts.append(f"top-p {dist.top_p:.2f}" if dist.top_p is not None else "top-p off")
    noun = "token" if n == 1 else "tokens"
    return " · ".join(parts) + f" → {n} {noun} can be sampled"
