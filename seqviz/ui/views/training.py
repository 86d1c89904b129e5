"""View of the Training scene: curves that grow while the cells learn, what the last update saw."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.css.query import NoMatches

from seqviz.ui.views.base import Panel, SceneView
from seqviz.ui.widgets.colormap import sequential
from seqviz.ui.widgets.heatmap import Heatmap
from seqviz.ui.widgets.legend import ColorLegend
from seqviz.ui.widgets.plots import PlotLegend, Series, SeriesPlot
from seqviz.ui.widgets.readout import Readout, sci

COLORS = {"rnn": (255, 120, 90), "lstm": (90, 170, 255), "gru": (200, 120, 255)}
GREY = (150, 150, 150)
CLIP_COLOR = (255, 200, 60)
BAD_COLOR = (255, 43, 214)  # nan/inf and spikes, as the other scenes' overflow colour
MAX_POINTS = 150  # curves are averaged down to this many points per plot (cheaper frames)


def thin(x: np.ndarray, y: np.ndarray, n: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """At most n points: means of equal stretches (nan-aware, so a nan stretch stays nan)."""
    if len(x) <= n:
        return x, y
    parts = np.array_split(np.arange(len(x)), n)
    xs = np.array([x[p[-1]] for p in parts], dtype=float)
    with np.errstate(all="ignore"):
        ys = np.array([np.nanmean(y[p]) if np.isfinite(y[p]).any() else np.nan for p in parts])
    return xs, ys


class MarkPlot(SeriesPlot):
    """A SeriesPlot whose series with a one-character marker are drawn as points, not lines."""

    def _draw(self, upto: int | None) -> None:
        lines = [s for s in self._series if len(s.marker) != 1]
        points = [s for s in self._series if len(s.marker) == 1]
        self._series = tuple(lines)
        try:
            super()._draw(upto)
        finally:
            self._series = tuple(lines + points)
        for s in points:
            x, y = np.asarray(s.x, dtype=float), np.asarray(s.y, dtype=float)
            good = np.isfinite(y) & ((y > 0) if self.log_y else True)
            if good.any():
                self.plt.scatter(x[good].tolist(), y[good].tolist(), color=s.color,
                                 marker=s.marker)  # fmt: skip


class TrainingView(SceneView):
    """Everything is redrawn from each new result of the stream; there is no frame cursor."""

    SCOPED_CSS = False

    DEFAULT_CSS = """
    TrainingView #train-top, TrainingView #train-bottom {
        height: 1fr;
    }
    TrainingView #train-readout-panel {
        width: 1fr;
    }
    .-compact TrainingView #train-loss-panel,
    .-compact TrainingView #train-norm-panel,
    .-compact TrainingView #train-forget-panel {
        display: none;
    }
    .-compact TrainingView #train-bottom {
        height: auto;
    }
    .-compact TrainingView #train-readout-panel {
        height: auto;
    }
    """

    def compose(self) -> ComposeResult:
        with Horizontal(id="train-top"):
            yield Panel(
                "loss per update  (log)",
                "Cross-entropy of each batch; magenta x: a spike or inf/nan.",
                PlotLegend(id="train-loss-legend"),
                MarkPlot(log_y=True, xlabel="update", id="train-loss"),
                id="train-loss-panel",
            )
            yield Panel(
                "accuracy, last 50 updates",
                "Grey: chance. A cell has learned the task when its line leaves chance.",
                PlotLegend(id="train-acc-legend"),
                MarkPlot(log_y=False, xlabel="update", id="train-acc"),
                short="grey: chance",
                id="train-acc-panel",
            )
            yield Panel(
                "|dL/dh| k steps back ÷ at k=0, last update  (log)",
                "Does the gradient reach the key (grey line) that the answer depends on?",
                PlotLegend(id="train-back-legend"),
                MarkPlot(log_y=True, xlabel="steps back k", id="train-back"),
                short="grey line: the key",
                id="train-back-panel",
            )
        with Horizontal(id="train-bottom"):
            yield Panel(
                "gradient norm per update  (log)",
                "Yellow: the clipping threshold; dots: updates clipping scaled down.",
                PlotLegend(id="train-norm-legend"),
                MarkPlot(log_y=True, xlabel="update", id="train-norm"),
                id="train-norm-panel",
            )
            yield Panel(
                "LSTM forget gate per unit  (units x time)",
                "Mean over the batch at the last update; bright = keep the cell state.",
                Heatmap(id="train-forget"),
                ColorLegend(id="train-forget-legend"),
                id="train-forget-panel",
            )
            yield Panel(
                "readout",
                "The sample's key is underlined; each cell's answer now.",
                Readout(id="train-readout"),
                short="each cell's answer now",
                id="train-readout-panel",
            )

    def show_result(self, result: Any) -> None:
        super().show_result(result)
        try:
            self._draw(result)
        except NoMatches:
            pass  # a result that arrives while the view is being removed (scene switch, quit)

    def _draw(self, result: Any) -> None:
        r = result
        n = r.step
        xlim = (0.0, float(max(n, 1)))
        loss, acc, norm = [], [], []
        clip_x: list[float] = []
        clip_y: list[float] = []
        finite_loss = np.concatenate([c.loss[np.isfinite(c.loss) & (c.loss > 0)]
                                      for c in r.cells])  # fmt: skip
        top = float(finite_loss.max()) if finite_loss.size else 10.0
        bottom = float(finite_loss.min()) if finite_loss.size else 1e-3
        bad_x: list[float] = []
        bad_y: list[float] = []
        for c in r.cells:
            color, name = COLORS[c.cell], c.cell.upper()
            x = np.arange(1, len(c.loss) + 1, dtype=float)
            loss.append(Series(name, *thin(x, c.loss), color))
            acc.append(Series(name, *thin(x, c.accuracy), color))
            norm.append(Series(name, *thin(x, c.norm), color))
            cx, cy = thin(x[c.clipped], c.norm[c.clipped], 60)
            clip_x += cx.tolist()
            clip_y += cy.tolist()
            if c.first_spike is not None and c.first_spike <= len(c.loss):
                bad_x.append(float(c.first_spike))
                bad_y.append(float(c.loss[c.first_spike - 1]))
            nan_at = (np.flatnonzero(~c.finite)[:50] + 1).astype(float)  # drawn at the top
            bad_x += nan_at.tolist()
            bad_y += [top] * nan_at.size
        if bad_x:
            loss.append(Series("x spike or nan", np.array(bad_x), np.array(bad_y), BAD_COLOR, "x"))
        ylim = (10 ** math.floor(math.log10(max(bottom, 1e-12))), 10 ** math.ceil(math.log10(top)))
        self._plot("loss", loss, xlim, ylim if ylim[1] > ylim[0] else None)
        acc.append(Series(f"chance {r.chance:.0%}", np.array(xlim), np.full(2, r.chance), GREY))
        self._plot("acc", acc, xlim, (0.0, 1.0))
        if r.clip > 0:
            norm.append(Series(f"clip {r.clip:g}", np.array(xlim), np.full(2, r.clip), CLIP_COLOR))
        if clip_x:
            norm.append(Series("• clipped", np.array(clip_x), np.array(clip_y), CLIP_COLOR, "•"))
        self._plot("norm", norm, xlim, None)
        self._show_back(r)
        self._show_forget(r)
        self.query_one("#train-readout", Readout).set_builder(self._readout)

    def _plot(self, name: str, series: list[Series], xlim: Any, ylim: Any) -> None:
        self.query_one(f"#train-{name}", SeriesPlot).set_series(series, xlim=xlim, ylim=ylim)
        self.query_one(f"#train-{name}-legend", PlotLegend).show_series(series)

    def _show_back(self, r: Any) -> None:
        k = np.arange(r.T, dtype=float)
        with np.errstate(all="ignore"):  # relative to k=0, so a small loss does not hide it
            rel = [c.grad_back / c.grad_back[0] for c in r.cells]
        series = [
            Series(c.cell.upper(), k, v, COLORS[c.cell]) for c, v in zip(r.cells, rel, strict=True)
        ]
        values = np.concatenate(rel)
        good = values[np.isfinite(values) & (values > 0)]
        ylim = None
        if good.size:
            lo = 10 ** math.floor(math.log10(float(good.min())))
            hi = 10 ** math.ceil(math.log10(float(good.max())))
            hi = hi if hi > lo else lo * 10
            ylim = (lo, hi)
            lag = float(r.T - 1 - r.key)
            ys = np.geomspace(lo, hi, 12)
            series.append(Series(f"key, {lag:g} back", np.full(ys.size, lag), ys, GREY, "│"))
        self._plot("back", series, (0.0, float(max(r.T - 1, 1))), ylim)

    def _show_forget(self, r: Any) -> None:
        heat = self.query_one("#train-forget", Heatmap)
        legend = self.query_one("#train-forget-legend", ColorLegend)
        lstm = r.cell("lstm")
        panel = self.query_one("#train-forget-panel", Panel)
        if lstm is None or lstm.forget is None:
            heat.clear()
            panel.set_caption("No LSTM in this race: add one with the cells knob.")
            return
        panel.set_caption("Mean over the batch at the last update; bright = keep the cell state.")
        heat.set_data(lstm.forget, sequential(0.0, 1.0))
        heat.set_labels("".join(w[0] if w else " " for w in r.sample))
        legend.set_map(sequential(0.0, 1.0), "f")

    def frame_label(self, frame: int) -> str:
        r = self.result
        if r is None:
            return ""
        app = self.app
        state = "done" if r.done else ("training" if getattr(app, "playing", False) else "paused")
        parts = [f"update {r.step}/{r.values.steps} · {state}"]
        parts += [f"{c.cell.upper()} 90% at update {c.first_reached}" for c in r.cells
                  if c.first_reached is not None]  # fmt: skip
        parts += r.events()
        return " · ".join(parts)

    def _readout(self, width: int) -> Any:
        r = self.result
        if r is None:
            return Text("")
        compact = width < 60
        table = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False,
                      header_style="bold")  # fmt: skip
        for head in ("cell", "acc", "loss", "|g|", "≥90% at"):
            table.add_column(head, justify="left" if head == "cell" else "right", no_wrap=True,
                             min_width=5 if head == "cell" else None)  # fmt: skip
        if not compact:
            table.add_column("says", no_wrap=True)
        for c in r.cells:
            acc = c.accuracy[-1] if len(c.accuracy) else float("nan")
            loss = c.loss[-1] if len(c.loss) else float("nan")
            norm = c.norm[-1] if len(c.norm) else float("nan")
            reached = "—" if c.first_reached is None else str(c.first_reached)
            style = "bold rgb({},{},{})".format(*COLORS[c.cell])
            row: list[Any] = [Text(c.cell.upper(), style=style), _pct(acc), _num(loss), sci(norm),
                              reached]  # fmt: skip
            if not compact:
                row.append(_answer(r, c))
            table.add_row(*row)
        sample = Text()
        for t, word in enumerate(r.sample):
            if t:
                sample.append(" ")
            sample.append(word, style="bold underline" if t == r.key else "")
        sample.append(f"  → {r.classes[r.target]}", style="bold")
        if compact:
            answers = Text("  ".join(f"{c.cell.upper()} {_answer(r, c)}" for c in r.cells))
            return Group(table, sample, answers)
        lr = f"lr {r.lr:g} · clip {'off' if r.clip == 0 else f'{r.clip:g}'}"
        return Group(table, Text(""), sample, Text(lr, style="dim"))


def _pct(v: float) -> str:
    return "nan" if not math.isfinite(v) else f"{v:.0%}"


def _num(v: float) -> str:
    return "nan" if not math.isfinite(v) else f"{v:.3f}"


def _answer(r: Any, c: Any) -> str:
    if not np.isfinite(c.probs).all():
        return "nan"
    k = int(np.argmax(c.probs))
    mark = "✓" if k == r.target else "✗"
    return f"{r.classes[k]} {c.probs[k]:.2f} {mark}"
