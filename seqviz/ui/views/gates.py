"""View of scene 3: a heatmap per gate and state over the typed text, one unit's traces, counts."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical

from seqviz.scenes.gates import GATE_LABELS, SIGNED, gru_parts
from seqviz.ui.views.base import Panel, SceneView, read_so_far
from seqviz.ui.views.forcing import ForceActions, forced_label, forcing_lines
from seqviz.ui.widgets.colormap import diverging, sequential, symmetric_limit
from seqviz.ui.widgets.curves import CurvePlot
from seqviz.ui.widgets.heatmap import Heatmap
from seqviz.ui.widgets.legend import ColorLegend
from seqviz.ui.widgets.readout import Readout, wrapped_lines
from seqviz.ui.widgets.series import PlotLegend, Series

N_PANELS = 6  # LSTM: i f g o c h; GRU: r z n, then h's two parts and h
CAPTIONS = {
    "i": ("Bright where the cell writes: which inputs get stored.", "bright = write"),
    "f": ("Near 1 (yellow) keeps the old cell; dark forgets. Forget bias lifts it.",
          "yellow = keep the cell"),
    "g": ("What would be written, in (-1, 1), before the input gate scales it.",
          "content to write"),
    "o": ("How much of each cell shows in h.", "how much c shows in h"),
    "c": ("The memory: additive updates, free to grow past 1.", "the memory, additive"),
    "h": ("What the next layer sees; the LSTM's is o * tanh(c).", "what the next layer sees"),
    "h-textbook": ("The GRU's only state, h = (1-z)*h + z*n: memory and output at once.",
                   "memory and output at once"),
    "h-pytorch": ("The GRU's only state, h = (1-z)*n + z*h: memory and output at once.",
                  "memory and output at once"),
    "r": ("Dark: the candidate ignores the past (a reset).", "dark = reset the past"),
    "z-textbook": ("Near 0 (dark) copies h forward, the gradient highway; near 1 takes n.",
                   "dark = copy h forward"),
    "z-pytorch": ("PyTorch's GRU: near 1 (yellow) copies h forward, the gradient highway.",
                  "yellow = copy h forward"),
    "n": ("The candidate, from the reset-scaled past and the input.", "the candidate"),
    "kept": ("The old state carried over. No cell c, no output gate: the GRU's memory is h.",
             "the old h carried over"),
    "written": ("The candidate let in. One gate sets both shares: kept + written = h.",
                "the candidate let in"),
}  # fmt: skip
# The GRU's h as its two parts, in the LSTM's o and c slots: the two rows of maps line up for
# both cells, so a model switch only repaints (a new grid shape was a layout pass).
PART_LABELS = {
    "textbook": {"kept": "kept (1-z)*h(t-1)", "written": "written z*n"},
    "pytorch": {"kept": "kept z*h(t-1)", "written": "written (1-z)*n"},
}
PARTS = ("kept", "written")  # maps and readout values, not traced (three curves a plot)
CELL_NAMES = {"lstm": ("i", "f", "g", "o", "c", "h"), "gru": ("r", "z", "n", *PARTS, "h")}
TRACE_COLORS = {
    "i": (90, 170, 255), "f": (255, 200, 60), "g": (200, 120, 255), "o": (120, 220, 220),
    "r": (90, 170, 255), "z": (255, 200, 60), "n": (200, 120, 255),
    "c": (90, 200, 120), "h": (255, 120, 90),
}  # fmt: skip


def wrap_shape(plain: str) -> Any:
    """What decides where Rich wraps a line of text (its style does not): for printable ASCII,
    the lengths of the words between its spaces (Rich breaks only at whitespace, a character
    one cell wide); else the text itself."""
    if plain.isascii() and plain.isprintable():
        return tuple(map(len, plain.split(" ")))
    return plain


def caption(name: str, cell: str, variant: str) -> tuple[str, str]:
    """A panel's caption for this cell: z and h read the other way round in PyTorch's GRU."""
    if cell == "gru" and name in ("z", "h"):
        return CAPTIONS[f"{name}-{variant}"]
    return CAPTIONS[name]


class GatesView(ForceActions, SceneView):
    """Frame t shows the first t tokens read; the cursor unit is marked on every map."""

    SCOPED_CSS = False  # its rules follow the screen size classes (-compact)

    DEFAULT_CSS = """
    GatesView #gate-grid {
        grid-size: 3;
        grid-gutter: 0;
        height: 2fr;
    }
    GatesView #gates-bottom {
        height: 1fr;
    }
    GatesView #unit-panel {
        width: 3fr;
    }
    GatesView .unit-plot-col {
        width: 1fr;
    }
    GatesView #gates-readout-panel {
        width: 2fr;
    }
    GatesView #gates-readout {
        height: 1fr;  /* a result of more or fewer lines repaints; no layout pass */
    }
    .-compact GatesView #gate-grid {
        height: 1fr;
    }
    .-compact GatesView #gates-bottom {
        height: auto;
    }
    .-compact GatesView #unit-panel {
        display: none;
    }
    .-compact GatesView #gates-readout-panel {
        height: auto;
    }
    .-compact GatesView #gates-readout {
        height: auto;
    }
    GatesView #gates-readout-panel {
        min-width: 44;  /* the weight-count lines unwrapped */
    }
    .-compact GatesView .gate-panel ColorLegend {
        display: none;
    }
    """

    def compose(self) -> ComposeResult:
        with Grid(id="gate-grid"):
            for i in range(N_PANELS):
                yield Panel(
                    "", "", Heatmap(id=f"map-{i}"), ColorLegend(id=f"legend-{i}"),
                    id=f"gate-{i}", classes="gate-panel",
                )  # fmt: skip
        with Horizontal(id="gates-bottom"):
            yield Panel(
                "one unit over time",
                "Maps: units down (▸ the cursor unit), steps t across. Here the cursor unit: "
                "gates on a 0 to 1 axis (left), candidate and states (right).",
                # rasters, not plotext figures: a new unit or model built two plotext pictures,
                # about a third of a walked unit-cursor move's main-thread CPU
                Horizontal(
                    Vertical(PlotLegend(id="unit-gates-legend"),
                             CurvePlot(log_y=False, blocks=True, id="unit-gates"),
                             classes="unit-plot-col"),
                    Vertical(PlotLegend(id="unit-states-legend"),
                             CurvePlot(log_y=False, blocks=True, id="unit-states"),
                             classes="unit-plot-col"),
                ),
                short="the cursor unit: gates (left), candidate and states (right)",
                id="unit-panel",
            )  # fmt: skip
            yield Panel(
                "readout",
                "Weight counts from the lesson's formulas; the cursor unit's values now.",
                Readout(id="gates-readout", width_only=True),
                short="",  # compact: the formulas are in the readout itself
                id="gates-readout-panel",
            )

    def on_mount(self) -> None:
        # every caption a slot can show, in all six: the maps keep one height, and line up
        every = [caption(n, cell, v) for cell, names in CELL_NAMES.items() for n in names
                 for v in ("textbook", "pytorch")]  # fmt: skip
        long = tuple(dict.fromkeys(c[0] for c in every))
        short = tuple(dict.fromkeys(c[1] for c in every))
        for panel in self.query(".gate-panel").results(Panel):
            panel.reserve_captions(long, short)

    def show_result(self, result: Any) -> None:
        super().show_result(result)
        # The app has set its frame cursor for this result (a text of another length moves
        # it) and shows that frame next: the plots and the readout are drawn at it now, not at
        # the old frame and then again (a model switch rastered each unit plot twice).
        self.frame = getattr(self.app, "frame", self.frame)
        names = list(CELL_NAMES[result.cell])
        self._parts = gru_parts(result) if result.cell == "gru" else {}
        # Six maps in a 3x2 grid for both cells: a switch changes what the panels show, never
        # their places or sizes, so it is a repaint without a layout pass.
        for i, name in enumerate(names):
            panel = self.query_one(f"#gate-{i}", Panel)
            data = self._series(name)  # (T, d)
            if name in SIGNED or name in ("h", *PARTS):
                cmap = diverging(1.0)  # the parts of h lie in (-1, 1) like h
            elif name == "c":
                cmap = diverging(max(1.0, symmetric_limit(data)))
            else:
                cmap = sequential(0.0, 1.0)
            heatmap = self.query_one(f"#map-{i}", Heatmap)
            heatmap.set_data(np.asarray(data).T, cmap)
            heatmap.set_labels(result.tokens or result.text)
            self.query_one(f"#legend-{i}", ColorLegend).set_map(cmap, name)
            label = GATE_LABELS.get(name) or PART_LABELS[result.variant].get(name)
            panel.border_title = label or {"c": "cell state c", "h": "hidden state h"}[name]
            long, short = caption(name, result.cell, result.variant)
            panel.set_caption(long, short)
        self._names = names
        # (width, unit) -> lines of the values line after each step (t = -1 first)
        self._values_lines: dict[tuple[int, int], list[int]] = {}
        self._show_unit()
        self.query_one("#gates-readout", Readout).set_builder(self._readout, self._readout_key)

    def _series(self, name: str) -> np.ndarray:
        r = self.result
        if name == "h":
            return r.h
        if name == "c":
            return r.c
        if name in PARTS:
            return self._parts[name]
        return r.gates[:, r.gate_names.index(name), :]

    def _unit(self) -> int:
        v = self.values or self.result.values
        return min(int(v.unit), self.result.hidden - 1)

    def _clamped(self) -> str:
        """A note when the cursor asks for a unit past the last one ("" otherwise)."""
        v = self.values or self.result.values
        last = self.result.hidden - 1
        return f"unit {int(v.unit)} clamped to {last}, the last unit" if v.unit > last else ""

    def _show_unit(self) -> None:
        r = self.result
        unit = self._unit()
        t = np.arange(1, r.T + 1, dtype=float)
        series = {
            name: Series(name, t, self._series(name)[:, unit], TRACE_COLORS[name])
            for name in self._names
            if name not in PARTS
        }
        # Sigmoid gates share a fixed 0..1 axis; the candidate and the states a symmetric one
        # wide enough for c, which may grow past 1. Three curves a plot stay readable.
        gates = [s for n, s in series.items() if n not in SIGNED and n not in ("c", "h")]
        states = [s for n, s in series.items() if n in SIGNED or n in ("c", "h")]
        top = max([1.0] + [float(np.max(np.abs(s.y[np.isfinite(s.y)]), initial=0)) for s in states])
        xlim = (1.0, float(max(r.T, 2)))
        for key, shown, ylim in (("gates", gates, (0.0, 1.0)), ("states", states, (-top, top))):
            plot = self.query_one(f"#unit-{key}", CurvePlot)
            plot.set_series(shown, xlim=xlim, ylim=ylim, upto=self.frame)
            self.query_one(f"#unit-{key}-legend", PlotLegend).show_series(shown)
        clamped = self._clamped()
        self.query_one("#unit-panel", Panel).border_title = f"unit {unit} over time" + (
            f" ({clamped})" if clamped else ""
        )
        for i in range(N_PANELS):
            self.query_one(f"#map-{i}", Heatmap).set_cursor(unit)

    def show_values(self, values: Any) -> None:
        if values == self.values and self.result is not None:
            return  # the values show_result has just drawn (the app passes them again)
        self.values = values
        if self.result is not None:
            self._show_unit()
            self.query_one("#gates-readout", Readout).rebuild()
            self.show_frame(self.frame)

    def show_frame(self, frame: int) -> None:
        super().show_frame(frame)
        if self.result is None:
            return
        for i in range(N_PANELS):
            self.query_one(f"#map-{i}", Heatmap).set_visible(frame)
        for key in ("gates", "states"):
            self.query_one(f"#unit-{key}", CurvePlot).set_upto(frame)
        self.query_one("#gates-readout", Readout).rebuild()  # the cursor unit's values now

    def frame_label(self, frame: int) -> str:
        if self.result is None:
            return ""
        r = self.result
        if r.level == "word":
            first = 1 if r.tokens[:1] == ("<s>",) else 0  # a tagger reads no <s>
            shown = " ".join(r.tokens[first:frame])
            label = f"read {frame}/{len(r.tokens)} words: '{read_so_far(shown, 32, words=True)}'"
            return label + forced_label(r.forcing)
        text = "".join(r.tokens[1:]) if r.tokens and r.tokens[0] == "▸" else r.text
        shown = text[: max(0, frame - (len(r.tokens) - len(text)))]
        label = f"read {frame}/{len(r.tokens)}: '{read_so_far(shown, 24, words=False)}'"
        return label + forced_label(r.forcing)

    def cursor_unit(self) -> tuple[str, int] | None:
        """Keys a and c force the cursor unit's cell state (an LSTM's memory) or its h."""
        if self.result is None:
            return None
        return ("c" if self.result.cell == "lstm" else "h"), self._unit()

    def _values_line(self, t: int, unit: int) -> Text:
        """The cursor unit's values after step t + 1 (t = -1: nothing read yet)."""
        r = self.result
        if t < 0:
            return Text(f"unit {unit}, t=0: nothing read yet", style="dim")
        ch = r.tokens[t] if r.tokens else r.text[t]
        values = "  ".join(f"{n}={self._series(n)[t, unit]:+.2f}" for n in self._names)
        return Text(f"unit {unit}, t={t + 1} '{ch}': {values}")

    def _wrapped(self, text: Text, width: int) -> int:
        """Lines ``text`` takes at ``width``, kept per ``wrap_shape``: another unit's or
        step's values line has words of the same lengths, and wraps alike."""
        kept: dict[tuple[Any, int], int] = self.__dict__.setdefault("_wraps", {})
        key = (wrap_shape(text.plain), width)
        lines = kept.get(key)
        if lines is None:
            if len(kept) > 4096:
                kept.clear()
            lines = kept[key] = wrapped_lines([text], width)
        return lines

    def _readout_key(self) -> tuple[int, int, bool]:
        """What the readout shows besides the result: the frame, the unit asked for, the size."""
        v = self.values or self.result.values
        return (self.frame, int(v.unit), self.screen.has_class("-compact"))

    def _readout(self, width: int) -> Any:
        r = self.result
        if r is None:
            return [Text("")]
        counts = r.counts()
        d, d_in = r.hidden, r.input_size
        lstm = f"LSTM 4d(d+d_in) = 4*{d}*({d}+{d_in}) = {counts['lstm']:,}"
        gru = f"GRU  3d(d+d_in) = 3*{d}*({d}+{d_in}) = {counts['gru']:,}"
        fewer = 1 - counts["gru"] / counts["lstm"]
        this = "LSTM" if r.cell == "lstm" else f"GRU ({r.variant})"
        source = "random weights" if r.source == "random" else r.source
        if r.vocab_size:
            kind = "words" if r.level == "word" else "characters"
            source += f" ({r.vocab_size - 2} {kind} known)"
        unit = self._unit()
        # The counts and their formulas at every size (a demo cites them); a compact screen
        # folds the comparison into the GRU line and leaves out the bias count.
        compact = self.screen.has_class("-compact")
        parts: list[Text] = [
            *forcing_lines(r.forcing),
            Text(f"{this}, d={d}, d_in={d_in}, {source}", style="bold"),
            Text(lstm, style="bold" if r.cell == "lstm" else ""),
            Text(gru, style="bold" if r.cell == "gru" else ""),
        ]
        if compact:
            parts[-1].append(f"  ({fewer:.0%} fewer weights)", style="dim")
        else:
            parts.append(Text(f"GRU: {fewer:.0%} fewer weights; with biases this cell has "
                              f"{r.n_params:,} parameters", style="dim"))  # fmt: skip
        # The cursor unit's values now, padded to the most lines they take in any frame: the
        # same height in every frame, as a new height would re-lay the screen out.
        key = (width, unit)
        lines = self._values_lines.get(key)
        if lines is None:  # wrapped once per result, width and unit, not every frame
            lines = [self._wrapped(self._values_line(t, unit), width) for t in range(-1, r.T)]
            self._values_lines[key] = lines
        t = min(self.frame, r.T) - 1
        values = [self._values_line(t, unit)]
        blank = max(lines) - lines[t + 1]
        parts += values + [Text("") for _ in range(blank)]
        if self._clamped():
            parts.append(Text(self._clamped() + f" (this model has {r.hidden} units)",
                              style="bold"))  # fmt: skip
        # Text lines, not their Group: the readout keeps each unchanged line's strips, so a
        # frame draws only its values line.
        return parts
