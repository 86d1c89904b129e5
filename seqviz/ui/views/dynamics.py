"""View of the dynamics scene: a phase portrait with fixed points and key pulses; the chaos map."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical

from seqviz.dynamics.fixedpoints import q_text
from seqviz.scenes.dynamics import PULSE, ChaosResult, PhaseResult, edge, nearest_point
from seqviz.ui.views.base import Panel, SceneView
from seqviz.ui.widgets.colormap import diverging, log_magnitude, symmetric_limit
from seqviz.ui.widgets.legend import ColorLegend
from seqviz.ui.widgets.phase import GridMap, PhasePortrait
from seqviz.ui.widgets.readout import Readout, sci

TRAILS = 4  # key-pulse paths kept on screen
SETTLE = 60  # steps run after a key pulse, with zero input, to show where the state settles
KEYS = "uio"  # +1 pulse on input 1, 2, 3
NEG_KEYS = "jkl"  # -1 pulse
PHASE_CAPTION = (
    "Dots: the run; arrows: the flow with no input; filled: stable points, hollow: saddles with "
    "their unstable direction. Keys u i o / j k l fire +1 / -1 pulses."
)
PHASE_SHORT = "u i o / j k l: +1/-1 pulses · ● stable · ○ saddle"


def _signs(values: np.ndarray) -> str:
    return " ".join("0" if abs(v) < 0.05 else "+" if v > 0 else "-" for v in values)


class DynamicsView(SceneView):
    """Phase modes: frame k draws the run's first k steps; pulses add a live trail on top."""

    SCOPED_CSS = False

    DEFAULT_CSS = """
    DynamicsView #dyn-phase, DynamicsView #dyn-chaos {
        height: 1fr;
    }
    DynamicsView #dyn-chaos {
        display: none;
    }
    DynamicsView.-chaos #dyn-chaos {
        display: block;
    }
    DynamicsView.-chaos #dyn-phase {
        display: none;
    }
    DynamicsView #dyn-portrait-panel {
        width: 2fr;
    }
    DynamicsView #dyn-points-panel {
        width: 1fr;
    }
    DynamicsView #dyn-maps {
        height: 1fr;
    }
    DynamicsView #dyn-chaos-panel {
        height: auto;
        max-height: 8;
    }
    .-compact DynamicsView #dyn-points-panel {
        width: 34;
    }
    .-compact DynamicsView #dyn-chaos-panel {
        max-height: 5;
    }
    """

    BINDINGS = [
        Binding("u", "pulse(0, 1)", "pulse", key_display="uio/jkl"),
        Binding("i", "pulse(1, 1)", "pulse 2", show=False),
        Binding("o", "pulse(2, 1)", "pulse 3", show=False),
        Binding("j", "pulse(0, -1)", "pulse -1", show=False),
        Binding("k", "pulse(1, -1)", "pulse -2", show=False),
        Binding("l", "pulse(2, -1)", "pulse -3", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.live: np.ndarray | None = None  # (d,) the state after the last key pulse
        self.pulses: list[str] = []  # the key pulses fired since the last result
        self._trails: list[np.ndarray] = []  # (n, 2) paths of the last few pulses

    def compose(self) -> ComposeResult:
        with Horizontal(id="dyn-phase"):
            yield Panel(
                "phase portrait",
                PHASE_CAPTION,
                PhasePortrait(id="dyn-portrait"),
                short=PHASE_SHORT,
                id="dyn-portrait-panel",
            )
            yield Panel(
                "fixed points",
                "q = |F(h) - h|^2 / 2; |λ| > 1: an unstable direction.",
                Readout(id="dyn-now"),  # changes each frame: its few lines repaint alone
                Readout(id="dyn-points"),
                short="q and top |λ|",
                id="dyn-points-panel",
            )
        with Vertical(id="dyn-chaos"):
            with Horizontal(id="dyn-maps"):
                yield Panel(
                    "λ_max (rows: ρ, columns: input scale)",
                    "Red: λ_max > 0, nearby states fly apart (chaos). Blue: they "
                    "converge. ◇ marks the first red cell of each column.",
                    GridMap(id="dyn-lyap"),
                    ColorLegend(id="dyn-lyap-legend"),
                    short="red: chaos (λ_max > 0), blue: order",
                    id="dyn-lyap-panel",
                )
                yield Panel(
                    "|dL/dh| 30 steps back (same grid)",
                    "Bright: the gradient grows over 30 steps; dark: it vanishes. The "
                    "boundary follows λ_max = 0.",
                    GridMap(id="dyn-grad"),
                    ColorLegend(id="dyn-grad-legend"),
                    short="bright: exploding, dark: vanishing",
                    id="dyn-grad-panel",
                )
            yield Panel(
                "the edge of chaos", "", Readout(id="dyn-chaos-readout"), id="dyn-chaos-panel"
            )

    def on_mount(self) -> None:
        self.query_one(PhasePortrait).focus()

    def cited_plots(self) -> tuple[str, ...]:
        """The chaos map's Lyapunov grid, else the phase portrait."""
        return ("dyn-lyap",) if self.has_class("-chaos") else ("dyn-portrait",)

    # --- the app's interface ---------------------------------------------------------------
    def show_result(self, result: Any) -> None:
        super().show_result(result)
        self.live, self.pulses, self._trails = None, [], []
        chaos = isinstance(result, ChaosResult)
        self.set_class(chaos, "-chaos")
        # The chaos map hides the portrait: it must not keep the keys (the app then focuses
        # the parameter at once; CSS display alone applies only at the next refresh).
        self.query_one(PhasePortrait).can_focus = not chaos
        if chaos:
            self._show_chaos(result)
            return
        pic = result.portrait
        labels = pic.projection.labels
        if result.mode == "flipflop":
            labels = tuple(f"{a} ({s:.0%})" for a, s in zip(labels, result.shares, strict=True))
        self.query_one(PhasePortrait).set_picture(
            pic.bounds, pic.flow, pic.trajectory, pic.points, pic.kinds, pic.directions, labels
        )  # type: ignore[arg-type]
        self.query_one("#dyn-now", Readout).set_builder(self._now_readout)
        self.query_one("#dyn-points", Readout).set_builder(self._points_table)

    def show_frame(self, frame: int) -> None:
        super().show_frame(frame)
        r = self.result
        if r is None:
            return
        if isinstance(r, ChaosResult):
            self.query_one("#dyn-lyap", GridMap).set_upto(frame)
            self.query_one("#dyn-grad", GridMap).set_upto(frame)
            return
        self.query_one(PhasePortrait).set_upto(frame)
        if self.live is None:
            self.query_one("#dyn-now", Readout).rebuild()

    def frame_label(self, frame: int) -> str:
        r = self.result
        if r is None:
            return ""
        if isinstance(r, ChaosResult):
            return f"radii {frame}/{r.grid.rhos.size}"
        return f"run: step {frame}/{r.T}"

    # --- pulses ----------------------------------------------------------------------------
    def current_state(self) -> np.ndarray | None:
        r = self.result
        if not isinstance(r, PhaseResult):
            return None
        if self.live is not None:
            return self.live
        return r.states[max(0, min(self.frame, r.T) - 1)] if self.frame > 0 else r.states[0]

    def action_pulse(self, channel: int, sign: int) -> None:
        """Fire one input pulse, then run SETTLE steps without input: the state falls into the
        attractor the pulse sends it to."""
        from seqviz.core import forward

        r = self.result
        start = self.current_state()
        if not isinstance(r, PhaseResult) or start is None:
            return
        n_in = r.params.input_size
        if channel >= n_in:
            self.notify(f"this network has {n_in} inputs; keys {KEYS[:n_in]} / {NEG_KEYS[:n_in]}")
            return
        x = np.zeros((SETTLE + 1, n_in))
        x[0, channel] = sign * PULSE[r.mode]
        h, _ = forward(r.params, x, h0=start)
        self.live = h[-1]
        self.pulses.append(("+" if sign > 0 else "-") + str(channel + 1))
        proj = r.portrait.projection
        trail = proj(np.vstack([start[None], h]))
        # The last few jumps stay drawn, separated by a NaN row (a break in the path).
        self._trails = [*self._trails[-(TRAILS - 1) :], trail]
        gap = np.full((1, 2), np.nan)
        paths = np.vstack([row for t in self._trails for row in (t, gap)])
        self.query_one(PhasePortrait).set_live(paths, trail[-1])
        self.query_one("#dyn-now", Readout).rebuild()

    # --- readouts --------------------------------------------------------------------------
    def _now_readout(self, width: int) -> Any:
        """How many fixed points of each kind, and where the state is now."""
        r = self.result
        if not isinstance(r, PhaseResult):
            return Text("")
        h = self.current_state()
        fixed = r.fixed
        n_st, n_sa = len(fixed.stable), len(fixed.saddles)
        n_un = len(fixed.points) - n_st - n_sa
        head = Text()
        head.append(f"{n_st} stable, {n_sa} saddles\n", style="bold")
        head.append(f"{n_un} unstable", style="bold")
        head.append(f" · from {fixed.starts} starts\n", style="dim")
        if h is not None:
            out = self._output(r, h)
            i, dist = nearest_point(r, h)
            where = "now" if self.live is None else "after " + " ".join(self.pulses[-3:])
            head.append(f"{where}: ", style="dim")
            head.append(" ".join(f"{v:+.2f}" for v in out), style="bold #3ee0e0")
            if i >= 0:
                p = fixed.points[i]
                head.append(f"\nnearest: #{i + 1} {p.kind} ({dist:.1e} away)")
        return head

    def _points_table(self, width: int) -> Any:
        """One row per fixed point (drawn once per result and width)."""
        r = self.result
        if not isinstance(r, PhaseResult):
            return Text("")
        fixed = r.fixed
        narrow = width < 38  # then: short kinds, and the state column only as signs
        table = Table(
            box=None,
            padding=(0, 1),
            pad_edge=False,
            collapse_padding=True,
            show_edge=False,
            header_style="bold",
        )
        last = "out" if r.readout is not None else "h"
        for col in ("#", "kind", "q", "|λ|", last):
            table.add_column(col, no_wrap=True, justify="right" if col in "#q|λ|" else "left")
        names = (
            {"stable": "●", "saddle": "○", "unstable": "◎"}
            if narrow
            else {"stable": "● stable", "saddle": "○ saddle", "unstable": "◎ source"}
        )
        for i, p in enumerate(fixed.points):
            kind = names[p.kind] + (str(p.n_unstable) if p.kind == "saddle" else "")
            state = self._output(r, p.h)
            shown = (
                (_signs(state).replace(" ", "") if narrow else _signs(state))
                if (r.readout is not None or narrow)
                else " ".join(f"{v:+.2f}" for v in state)
            )
            table.add_row(str(i + 1), kind, q_text(p.q), f"{abs(p.top_eigenvalue):.2f}", shown)
        return table

    @staticmethod
    def _output(r: PhaseResult, h: np.ndarray) -> np.ndarray:
        if r.readout is None:
            return h
        w, b = r.readout
        return w @ h + b

    def _show_chaos(self, r: ChaosResult) -> None:
        g = r.grid
        rows = [f"{v:.2f}" for v in g.rhos]
        cols = [f"{v:.1f}" for v in g.scales]
        marks = []
        for j in range(g.scales.size):
            pos = np.flatnonzero(g.lyap[:, j] > 0)
            if pos.size:
                marks.append((int(pos[0]), j))
        # Positive exponents are small (tenths) and negative ones large: a symmetric scale set
        # by the positive side keeps the chaotic cells visibly red.
        positive = g.lyap[np.isfinite(g.lyap) & (g.lyap > 0)]
        lim = symmetric_limit(g.lyap)
        if positive.size:  # rounded up to a tenth: the chaotic runs' last digits vary by CPU
            lim = min(lim, max(0.1, math.ceil(20.0 * float(positive.max())) / 10.0))
        lyap_map = diverging(lim)
        self.query_one("#dyn-lyap", GridMap).set_data(g.lyap, lyap_map, rows, cols, marks)
        self.query_one("#dyn-lyap-legend", ColorLegend).set_map(lyap_map, "λ_max")
        with np.errstate(divide="ignore"):
            logs = np.log10(np.abs(g.grad[np.isfinite(g.grad) & (g.grad > 0)]))
        lo, hi = (float(np.floor(logs.min())), float(np.ceil(logs.max()))) if logs.size else (0, 1)
        grad_map = log_magnitude(max(lo, hi - 24), hi)
        self.query_one("#dyn-grad", GridMap).set_data(g.grad, grad_map, rows, cols, marks)
        self.query_one("#dyn-grad-legend", ColorLegend).set_map(grad_map, "|dL/dh|")
        self.query_one("#dyn-chaos-readout", Readout).set_builder(self._chaos_readout)

    def _chaos_readout(self, width: int) -> Any:
        r = self.result
        if not isinstance(r, ChaosResult):
            return Text("")
        g = r.grid
        text = Text()
        for j in (0, int(np.argmin(np.abs(g.scales - 1.0)))):
            span = edge(r, j)
            text.append(f"input {g.scales[j]:.1f}: ", style="bold")
            if span is None:
                text.append("no sign change of λ_max over ρ\n")
                continue
            lo, hi = span
            i = int(np.flatnonzero(g.rhos == lo)[0])
            text.append(
                f"λ_max {g.lyap[i, j]:+.2g} at ρ {lo:.2f} → {g.lyap[i + 1, j]:+.2g} at ρ {hi:.2f}\n"
            )
            text.append(f"  |dL/dh| 30 steps back: {sci(g.grad[i, j])} → {sci(g.grad[i + 1, j])}\n")
        text.append(
            f"{g.rhos.size}x{g.scales.size} networks, d={g.hidden}, T={g.steps}, one "
            "W drawn once and scaled to each ρ; λ_max per step",
            style="dim",
        )
        return text
