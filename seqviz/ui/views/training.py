"""View of the Training scene: curves that grow while the cells learn, what the last update saw."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.css.query import NoMatches

from seqviz.ui.views.base import Panel, SceneView
from seqviz.ui.widgets.colormap import NONFINITE_RGB, sequential
from seqviz.ui.widgets.curves import CurvePlot
from seqviz.ui.widgets.heatmap import Heatmap
from seqviz.ui.widgets.legend import ColorLegend
from seqviz.ui.widgets.readout import Readout, sci
from seqviz.ui.widgets.series import PlotLegend, Series

COLORS = {"rnn": (255, 120, 90), "lstm": (90, 170, 255), "gru": (200, 120, 255)}
GREY = (150, 150, 150)
CLIP_COLOR = (255, 200, 60)
BAD_COLOR = NONFINITE_RGB  # nan/inf and spikes, as the other scenes' overflow colour
# While training runs, the panels that change whole with every result (|dL/dh|, forget gates,
# readout) are redrawn at most this often, and at most with every REFRESH_EVERY-th result (on a
# loaded machine results are drawn further apart than REFRESH_S, and these panels cost about
# twice what the curves do); the curves still take every result.
REFRESH_S = 0.25
REFRESH_EVERY = 2


def x_bound(n: int, steps: int) -> float:
    """The update axis' right end: the first 1, 2 or 5 x 10^k at or past ``n`` updates (at
    most ``steps``), so the axis rescales a handful of times in a run, not with every result."""
    n = max(int(n), 1)
    bound = 10 ** math.floor(math.log10(n))
    for mult in (1, 2, 5, 10):
        if bound * mult >= n:
            bound *= mult
            break
    return float(max(n, min(max(bound, 10), steps)))


class TrainingView(SceneView):
    """Each new result of the stream is drawn into the same widgets; there is no frame cursor.

    The update axis ends at ``x_bound`` and the log axes at whole decades, so between two
    results the limits mostly stay, and a curve plot repaints only the cells of the bins the new
    updates fell into (CurvePlot); the readout and the heatmap repaint their changed lines.
    """

    CITED_PLOTS = ("train-loss", "train-acc")  # what the captions talk about (see SceneView)

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
                CurvePlot(log_y=True, xlabel="update", id="train-loss"),
                id="train-loss-panel",
            )
            yield Panel(
                "accuracy, last 50 updates",
                "Grey: chance. A cell has learned the task when its line leaves chance.",
                PlotLegend(id="train-acc-legend"),
                CurvePlot(log_y=False, xlabel="update", id="train-acc"),
                short="grey: chance",
                id="train-acc-panel",
            )
            yield Panel(
                "|dL/dh| k steps back ÷ at k=0, last update  (log)",
                "Does the gradient reach the key (grey line) that the answer depends on?",
                PlotLegend(id="train-back-legend"),
                CurvePlot(log_y=True, xlabel="steps back k", id="train-back"),
                short="grey line: the key",
                id="train-back-panel",
            )
        with Horizontal(id="train-bottom"):
            yield Panel(
                "gradient norm per update  (log)",
                "Yellow: the clipping threshold; dots: updates clipping scaled down.",
                PlotLegend(id="train-norm-legend"),
                CurvePlot(log_y=True, xlabel="update", id="train-norm"),
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

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._capped: Any = None  # the result the capped panels show
        self._capped_at = -math.inf  # when they were drawn (time.monotonic)
        self._since_capped = 0  # results drawn since
        self._key_lines: dict[tuple[float, float, float], Series] = {}
        self._back_ylim: tuple[float, float] | None = None  # the |dL/dh| plot's, as drawn

    @property
    def capped_current(self) -> bool:
        """The capped panels show the result on screen."""
        return self._capped is self.result

    def show_result(self, result: Any) -> None:
        super().show_result(result)
        self._since_capped += 1
        try:
            self._draw(result)
            if self._capped_due(result):
                self._draw_capped(result)
        except NoMatches:
            pass  # a result that arrives while the view is being removed (scene switch, quit)

    @property
    def status_due(self) -> bool:
        """The status line (update count, events) keeps pace with the capped panels: it
        costs about 1.3 ms per result, and then agrees with the readout."""
        return self.capped_current

    def show_paused(self) -> None:
        """Training stopped: the capped panels catch up with the result on screen."""
        if self.result is not None and not self.capped_current:
            try:
                self._draw_capped(self.result)
            except NoMatches:
                pass

    def _capped_due(self, r: Any) -> bool:
        last = self._capped
        if last is None or r.run != last.run or r.done:
            return True  # the first result of a run (a start or restart), or its last
        if not getattr(self.app, "playing", False):
            return True  # not training: a step, or the chunk that was on its way at a pause
        return (time.monotonic() - self._capped_at >= REFRESH_S
                and self._since_capped >= REFRESH_EVERY)  # fmt: skip

    def _draw_capped(self, r: Any) -> None:
        self._capped, self._capped_at, self._since_capped = r, time.monotonic(), 0
        self._show_back(r)
        self._show_forget(r)
        self.query_one("#train-readout", Readout).set_builder(lambda width: self._readout(r, width))

    def _draw(self, result: Any) -> None:
        r = result
        xlim = (0.0, x_bound(r.step, r.values.steps))
        loss, acc, norm = [], [], []
        clip_x: list[np.ndarray] = []
        clip_y: list[np.ndarray] = []
        finite_loss = np.concatenate([c.loss[np.isfinite(c.loss) & (c.loss > 0)]
                                      for c in r.cells])  # fmt: skip
        top = float(finite_loss.max()) if finite_loss.size else 10.0
        bottom = float(finite_loss.min()) if finite_loss.size else 1e-3
        ylim = (10 ** math.floor(math.log10(max(bottom, 1e-12))), 10 ** math.ceil(math.log10(top)))
        ylim = ylim if ylim[1] > ylim[0] else (ylim[0], ylim[0] * 10)
        bad_x: list[float] = []
        bad_y: list[float] = []
        for c in r.cells:
            color, name = COLORS[c.cell], c.cell.upper()
            x = np.arange(1, len(c.loss) + 1, dtype=float)
            loss.append(Series(name, x, c.loss, color))
            acc.append(Series(name, x, c.accuracy, color))
            norm.append(Series(name, x, c.norm, color))
            clip_x.append(x[c.clipped])
            clip_y.append(c.norm[c.clipped])
            if c.first_spike is not None and c.first_spike <= len(c.loss):
                bad_x.append(float(c.first_spike))
                bad_y.append(float(c.loss[c.first_spike - 1]))
            nan_at = (np.flatnonzero(~c.finite) + 1).astype(float)  # drawn on the top line
            bad_x += nan_at.tolist()
            bad_y += [ylim[1]] * nan_at.size
        if bad_x:
            bx, by = _by_update(np.array(bad_x), np.array(bad_y))
            loss.append(Series("x spike or nan", bx, by, BAD_COLOR, "x"))
        self._plot("loss", loss, xlim, ylim)
        acc.insert(0, Series(f"chance {r.chance:.0%}", np.array(xlim), np.full(2, r.chance), GREY))
        self._plot("acc", acc, xlim, (0.0, 1.0))
        if r.clip > 0:
            norm.insert(0, Series(f"clip {r.clip:g}", np.array(xlim), np.full(2, r.clip),
                                  CLIP_COLOR))  # fmt: skip
        clipped_x, clipped_y = _by_update(np.concatenate(clip_x), np.concatenate(clip_y))
        if clipped_x.size:
            norm.append(Series("• clipped", clipped_x, clipped_y, CLIP_COLOR, "•"))
        self._plot("norm", norm, xlim, _decades(norm))

    def _plot(self, name: str, series: list[Series], xlim: Any, ylim: Any) -> None:
        self.query_one(f"#train-{name}", CurvePlot).set_series(series, xlim=xlim, ylim=ylim)
        self.query_one(f"#train-{name}-legend", PlotLegend).show_series(series)

    def _show_back(self, r: Any) -> None:
        k = np.arange(r.T, dtype=float)
        with np.errstate(all="ignore"):  # relative to k=0, so a small loss does not hide it
            rel = [c.grad_back / c.grad_back[0] for c in r.cells]
        series = [
            Series(c.cell.upper(), k, v, COLORS[c.cell]) for c, v in zip(r.cells, rel, strict=True)
        ]
        ylim = fit = _decades(series)
        if fit is not None:
            # Steady only while training runs: a pause, a step and the last result show the
            # data's own decades (what a screen drawn from that result alone shows).
            running = getattr(self.app, "playing", False) and not r.done
            ylim = self._back_ylim = _steady(self._back_ylim, fit) if running else fit
            series.append(self._key_line(float(r.T - 1 - r.key), *ylim))
        self._plot("back", series, (0.0, float(max(r.T - 1, 1))), ylim)

    def _key_line(self, lag: float, lo: float, hi: float) -> Series:
        """The grey vertical line at the key's distance, the same object while the distance
        and the y limits stay (the plot then finds its cells kept, not mapped again)."""
        kept = self._key_lines.get((lag, lo, hi))
        if kept is None:
            ys = np.geomspace(lo, hi, 200)  # a point in every pixel row: an unbroken line
            kept = Series(f"key, {lag:g} back", np.full(ys.size, lag), ys, GREY, "│")
            if len(self._key_lines) >= 8:  # the limits move between a few decades
                self._key_lines.clear()
            self._key_lines[lag, lo, hi] = kept
        return kept

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

    def _readout(self, r: Any, width: int) -> Any:
        compact = width < 60
        heads = ["cell", "acc", "loss", "|g|", "≥90% at"] + ([] if compact else ["says"])
        rows = []
        for c in r.cells:
            acc = c.accuracy[-1] if len(c.accuracy) else float("nan")
            loss = c.loss[-1] if len(c.loss) else float("nan")
            norm = c.norm[-1] if len(c.norm) else float("nan")
            reached = "—" if c.first_reached is None else str(c.first_reached)
            row = [c.cell.upper(), _pct(acc), _num(loss), sci(norm), reached]
            rows.append(row if compact else [*row, _answer(r, c)])
        # Plain aligned columns (a Rich Table costs a layout pass of its own on every result).
        widths = [max(len(row[i]) for row in [heads, *rows]) for i in range(len(heads))]
        widths[0] = max(widths[0], 5)

        def line(cells: list[str], first_style: str = "", bold: bool = False) -> Text:
            text = Text(style="bold" if bold else "")
            for i, (cell, w) in enumerate(zip(cells, widths, strict=True)):
                if i:
                    text.append(" ")
                left = i in (0, 5)
                cell = cell.ljust(w) if left else cell.rjust(w)
                text.append(cell, style=first_style if i == 0 else "")
            return text

        lines = [line(heads, bold=True)]
        for c, row in zip(r.cells, rows, strict=True):
            lines.append(line(row, "bold rgb({},{},{})".format(*COLORS[c.cell])))
        sample = Text()
        for t, word in enumerate(r.sample):
            if t:
                sample.append(" ")
            sample.append(word, style="bold underline" if t == r.key else "")
        sample.append(f"  → {r.classes[r.target]}", style="bold")
        # Lines, not their Group: the Readout keeps the strips of the lines that stay (the
        # header, the sample, the rates) and draws only the numbers that changed.
        if compact:
            answers = Text("  ".join(f"{c.cell.upper()} {_answer(r, c)}" for c in r.cells))
            return [*lines, sample, answers]
        lr = f"lr {r.lr:g} · clip {'off' if r.clip == 0 else f'{r.clip:g}'}"
        return [*lines, Text(""), sample, Text(lr, style="dim")]


STEADY_DECADES = 2  # decades of room the |dL/dh| plot's y axis may keep beyond its data's


def _steady(last: tuple[float, float] | None, fit: tuple[float, float]) -> tuple[float, float]:
    """The |dL/dh| plot's y limits: ``last`` while the data's whole decades ``fit`` lie inside
    them and they are at most STEADY_DECADES decades wider, else ``fit``. The gradient k steps
    back jumps by a decade or two from one update to the next; limits that followed it redrew
    the whole plot and moved its axis labels four times a second."""
    if last is None or not (last[0] <= fit[0] and fit[1] <= last[1]):
        return fit
    room = math.log10(last[1] / last[0]) - math.log10(fit[1] / fit[0])
    return last if room <= STEADY_DECADES + 1e-9 else fit


def _by_update(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points of all cells in the order of their update (cells in order within one): the
    next result's points then follow these, and a marker series that only grew has just its
    new points mapped (CurvePlot); cell by cell, a new point landed before the others'."""
    order = np.argsort(x, kind="stable")
    return x[order], y[order]


def _decades(series: list[Series]) -> tuple[float, float] | None:
    """Whole decades around the series' finite positive values (None if there are none)."""
    values = np.concatenate([np.asarray(s.y, dtype=float) for s in series] or [np.zeros(0)])
    good = values[np.isfinite(values) & (values > 0)]
    if not good.size:
        return None
    lo = 10 ** math.floor(math.log10(float(good.min())))
    hi = 10 ** math.ceil(math.log10(float(good.max())))
    return lo, hi if hi > lo else lo * 10


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
