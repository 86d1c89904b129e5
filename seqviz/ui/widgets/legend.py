"""One-line colour legend: the map's bins as a bar with its scale, and the inf/nan colour."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from seqviz.ui.compat_textual import DirectLines, refresh_lines
from seqviz.ui.widgets.colormap import NONFINITE, Colormap, diverging
from seqviz.ui.widgets.kept import KeptLines


def format_number(value: float) -> str:
    """Short tick label: 0, 0.5, 12, 1e-05 ..."""
    if value == 0:
        return "0"
    magnitude = abs(value)
    if 1e-2 <= magnitude < 1e4:
        return f"{value:.3g}"
    return f"{value:.0e}"


class ColorLegend(KeptLines, DirectLines, Widget):
    """``lo ▇▇▇▇▇▇▇ hi  ▇ inf/nan`` with the quantity's name; log maps show powers of ten. Its
    line skips Textual's StylesCache pass (DirectLines): a model switch draws six anew."""

    DEFAULT_CSS = """
    ColorLegend {
        height: 1;
        width: 1fr;
    }
    """

    def __init__(self, label: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._cmap: Colormap = diverging()
        self._label = label

    def set_map(self, cmap: Colormap, label: str | None = None) -> None:
        label = self._label if label is None else label
        if (cmap, label) == (self._cmap, self._label):
            return  # a live view sets the same map with every result: nothing to repaint
        self._cmap = cmap
        self._label = label
        refresh_lines(self)  # the screen told at once: a view sets six legends with a result

    def kept_key(self) -> tuple[Colormap, str]:
        return (self._cmap, self._label)

    def kept_text(self) -> Text:
        """A legend of a known shape (the same colours, another name or scale of the same
        length: an LSTM's gate after a GRU's) respells a kept line. Drawn by Textual, a legend's
        bar of some forty coloured cells cost about 1.7 ms, and a model switch draws six."""
        return self.render()

    def render(self) -> Text:
        cmap = self._cmap
        if cmap.log:
            lo, hi = f"1e{cmap.vmin:+.0f}", f"1e{cmap.vmax:+.0f}"
        else:
            lo, hi = format_number(cmap.vmin), format_number(cmap.vmax)
        text = Text()
        if self._label:
            text.append(self._label + " ", style="dim")
        text.append(lo + " ")
        bar = max(8, min(cmap.n * 2, self.size.width - len(text) - len(hi) - 14))
        for i in range(bar):
            text.append("█", style=cmap.colors[i * cmap.n // bar])
        text.append(" " + hi)
        text.append("  █", style=NONFINITE)
        text.append(" inf/nan", style="dim")
        return text
