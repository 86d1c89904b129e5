"""View of the inside scene: next-verb probabilities, units by pattern, saliency, saturation."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from seqviz.scenes.inside import LABELS, PANELS, SALIENCY
from seqviz.ui.views.base import Panel, SceneView, read_so_far
from seqviz.ui.views.forcing import ForceActions, forced_label, forcing_lines
from seqviz.ui.widgets.colormap import diverging, sequential, symmetric_limit
from seqviz.ui.widgets.heatmap import Heatmap
from seqviz.ui.widgets.plots import SeriesPlot
from seqviz.ui.widgets.readout import Readout, steady_height, wrapped_lines
from seqviz.ui.widgets.scatter import ScatterPlot
from seqviz.ui.widgets.series import PlotLegend, Series

VERB_COLORS = {
    "are": (255, 110, 90), "is": (90, 170, 255), "were": (255, 200, 60), "was": (120, 220, 220),
}  # fmt: skip
GATE_COLORS = {
    "i": (90, 170, 255), "f": (255, 200, 60), "o": (120, 220, 220),
    "r": (90, 170, 255), "z": (255, 200, 60),
}  # fmt: skip
ROWS = {"prediction": "top", "units": "top", "saliency": "bottom", "saturation": "bottom",
        "attractors": "bottom"}  # fmt: skip
CELL_COLORS = {"agreement": (255, 110, 90), "agreement-gru": (120, 220, 120),
               "agreement-rnn": (90, 170, 255)}  # fmt: skip


def knows_from(probs: dict[str, np.ndarray], right: str | None, subject: int | None,
               upto: int) -> int | None:  # fmt: skip
    """The first step, from reading the subject on, after which P(right verb) stays above
    P(wrong verb) through step `upto`; None if it is not ahead at `upto` (or no subject yet)."""
    if right is None or subject is None or upto < subject:
        return None
    wrong = {"are": "is", "is": "are", "were": "was", "was": "were"}[right]
    ahead = probs[right][subject : upto + 1] > probs[wrong][subject : upto + 1]
    if not ahead[-1]:
        return None
    behind = np.flatnonzero(~ahead)
    return subject + (int(behind[-1] + 1) if behind.size else 0)


def contrast_line(c: Any) -> str:
    """Which word pushed log P(right) - log P(wrong) most, by gradient x input and occlusion."""
    parts = []
    for name, a in (("grad×input", c.gradient), ("occlusion", c.occlusion)):
        if np.isfinite(a).all():
            k = 1 + int(np.argmax(a[1:]))
            parts.append(f"{name} '{c.words[k]}' {a[k]:+.2f}")
        else:
            parts.append(f"{name} nan")
    return f"{c.plus} over {c.minus} after '{c.words[-1]}': " + ", ".join(parts)


class InsideView(ForceActions, SceneView):
    """Frame t shows the first t words read; the saliency row of the target step is marked."""

    CITED_PLOTS = ("pred-plot",)  # what the captions talk about (see SceneView)
    PANEL_PLOTS = {"pred-panel": ("pred-plot",), "units-panel": ("units-map",),
                   "sat-panel": ("sat-plot",)}  # fmt: skip

    SCOPED_CSS = False  # its rules follow the screen size classes (-compact)

    DEFAULT_CSS = """
    InsideView .inside-row {
        height: 2fr;
    }
    /* The chosen panel's row (the one the step talks about) gets the rows first: at 120x40
       the prediction plot had 5. */
    InsideView .inside-row.-has-chosen {
        height: 3fr;
    }
    InsideView #sal-panel {
        width: 2fr;
    }
    InsideView .sal-col {
        width: 1fr;
        height: 1fr;
    }
    InsideView .sal-title {
        height: 1;
        text-style: bold;
    }
    InsideView #pred-words {
        height: auto;
        color: $text-muted;
    }
    .-compact InsideView .inside-row {
        display: none;
    }
    .-compact InsideView .inside-row.-has-chosen {
        display: block;
    }
    .-compact InsideView .inside-panel {
        display: none;
    }
    .-compact InsideView .inside-panel.-chosen {
        display: block;
    }
    .-chosen {
        border: round $accent;
    }
    InsideView .inside-panel.-off {
        display: none;
    }
    """

    def compose(self) -> ComposeResult:
        with Horizontal(id="row-top", classes="inside-row"):
            yield Panel(
                "prediction over time",
                "After each word: how likely each verb is next. Where the right verb pulls "
                "ahead and stays ahead, the model knows the subject's number.",
                PlotLegend(id="pred-legend"),
                SeriesPlot(log_y=False, xlabel="after word t", id="pred-plot"),
                Static("", id="pred-words"),
                Readout(id="pred-readout"),
                short="P(next verb) after each word",
                id="pred-panel", classes="inside-panel",
            )  # fmt: skip
            yield Panel(
                "units by pattern",
                "Units ranked by correlation with the chosen pattern over held-out sentences; "
                "below, the best units (rows, best on top) on this sentence.",
                Readout(id="units-readout"),
                Heatmap(id="units-map"),
                short="units that follow the pattern",
                id="units-panel", classes="inside-panel",
            )  # fmt: skip
        with Horizontal(id="row-bottom", classes="inside-row"):
            cols = []
            for name in SALIENCY:
                cols.append(Vertical(
                    Static(LABELS[name], classes="sal-title", id=f"sal-title-{name}"),
                    Heatmap(id=f"sal-{name}"), classes="sal-col",
                ))  # fmt: skip
            yield Panel(
                "what each output depends on",
                "Row t: |d logit(next word) / d input word s|, each row scaled to its maximum "
                "(bright = strong). The marked row is the saliency row.",
                Horizontal(*cols),
                Readout(id="sal-readout"),
                short="|d logit(t) / d x_s| per row",
                id="sal-panel", classes="inside-panel",
            )  # fmt: skip
            yield Panel(
                "gate saturation",
                "Each dot is one unit's gate: how often it is below 0.1 (x) or above 0.9 (y) "
                "over the held-out sentences.",
                PlotLegend(id="sat-legend"),
                ScatterPlot(xlabel="x: share < 0.1    y: share > 0.9", id="sat-plot"),
                Readout(id="sat-readout"),
                short="gates below 0.1 (x) or above 0.9 (y)",
                id="sat-panel", classes="inside-panel",
            )  # fmt: skip
            yield Panel(
                "agreement across attractors",
                "Held-out accuracy against the number of nouns of the other number between the "
                "subject and its verb: plain phrases (solid), nested in a relative clause (+).",
                PlotLegend(id="att-legend"),
                SeriesPlot(log_y=False, xlabel="attractors", id="att-plot"),
                Readout(id="att-readout"),
                short="accuracy per attractor count",
                id="att-panel", classes="inside-panel",
            )  # fmt: skip

    def cited_plots(self) -> tuple[str, ...]:
        """The plot of the chosen panel (the one the step talks about)."""
        for panel in self.query(".inside-panel.-chosen"):
            return self.PANEL_PLOTS.get(panel.id or "", ())
        return self.CITED_PLOTS

    # --- results -------------------------------------------------------------------------------
    def show_result(self, result: Any) -> None:
        super().show_result(result)
        r = result
        t = np.arange(r.T, dtype=float)
        series = [Series(f"P({v})", t, r.probs[v], VERB_COLORS[v]) for v in VERB_COLORS]
        plot = self.query_one("#pred-plot", SeriesPlot)
        plot.set_series(series, ylim=(0.0, 1.0))
        self.query_one("#pred-legend", PlotLegend).show_series(series)
        words = "  ".join(f"{k} {w}" for k, w in enumerate(r.words))
        self.query_one("#pred-words", Static).update(Text(words))
        self._pred_height: dict[int, int] = {}  # width -> lines of the prediction readout
        pred = self.query_one("#pred-readout", Readout)
        pred.set_builder(self._pred_readout, key=lambda: self.frame)  # the result and the frame
        units = self.query_one("#units-map", Heatmap)
        data = np.repeat(r.unit_traces, 2, axis=0)  # (2 * units, T): one text line per unit
        units.set_data(data, diverging(max(1.0, symmetric_limit(data))))
        units.set_labels(r.words)
        # rows: the ranking (1 = best), one line each; columns: word positions, <s> being 0
        units.set_axes(x=range(r.T), y=np.repeat(np.arange(1, len(r.unit_traces) + 1), 2))
        units.set_cursor(0)
        self.query_one("#units-readout", Readout).set_builder(self._units_readout)
        for name in SALIENCY:
            s = r.saliency[name]  # (T, T)
            peak = s.max(axis=1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                scaled = np.where(peak > 0, s / peak, 0.0)
            heat = self.query_one(f"#sal-{name}", Heatmap)
            heat.set_data(np.repeat(scaled, 2, axis=0), sequential(0.0, 1.0))
            heat.set_labels(r.words)
            # rows: the output's step t (one line each); columns: the input word s it reads
            heat.set_axes(x=range(r.T), y=np.repeat(np.arange(r.T), 2), x_name="s")
            chosen = "▸ " if name == r.model else ""
            self.query_one(f"#sal-title-{name}", Static).update(Text(chosen + LABELS[name]))
        self.query_one("#sal-readout", Readout).set_builder(self._sal_readout)
        self._show_saturation()
        self._show_attractors()
        self.query_one(
            "#units-panel", Panel
        ).border_title = f"units by pattern: {r.values.track}, {LABELS[r.model]}"
        self.query_one("#sat-panel", Panel).border_title = f"gate saturation: {LABELS[r.model]}"
        self._show_target()
        self._choose_panel()

    def _show_saturation(self) -> None:
        r = self.result
        plot = self.query_one("#sat-plot", ScatterPlot)
        sat = r.saturation
        plot.display = sat is not None
        if sat is None:
            plot.set_groups([])
            self.query_one("#sat-legend", PlotLegend).show_keys([])
        else:
            groups = [Series(g, sat.left[g], sat.right[g], GATE_COLORS[g]) for g in sat.left]
            plot.set_groups(groups)
            self.query_one("#sat-legend", PlotLegend).show_series(groups)
        self.query_one("#sat-readout", Readout).set_builder(self._sat_readout)

    def _show_attractors(self) -> None:
        r = self.result
        curves = r.attractors or {}
        series = []
        for kind, marker in (("plain", "hd"), ("nested", "+")):
            for name, c in curves.get(kind, {}).items():
                x = np.array(list(c.accuracy), dtype=float)
                y = np.array(list(c.accuracy.values()))
                label = LABELS[name] + ("" if kind == "plain" else " nested")
                series.append(Series(label, x, y, CELL_COLORS[name], marker))
        self.query_one("#att-plot", SeriesPlot).set_series(series, xlim=(0.0, 3.0),
                                                           ylim=(0.0, 1.0))  # fmt: skip
        self.query_one("#att-legend", PlotLegend).show_series(series[: len(SALIENCY)])
        self.query_one("#att-readout", Readout).set_builder(self._att_readout)

    def _att_readout(self, width: int) -> Any:
        r = self.result
        curves = (r.attractors or {}) if r is not None else {}
        if not curves:
            return Text("")
        n = next(iter(curves["plain"].values())).sentences
        lines = [Text(f"held-out accuracy per attractor count ({n} sentences each)",
                      style="dim")]  # fmt: skip
        for name in SALIENCY:
            plain = " ".join(f"{v:.1%}" for v in curves["plain"][name].accuracy.values())
            nested = " ".join(f"{v:.1%}" for v in curves["nested"][name].accuracy.values())
            lines.append(Text(f"{LABELS[name]} 0-3: {plain}  nested 1-3: {nested}"))
        return Group(*lines)

    # --- view-only values ----------------------------------------------------------------------
    def show_values(self, values: Any) -> None:
        self.values = values
        if self.result is not None:
            self._show_target()
            self._choose_panel()
            self.show_frame(self.frame)

    def _target(self) -> tuple[int, bool]:
        """The saliency row shown, and whether the asked one was past the sentence's end."""
        v = self.values or self.result.values
        last = self.result.T - 1
        return min(int(v.target), last), int(v.target) > last

    def _show_target(self) -> None:
        target, _ = self._target()
        for name in SALIENCY:
            self.query_one(f"#sal-{name}", Heatmap).set_cursor(2 * target)
        self.query_one("#sal-readout", Readout).rebuild()

    def _choose_panel(self) -> None:
        v = self.values or self.result.values
        chosen = v.panel if v.panel in PANELS else "units"
        for name, pid in zip(PANELS, ("pred", "units", "sal", "sat", "att"), strict=True):
            self.query_one(f"#{pid}-panel", Panel).set_class(name == chosen, "-chosen")
        # the attractor curve takes the whole lower row when it is chosen
        self.query_one("#att-panel", Panel).set_class(chosen != "attractors", "-off")
        for pid in ("sal", "sat"):
            self.query_one(f"#{pid}-panel", Panel).set_class(chosen == "attractors", "-off")
        for row in ("top", "bottom"):
            self.query_one(f"#row-{row}").set_class(ROWS[chosen] == row, "-has-chosen")

    def show_frame(self, frame: int) -> None:
        super().show_frame(frame)
        if self.result is None:
            return
        self.query_one("#pred-plot", SeriesPlot).set_upto(frame)
        self.query_one("#units-map", Heatmap).set_visible(frame)
        for name in SALIENCY:
            self.query_one(f"#sal-{name}", Heatmap).set_visible(frame)
        self.query_one("#pred-readout", Readout).rebuild()

    def frame_label(self, frame: int) -> str:
        if self.result is None:
            return ""
        shown = " ".join(self.result.words[1:frame])
        label = f"read {frame}/{self.result.T} words: '{read_so_far(shown, 32, words=True)}'"
        return label + forced_label(self.result.forcing)

    # --- interventions (keys a, c, x) ------------------------------------------------------------
    def cursor_unit(self) -> tuple[str, int] | None:
        """The ranked unit the cursor is on: (state, unit)."""
        r = self.result
        if r is None or not r.units:
            return None
        v = self.values or r.values
        u = r.units[min(int(v.cursor), len(r.units)) - 1]
        return u.state, u.unit

    # --- readouts ------------------------------------------------------------------------------
    def _pred_readout(self, width: int) -> Any:
        r = self.result
        if r is None:
            return [Text("")]
        # As many lines in every frame (blank ones added): a new height would re-lay the
        # screen out while the sentence is read.
        if width not in self._pred_height:
            frames = (self._pred_lines(t) for t in range(-1, r.T))
            self._pred_height[width] = steady_height(frames, width)
        t = min(self.frame, r.T) - 1
        # Text lines, not their Group: the readout keeps each unchanged line's strips and draws
        # a new line that fits without rich's wrapping (Readout._one_line).
        lines = self._pred_lines(t)
        blank = self._pred_height[width] - wrapped_lines(lines, width)
        return lines + [Text("") for _ in range(blank)]

    def _pred_lines(self, t: int) -> list[Text]:
        """The prediction readout after word t (t = -1: nothing read yet)."""
        r = self.result
        if t < 0:
            return [Text("press space or → to read the sentence", style="dim")]
        p = "  ".join(f"P({v})={r.probs[v][t]:.3f}" for v in ("are", "is", "were", "was"))
        lines = [*forcing_lines(r.forcing), Text(f"after '{r.words[t]}' (t={t}): {p}")]
        detail = f"entropy {r.entropy[t]:.2f} bits"
        if r.right is not None:
            detail = f"rank of '{r.right}' {int(r.rank[t])}; " + detail
        lines.append(Text(detail))
        # once the verb is read the question is settled: judge the step that predicts it
        decided = t if r.verb is None else min(t, r.verb - 1)
        since = knows_from(r.probs, r.right, r.subject, decided)
        if since is not None:
            lines.append(Text(f"'{r.right}' leads since t={since} '{r.words[since]}'",
                              style="bold"))  # fmt: skip
        elif r.right is not None and r.subject is not None and decided >= r.subject:
            lines.append(Text(f"'{r.right}' not ahead of its wrong form yet", style="bold"))
        return lines

    def _units_readout(self, width: int) -> Any:
        r = self.result
        if r is None:
            return Text("")
        head = Text(f"{LABELS[r.model]}: agreement {r.accuracy:.1%} on {r.sentences} held-out "
                    "sentences", style="dim")  # fmt: skip
        rows = [head, *forcing_lines(r.forcing)]
        compact = width < 60
        for k, u in enumerate(r.units):
            line = Text(f"{k + 1}. {u.label():<6} r={u.r:+.3f}", style="bold" if k == 0 else "")
            if compact and k >= 2:
                break
            rows.append(line)
        return Group(*rows)

    def _sal_readout(self, width: int) -> Any:
        r = self.result
        if r is None:
            return Text("")
        t, clamped = self._target()
        head = f"row t={t}: after '{r.words[t]}', the logit of '{r.targets[t]}'"
        lines = [Text(head, style="bold")]
        if r.forcing is not None:
            lines.append(Text("(gradients of the intact model: no forced units)", style="dim"))
        if r.contrast is not None:
            lines.append(Text(contrast_line(r.contrast), style="bold"))
        if clamped:
            lines.append(Text(f"(saliency row clamped to {t}, the last step)", style="dim"))
        for name in SALIENCY:
            row = r.saliency[name][t, : t + 1]
            s = int(np.argmax(row)) if row.size else 0
            total = float(row.sum())
            back = float(row[: max(0, t - 1)].sum()) / total if total > 0 else 0.0
            lines.append(Text(f"{LABELS[name]}: most from '{r.words[s]}' (s={s}); "
                              f"{back:.0%} from 2+ words back"))  # fmt: skip
        return Group(*lines)

    def _sat_readout(self, width: int) -> Any:
        r = self.result
        if r is None or r.saturation is None:
            return Text("a tanh RNN has no gates to saturate", style="bold")
        sat = r.saturation
        parts = []
        for g in sat.left:
            half = int(((sat.left[g] > 0.5) | (sat.right[g] > 0.5)).sum())
            parts.append(f"{g} {half}/{len(sat.left[g])}")
        return Group(Text("saturated > half the time:"), Text("  ".join(parts), style="bold"))
