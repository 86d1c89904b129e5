"""View of scene 2: h of the RNN and c of the LSTM after one pulse, the decay f^k, the readout."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult

from seqviz.ui.views.base import Panel, SceneView
from seqviz.ui.widgets.plots import SeriesPlot
from seqviz.ui.widgets.readout import Readout
from seqviz.ui.widgets.series import PlotLegend, Series

RNN_COLOR = (255, 120, 90)
CELL_COLOR = (90, 200, 120)
LSTM_H_COLOR = (90, 170, 255)
DECAY_COLOR = (255, 200, 60)


def memory_value(h: float) -> str:
    """The lesson's formats: 1.48e-05 for a faded memory, 0.859 for a held one."""
    return f"{h:.2e}" if abs(h) < 0.01 else f"{h:.3f}"


def _kept(value: float, rnn: bool) -> str:
    """How much of the pulse a final value holds, in words (the numbers say it exactly)."""
    if not np.isfinite(value):
        return "not a number"
    size = abs(value)
    if size >= 0.9 and rnn:
        return "stuck near 1: it cannot forget"
    if size >= 0.5:
        return "still large" if rnn else "kept"
    if size >= 0.01:
        return "partly faded"
    return "faded"


def captions(result: Any) -> tuple[str, str]:
    """The trajectory plot's caption, computed from the final values it shows (long, short)."""
    T = result.T
    h, c = float(result.rnn_h[-1]), float(result.lstm_c[-1])
    rnn, lstm = _kept(h, True), _kept(c, False)
    long = (f"After {T} steps the RNN's h is {memory_value(h)} ({rnn}) and the LSTM's c is "
            f"{memory_value(c)} ({lstm}); each step c keeps about f = {result.forget:.3f} of "
            "itself.")  # fmt: skip
    if np.isfinite(h) and np.isfinite(c) and abs(c) > abs(h) * 10 and abs(c) >= 0.01:
        long += " The cell keeps the pulse far better."
    short = (
        f"after {T}: RNN h {memory_value(h)}, LSTM c {memory_value(c)} (f = {result.forget:.3f})"
    )
    return long, short


READOUT_TABLE = "Bold: the current settings. Dim: the lesson's settings at the same length."
READOUT_LINES = "The current settings after the last step."


class MemoryView(SceneView):
    """Frame t shows the first t steps of both trajectories and of the decay curve."""

    CITED_PLOTS = ("traj-plot",)  # what the captions talk about (see SceneView)

    SCOPED_CSS = False  # its rules follow the screen size classes (-compact)

    DEFAULT_CSS = """
    MemoryView {
        layout: grid;
        grid-size: 2 2;
        grid-columns: 3fr 2fr;
        grid-rows: 1fr 1fr;
    }
    MemoryView #traj-panel {
        row-span: 2;
    }
    .-compact MemoryView {
        layout: vertical;
    }
    .-compact MemoryView #decay-panel {
        display: none;
    }
    .-compact MemoryView #readout-panel {
        height: auto;
    }
    """

    def compose(self) -> ComposeResult:
        yield Panel(
            "what each cell still holds t steps after the pulse",
            "",  # computed from the result (captions)
            PlotLegend(id="traj-legend"),
            SeriesPlot(log_y=False, xlabel="time step t", id="traj-plot"),
            short="",
            id="traj-panel",
        )
        yield Panel(
            "decay f^k of the cell path  (log scale)",
            "One forget value f, multiplied k times: the share of the cell that survives k steps.",
            PlotLegend(id="decay-legend"),
            SeriesPlot(log_y=True, xlabel="steps k", id="decay-plot"),
            id="decay-panel",
        )
        yield Panel(
            "readout",
            READOUT_TABLE,
            Readout(id="readout"),
            short="the current settings after T steps",
            id="readout-panel",
        )

    def show_result(self, result: Any) -> None:
        super().show_result(result)
        v = result.values
        t = np.arange(1, result.T + 1, dtype=float)
        traj = [
            Series(f"RNN h (w={v.w:.2f})", t, result.rnn_h, RNN_COLOR),
            Series("LSTM h", t, result.lstm_h, LSTM_H_COLOR),
            # Last, so it is drawn on top: the cell state is what this scene is about.
            Series(f"LSTM c (b_f={v.forget_bias:g})", t, result.lstm_c, CELL_COLOR),
        ]
        self.query_one("#traj-plot", SeriesPlot).set_series(traj)
        self.query_one("#traj-legend", PlotLegend).show_series([traj[0], traj[2], traj[1]])
        k = np.arange(result.T, dtype=float)
        decay = [Series(f"f^k with f = {result.forget:.5f}", k, result.decay, DECAY_COLOR)]
        self.query_one("#decay-plot", SeriesPlot).set_series(decay)
        self.query_one("#decay-legend", PlotLegend).show_series(decay)
        self.query_one("#readout", Readout).set_builder(self._readout)
        self.query_one("#traj-panel", Panel).set_caption(*captions(result))

    def show_frame(self, frame: int) -> None:
        super().show_frame(frame)
        # The decay curve is a formula (f^k), drawn whole; only the trajectories animate,
        # which halves the plotting work per frame.
        self.query_one("#traj-plot", SeriesPlot).set_upto(frame)

    def frame_label(self, frame: int) -> str:
        if self.result is None:
            return ""
        return f"t = {frame}/{self.result.T} (pulse at t = 1)"

    def _readout(self, width: int) -> Any:
        r = self.result
        if r is None:
            return Text("")
        v = r.values
        T = r.T
        lines = width < 44 or self.screen.has_class("-compact")
        # The caption names the dim rows only when the table shows them.
        self.query_one("#readout-panel", Panel).set_caption(
            READOUT_LINES if lines else READOUT_TABLE, "the current settings after T steps"
        )
        if lines:
            # The table's wording, so the same numbers read the same at every size.
            return Group(
                Text(f"after {T} steps:", style="bold"),
                Text(f"RNN  w = {v.w:.2f}  h = {memory_value(r.rnn_h[-1])}"),
                Text(f"LSTM f = {r.forget:.5f}  c = {memory_value(r.lstm_c[-1])}  "
                     f"f^{T} = {memory_value(r.forget**T)}"),
            )  # fmt: skip
        table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
        table.add_column("cell", no_wrap=True)
        table.add_column("setting", no_wrap=True)
        table.add_column(f"after {T} steps", justify="right", no_wrap=True)
        table.add_row("RNN", f"w = {v.w:.2f}", f"h = {memory_value(r.rnn_h[-1])}", style="bold")
        table.add_row("LSTM", f"f = {r.forget:.5f}", f"c = {memory_value(r.lstm_c[-1])}",
                      style="bold")  # fmt: skip
        for w, h in r.lesson_rnn:
            table.add_row("RNN", f"w = {w:g}", f"h = {memory_value(h)}", style="dim")
        for b, f, c in r.lesson_lstm:
            table.add_row("LSTM", f"b_f = {b:g}, f = {f:.5f}", f"c = {memory_value(c)}",
                          style="dim")  # fmt: skip
        note = Text(f"f^{T} = {memory_value(r.forget**T)}: the pulse's share left on the cell path",
                    style="italic")  # fmt: skip
        return Group(table, note)
