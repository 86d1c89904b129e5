"""View of scene 4: gradient norms of RNN, LSTM and GRU k steps back, and where they fade."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal

from seqviz.scenes.gradflow import CELLS, fastest
from seqviz.ui.views.base import Panel, SceneView
from seqviz.ui.widgets.colormap import log_magnitude
from seqviz.ui.widgets.heatmap import Heatmap
from seqviz.ui.widgets.legend import ColorLegend
from seqviz.ui.widgets.plots import SeriesPlot
from seqviz.ui.widgets.readout import NumberTable, Readout, sci
from seqviz.ui.widgets.series import PlotLegend, Series

COLORS = {
    "rnn": (255, 120, 90),
    "lstm": (90, 170, 255),
    "gru": (200, 120, 255),
    "total": (170, 170, 170),
    "cell": (90, 200, 120),
    "forget": (255, 200, 60),
    "lru": (240, 240, 240),
}
LABELS = {
    "rnn": "RNN |dL/dh|",
    "lstm": "LSTM |dL/dh|",
    "gru": "GRU |dL/dh|",
    "total": "LSTM |dL/dc| total",
    "cell": "cell path |dL/dc_T·∏f|",
    "forget": "∏f (mean over units)",
    "lru": "LRU |dL/dh| (linear, complex diagonal)",
}
# Drawn in this order, so the LSTM's |dL/dh| comes last and no other line can cover it.
ORDER = ("total", "forget", "cell", "rnn", "gru", "lstm")
MAX_DECADES = 24  # the colour scale spans at most this many powers of ten below the largest


SHORT_SCREEN = 34  # rows below which the readout folds its notes into one line (100x30)


class GradflowView(SceneView):
    """Frame k shows every curve up to k steps back; the maps fill from the last step leftwards."""

    CITED_PLOTS = ("flow-plot",)  # what the captions talk about (see SceneView)

    SCOPED_CSS = False  # its rules follow the screen size classes (-compact)

    DEFAULT_CSS = """
    GradflowView #flow-top {
        height: 3fr;
    }
    GradflowView #flow-plot-panel {
        width: 2fr;
    }
    GradflowView #flow-readout-panel {
        width: 44;  /* the whole table: the demo cites its columns at every size */
    }
    GradflowView #flow-maps {
        height: 2fr;
    }
    .-compact GradflowView #flow-maps {
        display: none;
    }
    .-compact GradflowView #flow-top {
        layout: vertical;
    }
    .-compact GradflowView #flow-plot-panel {
        width: 1fr;
        height: 1fr;
    }
    .-compact GradflowView #flow-readout-panel {
        width: 1fr;
        height: auto;
    }
    /* Short screens (100x30): the table's own caption goes, the plot keeps the rows. */
    .-compact GradflowView #flow-readout-panel > .caption-short {
        display: none;
    }
    """

    def compose(self) -> ComposeResult:
        with Horizontal(id="flow-top"):
            yield Panel(
                "gradient size k steps back, same input  (log scale)",
                "The LSTM cell path (green) is the product of forget gates (yellow) times "
                "dL/dc_T: raise the forget bias and both flatten.",
                PlotLegend(id="flow-legend"),
                SeriesPlot(log_y=True, xlabel="steps back k", id="flow-plot"),
                short="raise the forget bias: the LSTM cell path (green) flattens",
                id="flow-plot-panel",
            )
            yield Panel(
                "readout",
                "Norms at a few distances; the LSTM's mean f and the GRU's mean z.",
                Readout(id="flow-readout"),
                short="norms k steps back",
                id="flow-readout-panel",
            )
        with Horizontal(id="flow-maps"):
            for cell in CELLS:
                yield Panel(
                    f"{cell.upper()} |dL/dh_t|  (units x time)",
                    "Fills from the last step back; dark is a vanished gradient.",
                    Heatmap(id=f"flow-map-{cell}"),
                    ColorLegend(id=f"flow-map-legend-{cell}"),
                    id=f"flow-map-panel-{cell}",
                )

    def show_result(self, result: Any) -> None:
        super().show_result(result)
        k = np.arange(result.T, dtype=float)
        curves = dict(result.norms, total=result.cell_norms, cell=result.cell_path,
                      forget=result.forget_product)  # fmt: skip
        series = [Series(LABELS[c], k, curves[c], COLORS[c]) for c in ORDER]
        if result.lru is not None:  # the linear recurrence, drawn under the cells' lines
            series.insert(0, Series(LABELS["lru"], k, result.lru.norms, COLORS["lru"]))
        self.query_one("#flow-plot", SeriesPlot).set_series(series)
        shown = {s.label: s for s in series}
        legend = [shown[LABELS[c]] for c in (*CELLS, "cell", "forget", "total", "lru")
                  if LABELS[c] in shown]  # fmt: skip
        self.query_one("#flow-legend", PlotLegend).show_series(legend)
        long, short = captions(result)
        self.query_one("#flow-plot-panel", Panel).set_caption(long, short)
        cmap = log_magnitude(*self._exponent_range(result))
        for cell in CELLS:
            grad = np.abs(np.asarray(result.grad_h[cell])).T  # (d, T)
            self.query_one(f"#flow-map-{cell}", Heatmap).set_data(grad, cmap)
            self.query_one(f"#flow-map-legend-{cell}", ColorLegend).set_map(cmap, "")
        self.query_one("#flow-readout", Readout).set_builder(self._readout)

    @staticmethod
    def _exponent_range(result: Any) -> tuple[float, float]:
        values = np.concatenate([np.abs(np.asarray(g)).ravel() for g in result.grad_h.values()])
        good = values[np.isfinite(values) & (values > 0)]
        if good.size == 0:
            return (-1.0, 0.0)
        hi = math.ceil(math.log10(float(good.max())))
        lo = max(math.floor(math.log10(float(good.min()))), hi - MAX_DECADES)
        return (float(lo), float(hi))

    def show_frame(self, frame: int) -> None:
        super().show_frame(frame)
        if self.result is None:
            return
        self.query_one("#flow-plot", SeriesPlot).set_upto(frame)
        for cell in CELLS:
            self.query_one(f"#flow-map-{cell}", Heatmap).set_visible(frame, from_end=True)

    def frame_label(self, frame: int) -> str:
        if self.result is None:
            return ""
        return f"backward: {frame}/{self.result.T} steps back"

    def _readout(self, width: int) -> Any:
        r = self.result
        if r is None:
            return Text("")
        T = r.T
        ks = [k for k in (10, 50, T - 1) if k < T]
        ks = sorted(set(ks))
        if width < 34 or self.app.size.height < 28:  # 80x24: the plot needs the rows
            k = ks[-1]
            cells = "  ".join(f"{c.upper()} {sci(r.norms[c][k])}" for c in CELLS)
            return Text(f"{k} back: {cells}  cell path {sci(r.cell_path[k])}  "
                        f"prod f {sci(r.forget_product[k])}  mean f {r.mean_forget:.3f}  "
                        f"mean z {r.mean_update:.3f}"
                        + (f"  LRU {sci(r.lru.norms[k])} (scan {r.lru.scan_rounds} rounds, "
                           f"loop {T} steps)" if r.lru is not None else ""))  # fmt: skip
        table = NumberTable()
        table.add_column("k back")
        for k in ks:
            table.add_column(str(k), justify="right")
        for c in CELLS:
            table.add_row(f"{c.upper()} dh", *(sci(r.norms[c][k]) for k in ks))
        table.add_row("c path", *(sci(r.cell_path[k]) for k in ks))
        table.add_row("prod f", *(sci(r.forget_product[k]) for k in ks))
        table.add_row("dc total", *(sci(r.cell_norms[k]) for k in ks))
        if r.lru is not None:
            table.add_row("LRU dh", *(sci(r.lru.norms[k]) for k in ks))
        if self.app.size.height < SHORT_SCREEN:  # 100x30: the plot the captions cite first
            note = Text(f"LSTM mean f = {r.mean_forget:.3f} · GRU mean z = {r.mean_update:.3f}",
                        style="bold")  # fmt: skip
            from rich.console import Group

            return Group(table.renderable(width), note)
        note = Text(f"LSTM mean f = {r.mean_forget:.3f}\nGRU mean z = {r.mean_update:.3f}",
                    style="bold")  # fmt: skip
        if r.lru is not None:
            note.append(f"\nLRU states: loop {T} steps, parallel scan {r.lru.scan_rounds} "
                        f"rounds, max |loop - scan| {sci(r.lru.max_diff)}", style="")  # fmt: skip
        from rich.console import Group

        return Group(table.renderable(width), note)


def captions(result: Any) -> tuple[str, str]:
    """The plot's caption, computed from the curves it shows (long and one-line forms)."""
    cell_path = ("Green, the LSTM cell path, follows the product of forget gates (yellow): "
                 "a higher forget bias flattens both.")  # fmt: skip
    found = fastest(result)
    if found is None:
        return (
            "At these settings no |dL/dh| line falls: the gradients grow. " + cell_path,
            "no |dL/dh| falls here; forget bias flattens the cell path (green)",
        )
    cell, k, value = found
    name = cell.upper()
    long = (
        f"At these settings the {name}'s |dL/dh| falls fastest ({sci(value)} at k={k}). "
        + cell_path
    )
    if cell == "gru" and result.mean_update > 0.2:
        long += f" GRU mean z = {result.mean_update:.2f}: a negative update bias opens its highway."
    return long, f"{name} |dL/dh| falls fastest ({sci(value)} at k={k}); green: cell path"
