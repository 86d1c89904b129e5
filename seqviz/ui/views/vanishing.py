"""View of scene 1: hidden-state heatmap, gradient norms (log), eigenvalues, and the readout."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult

from seqviz.ui.views.base import Panel, SceneView
from seqviz.ui.widgets.colormap import NONFINITE_RGB, diverging, symmetric_limit
from seqviz.ui.widgets.curves import CurvePlot
from seqviz.ui.widgets.eigen import CIRCLE_COLOR, EIGEN_COLOR, EXTRA_EIGEN_COLOR, EigenPlot
from seqviz.ui.widgets.heatmap import Heatmap
from seqviz.ui.widgets.legend import ColorLegend
from seqviz.ui.widgets.readout import NumberTable, Readout, sci
from seqviz.ui.widgets.series import PlotLegend, Series, data_limits

SHORT = {"tanh": "tanh", "linear": "lin"}  # the readout's "now" column names its network
TANH_COLOR = (255, 120, 90)
LINEAR_COLOR = (90, 170, 255)
BAD_COLOR = NONFINITE_RGB  # inf/nan, as in the heatmap


def overflow_text(overflow: Any) -> Text:
    return Text(
        f"overflow at step {overflow.step} ({overflow.phase}, {overflow.what}): "
        "inf/nan drawn in magenta",
        style="bold #ff2bd6",
    )


TANH_CAPTION = (
    "Columns appear as inputs are read. Deep red/blue: saturated tanh units, whose "
    "derivative 1 - h^2 is near 0 and blocks the gradient."
)
TANH_SHORT = "Deep red/blue = saturated units: gradient blocked"
LINEAR_CAPTION = (
    "No squashing: with rho above 1 the states grow every step (see the scale), below 1 "
    "they fade. Magenta cells are inf/nan."
)
LINEAR_SHORT = "No squashing: states grow or fade with rho"


READOUT_WIDE = ("now: this run. rho 0.8/1.0/1.2: the lesson's runs (d=64, T=60, seed 0, draws "
                "1-3); draw 2 at rho 1.0 is its middle row.")  # fmt: skip
READOUT_NARROW = "now: this run; a wider panel adds the lesson's runs at rho 0.8/1.0/1.2."


class VanishingView(SceneView):
    """Forward pass fills the heatmap (frames 1..T), then the gradient travels back (T+1..2T)."""

    CITED_PLOTS = ("grad-plot",)  # what the captions talk about (see SceneView)

    SCOPED_CSS = False  # its rules follow the screen size classes (-compact)

    DEFAULT_CSS = """
    VanishingView {
        layout: grid;
        grid-size: 2 2;
        grid-columns: 3fr 2fr;
        grid-rows: 1fr 1fr;
    }
    .-compact VanishingView {
        layout: vertical;
    }
    .-compact VanishingView #eig-panel {
        display: none;
    }
    .-compact VanishingView #readout-panel {
        height: auto;
    }
    .-compact VanishingView #heat-panel {
        height: 2fr;
    }
    .-compact VanishingView #grad-panel {
        height: 3fr;
    }
    """

    def compose(self) -> ComposeResult:
        yield Panel(
            "hidden states h_t  (units x time)",
            TANH_CAPTION,
            Heatmap(id="h-heatmap"),
            ColorLegend("h", id="h-legend"),
            short=TANH_SHORT,
            id="heat-panel",
        )
        yield Panel(
            "eigenvalues of W_hh",
            "Outside the unit circle a direction grows at every step, inside it shrinks.",
            EigenPlot(id="eig-plot"),
            PlotLegend(id="eig-legend"),
            id="eig-panel",
        )
        yield Panel(
            "gradient size |dL/dh| k steps back  (log scale)",
            "A straight falling line means exponential vanishing. The linear net shows the "
            "effect of rho alone; the gap to tanh is saturation.",
            PlotLegend(id="grad-legend"),
            CurvePlot(log_y=True, xlabel="steps back k", blocks=True, id="grad-plot"),
            short="Straight fall on a log axis = exponential vanishing",
            id="grad-panel",
        )
        yield Panel(
            "readout: |dL/dh| k steps back",
            READOUT_WIDE,
            Readout(id="readout"),
            short="this run; the lesson's rows are in the wide layout",
            id="readout-panel",
        )

    def on_mount(self) -> None:
        self.query_one("#eig-legend", PlotLegend).show_keys(
            [
                ("eigenvalues", EIGEN_COLOR),
                ("unit circle |z| = 1", CIRCLE_COLOR),
                ("LRU λ (ring 0.9-0.999)", EXTRA_EIGEN_COLOR),
            ]  # fmt: skip
        )

    def show_result(self, result: Any) -> None:
        super().show_result(result)
        v = result.values
        h = np.asarray(result.h).T  # (d, T): units down, time across
        limit = 1.0 if v.nonlinearity == "tanh" else symmetric_limit(h)
        cmap = diverging(limit)
        self.query_one("#h-heatmap", Heatmap).set_data(h, cmap)
        self.query_one("#h-legend", ColorLegend).set_map(cmap, f"h ({v.nonlinearity})")
        if v.nonlinearity == "tanh":
            self.query_one("#heat-panel", Panel).set_caption(TANH_CAPTION, TANH_SHORT)
        else:
            self.query_one("#heat-panel", Panel).set_caption(LINEAR_CAPTION, LINEAR_SHORT)
        self.query_one("#eig-plot", EigenPlot).set_eigenvalues(result.eigenvalues, result.lru)
        k = np.arange(result.T, dtype=float)
        shown = {v.nonlinearity: " (heatmap)"}  # which curve belongs to the states drawn above
        series = [
            Series(f"tanh RNN{shown.get('tanh', '')}, rho={v.rho:.2f}", k, result.norms_tanh,
                   TANH_COLOR),
            Series(f"linear RNN{shown.get('linear', '')}, rho={v.rho:.2f}", k,
                   result.norms_linear, LINEAR_COLOR),
        ]  # fmt: skip
        xlim, ylim = data_limits(series, log_y=True)
        ylim = ylim or (0.1, 10.0)  # nothing drawable (never at k=0, whose norm is 1)
        # Whole decades inside the floats (a norm near the largest float rounds up to 1e309,
        # a Python int no array holds); a finite point beyond is drawn on the top line.
        ylim = (float(max(ylim[0], 1e-323)), float(min(ylim[1], 1e308)))
        bad = ~np.isfinite(result.norms_tanh) | ~np.isfinite(result.norms_linear)  # (T,)
        if bad.any():  # an overflowed gradient: a mark on the top line where it left the numbers
            series.append(Series("inf/nan", k[bad], np.full(int(bad.sum()), ylim[1]),
                                 BAD_COLOR, "x"))  # fmt: skip
        # Cut at the frame shown (show_frame follows with the same one): drawn once, not twice.
        upto = self._upto(self.frame)
        self.query_one("#grad-plot", CurvePlot).set_series(series, xlim=xlim, ylim=ylim, upto=upto)
        self.query_one("#grad-legend", PlotLegend).show_series(series)
        self.query_one("#readout", Readout).set_builder(self._readout)

    def show_frame(self, frame: int) -> None:
        super().show_frame(frame)
        if self.result is None:
            return
        T = self.result.T
        self.query_one("#h-heatmap", Heatmap).set_visible(min(frame, T))
        self.query_one("#grad-plot", CurvePlot).set_upto(self._upto(frame))
        reached = self._reached()
        if reached != getattr(self, "_shown_reached", None):  # the readout follows the wave
            self._shown_reached = reached
            self.query_one("#readout", Readout).rebuild()

    def _upto(self, frame: int) -> int:
        """How many points of each gradient curve frame ``frame`` shows (0 while forward)."""
        return max(0, frame - self.result.T) if self.result is not None else 0

    def _reached(self) -> int:
        """How many steps back the backward wave has reached at this frame (0 while forward)."""
        if self.result is None:
            return 0
        return max(0, min(self.frame - self.result.T, self.result.T))

    def _at(self, norms: Any, k: int) -> str:
        """A norm k steps back once the wave has drawn it; a dot before."""
        return sci(norms[k]) if k < self._reached() else "·"

    def frame_label(self, frame: int) -> str:
        if self.result is None:
            return ""
        T = self.result.T
        if frame <= T:
            return f"forward: read {frame}/{T} inputs"
        return f"backward: gradient {frame - T}/{T} steps back"

    def _readout(self, width: int) -> Any:
        r = self.result
        if r is None:
            return Text("")
        ks = r.readout_steps
        last = min(59, r.T - 1)
        parts: list[Any] = []
        if r.overflow is not None:
            parts.append(overflow_text(r.overflow))
        name = r.values.nonlinearity
        wide = width >= 44 and not self.screen.has_class("-compact")
        # The caption describes the columns shown: the lesson's only where the table has them.
        self.query_one("#readout-panel", Panel).set_caption(
            READOUT_WIDE if wide else READOUT_NARROW,
            "this run; the lesson's rows are in the wide layout",
        )
        if wide:
            table = NumberTable()
            table.add_column("k back")
            table.add_column(f"now {SHORT[name]}", justify="right", style="bold")
            for rho, _, _ in r.lesson:
                table.add_column(f"rho {rho:.1f}", justify="right", style="dim")
            for k in ks:
                lesson = [sci(norms[(1, 10, 30, 59).index(k)]) for _, norms, _ in r.lesson]
                table.add_row(f"{k}", self._at(r.norms, k), *lesson)
            table.add_row(f"lin {last}", self._at(r.norms_linear, last),
                          *(sci(lin) for _, _, lin in r.lesson))  # fmt: skip
            parts.append(table)
        elif not self.screen.has_class("-compact"):  # a narrow panel: this run's column only
            table = NumberTable()
            table.add_column("k back")
            table.add_column(f"now {SHORT[name]}", justify="right", style="bold")
            for k in ks:
                table.add_row(f"{k}", self._at(r.norms, k))
            table.add_row(f"lin {last}", self._at(r.norms_linear, last))
            parts.append(table)
        else:  # two lines: this run's norms, then the linear net's
            pairs = "  ".join(f"{k} {self._at(r.norms, k)}" for k in ks)
            parts.append(Text(f"now {SHORT[name]}: {pairs}"))
            parts.append(Text(f"lin {last} {self._at(r.norms_linear, last)}"))
        # Text lines: the readout redraws only the lines that changed, without rich's pipeline.
        lines: list[Text] = []
        for part in parts:
            texts = part.texts(width) if isinstance(part, NumberTable) else [part]
            if texts is None:  # a table too wide for its room: rich shrinks it
                return Group(*(p.renderable(width) if isinstance(p, NumberTable) else p
                               for p in parts))  # fmt: skip
            lines.extend(texts)
        return lines
