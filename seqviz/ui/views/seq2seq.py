"""View of the seq2seq scene: encoder heatmap + context column, attention matrix, teacher forcing
against free running, and exact match by source length."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from rich.style import Style
from rich.text import Span, Text
from textual.app import ComposeResult
from textual.containers import Vertical

from seqviz.ui.views.base import Panel, SceneView
from seqviz.ui.widgets.colormap import diverging, sequential
from seqviz.ui.widgets.plots import SeriesPlot
from seqviz.ui.widgets.readout import Readout, steady_height, wrapped_lines
from seqviz.ui.widgets.series import PlotLegend, Series

ATTN_COLOR = (90, 200, 120)
CURVE_TITLE = "exact match by source length (held-out, `seqviz run bottleneck`)"
CURVE_CAPTION = "Sentences translated exactly, per length bucket, greedy decoding."
CURSE_TITLE = "search errors % by log2 beam width; exact search at the right (`run beam-curse`)"
CURSE_CAPTION = "Share of held-out sentences whose beam output scores below the exact optimum."
CURSE_COLORS = ((95, 215, 255), (255, 175, 0), (94, 201, 98), (215, 95, 95))
BOTTLENECK_COLOR = (255, 120, 90)
HALF = "▀"
STATE_CMAP = diverging(1.0)
WEIGHT_CMAP = sequential(0.0, 1.0)
LABEL_LINES = 4  # letters of each source word written downwards under its column
BAD = "bold #ff6b6b"


def _binned(cols: list[np.ndarray | None], units: np.ndarray) -> list[np.ndarray | None]:
    """(units,) colour bins per column (None: not shown), binned at once (per value it cost a
    frame 40 ms)."""
    return [None if col is None else STATE_CMAP.bins(np.asarray(col)[units]) for col in cols]


def _half_block_lines(binned: list[np.ndarray | None], n_units: int, cw: int) -> list[Text]:
    """Binned columns as half-block cells: each line shows two units (top and bottom). Built
    from its characters and spans at once: as appending each cell draws, at a tenth the cost."""
    lines = []
    for r in range(0, n_units, 2):
        parts, spans, pos = [], [], 0
        for bins in binned:
            if bins is None:
                parts.append(" " * cw)
            else:
                bottom = int(bins[r + 1]) if r + 1 < n_units else None
                parts.append(HALF * cw)
                spans.append(Span(pos, pos + cw, _half_style(int(bins[r]), bottom)))
            pos += cw
        lines.append(Text("".join(parts), spans=spans))
    return lines


@functools.lru_cache(maxsize=256)
def _weight_style(b: int) -> Style:
    return Style(bgcolor=WEIGHT_CMAP.color(b))


@functools.lru_cache(maxsize=1024)
def _half_style(top: int, bottom: int | None) -> Style:
    bg = None if bottom is None else STATE_CMAP.color(bottom)
    return Style(color=STATE_CMAP.color(top), bgcolor=bg)


def _vertical_labels(words: tuple[str, ...], cw: int, prefix: int, current: int | None = None,
                     n_lines: int = LABEL_LINES) -> list[Text]:  # fmt: skip
    """Each word written top-down under its column (first letters only)."""
    out = []
    for k in range(n_lines):
        letters = "".join((w[k] if k < len(w) else " ").ljust(cw) for w in words)
        spans = []
        if current is not None and 0 <= current < len(words):
            start = prefix + current * cw
            spans.append(Span(start, start + cw, "bold #ffd54f"))
        out.append(Text(" " * prefix + letters, spans=spans))
    return out


def _rows_for(d: int, lines: int) -> np.ndarray:
    """Units shown: all of them if they fit in `lines` half-block lines, else evenly spaced."""
    n = min(d, 2 * lines)
    return np.unique(np.linspace(0, d - 1, n).round().astype(int))


ATTN_CAPTION = (
    "Each row is where the decoder looked while writing that word; the current row is marked."
)


def verb_caption(result: Any) -> tuple[str, str]:
    """(long, short) captions: what a row is, and where the target verb's attention row peaks,
    computed from the rows shown ("The verb is written last but read from the middle" was said
    of a row that peaked on another word)."""
    from seqviz.tasks.translation import INTRANSITIVE, TRANSITIVE

    attn, out, src = result.attn, list(result.output), list(result.source)
    stems = (*TRANSITIVE.values(), *INTRANSITIVE.values())
    verbs = [t for t, w in enumerate(out) if any(w in (s + "a", s + "an") for s in stems)]
    if attn is None or not verbs or not src or not np.all(np.isfinite(attn[verbs[-1]])):
        return ATTN_CAPTION, ATTN_SHORT
    t = verbs[-1]
    row = attn[t]
    peak = int(np.argmax(row))
    last = " (written last)" if t == len([w for w in out if w != "</s>"]) - 1 else ""
    fact = f"The verb {out[t]!r}{last} peaks on {src[peak]!r} ({row[peak]:.3f})"
    short = f"verb {out[t]!r} → {src[peak]!r} {row[peak]:.3f}"
    source_verbs = [j for j, w in enumerate(src) if w in TRANSITIVE or w in INTRANSITIVE]
    if source_verbs and source_verbs[0] != peak:
        j = source_verbs[0]
        fact += f"; the source verb {src[j]!r} gets {row[j]:.3f}"
        short += f", {src[j]!r} {row[j]:.3f}"
    elif source_verbs:
        fact += ", the source verb itself"
    return f"Rows: where the decoder looked for each word. {fact}.", short


ATTN_SHORT = "where each output word looked in the source"
CONTEXT_CAPTION = (
    "This model has no attention: every output word is decoded from the one context "
    "vector the encoder left behind, drawn as a single column."
)
CONTEXT_SHORT = "no attention: one context column for every word"


class _FittedPanel(Panel):
    """A panel whose readout fits its size: every change of that size redraws the readout."""

    def on_resize(self) -> None:
        view = next((a for a in self.ancestors if isinstance(a, Seq2SeqView)), None)
        if view is not None:
            view.panel_resized(self.query_one(Readout).id or "")


class Seq2SeqView(SceneView):
    """Frames 1..S reveal the encoder word by word; frames S+1..S+T the decoder steps."""

    SCOPED_CSS = False

    DEFAULT_CSS = """
    Seq2SeqView {
        layout: horizontal;
    }
    Seq2SeqView #s2s-left {
        width: 1fr;
    }
    Seq2SeqView #enc-panel {
        height: auto;
    }
    Seq2SeqView #tf-panel {
        height: 1fr;
    }
    Seq2SeqView #curve-panel {
        height: 12;
    }
    Seq2SeqView #attn-panel {
        width: 1fr;
    }
    .-compact Seq2SeqView #enc-panel {
        display: none;
    }
    .-compact Seq2SeqView #curve-panel {
        display: none;
    }
    """

    def compose(self) -> ComposeResult:
        with Vertical(id="s2s-left"):
            yield Panel(
                "encoder states, word by word  |  c = h_T",
                "One column per source word (units top to bottom, blue < 0 < red); the column "
                "after the bar is c = h_T, all that the bottleneck decoder receives.",
                Readout(id="enc"),
                short="encoder states; the last column is c = h_T",
                id="enc-panel",
            )
            yield _FittedPanel(
                "teacher forcing  vs  free running",
                "Same source, two decoders: one is fed the reference word, one its own last word. "
                "Loss = -log p(reference word) at each step.",
                Readout(id="tf"),
                short="fed the reference vs fed its own words; loss per step",
                id="tf-panel",
            )
            yield Panel(
                CURVE_TITLE,
                CURVE_CAPTION,
                PlotLegend(id="curve-legend"),
                SeriesPlot(log_y=False, xlabel="source words", id="curve-plot"),
                id="curve-panel",
            )
        yield _FittedPanel(
            "attention: one row per output word, one column per source word",
            ATTN_CAPTION,
            Readout(id="attn"),
            short=ATTN_SHORT,
            id="attn-panel",
        )

    # --- results --------------------------------------------------------------------------------
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._memo: dict[Any, Any] = {}  # per result: its binned colours
        self._drawn: dict[str, Any] = {}  # readout -> what it shows now (see show_frame)

    def _per_result(self, key: Any, make: Any) -> Any:
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def show_result(self, result: Any) -> None:
        self._memo = {}
        self._drawn = {}
        super().show_result(result)
        panel = self.query_one("#attn-panel", Panel)
        if getattr(result, "attention_model", True):
            panel.border_title = "attention: one row per output word, one column per source word"
            panel.set_caption(*verb_caption(result))
        else:  # the bottleneck model has no attention rows to show
            panel.border_title = "no attention: the single context c = h_T"
            panel.set_caption(CONTEXT_CAPTION, CONTEXT_SHORT)
        if getattr(result, "curse", None) is not None:
            self._show_curse(result.curse)
            rows = ()
        else:
            rows = result.curve or ()
            self.query_one("#curve-plot", SeriesPlot).xlabel = "source words"
            panel = self.query_one("#curve-panel", Panel)
            panel.border_title = CURVE_TITLE
            panel.set_caption(CURVE_CAPTION, CURVE_CAPTION)
        if rows:
            x = np.array([(r.lo + r.hi) / 2 for r in rows], dtype=float)
            series = [
                Series(f"{name} ({100 * rows[-1].exact[name]:.0f}% at {rows[-1].lo}-"
                       f"{rows[-1].hi})", x, np.array([100 * r.exact[name] for r in rows]), color)
                for name, color in (("attention", ATTN_COLOR), ("bottleneck", BOTTLENECK_COLOR))
                if name in rows[0].exact
            ]  # fmt: skip
            self.query_one("#curve-plot", SeriesPlot).set_series(series, ylim=(0.0, 100.0))
            self.query_one("#curve-legend", PlotLegend).show_series(series)
        self.query_one("#enc", Readout).set_builder(self._enc)
        self.query_one("#tf", Readout).set_builder(self._tf)
        self.query_one("#attn", Readout).set_builder(self._attn_steady)

    def _show_curse(self, rows: Any) -> None:
        """The beam-curse plot: search-error % by log2(width), exact search one step right."""
        from seqviz.models.curse import plot_series

        series = [
            Series(label, np.array(x), np.array(y), CURSE_COLORS[i % len(CURSE_COLORS)])
            for i, (label, x, y) in enumerate(plot_series(tuple(rows)))
        ]
        panel = self.query_one("#curve-panel", Panel)
        panel.border_title = CURSE_TITLE
        panel.set_caption(CURSE_CAPTION, CURSE_CAPTION)
        plot = self.query_one("#curve-plot", SeriesPlot)
        plot.xlabel = f"log2 beam width ({int(series[0].x[-1]) if series else 7} = exact search)"
        plot.set_series(series, ylim=(0.0, 100.0))
        self.query_one("#curve-legend", PlotLegend).show_series(series)

    def show_frame(self, frame: int) -> None:
        super().show_frame(frame)
        r = self.result
        if r is None or r.error:
            return
        # What each readout's picture depends on besides the result and its width (the
        # readout redraws itself on a resize): one that cannot have changed is not rebuilt,
        # e.g. the encoder's while the decoder steps.
        step = self._step()
        drawn = {
            "enc": min(frame, r.S),
            "attn": (step, frame >= r.S, self.query_one("#attn-panel").size.height),
            "tf": (step, self.query_one("#tf-panel").size.height),
        }
        for rid, key in drawn.items():
            if self._drawn.get(rid, ()) != key:
                self._drawn[rid] = key
                self.query_one(f"#{rid}", Readout).rebuild()

    def panel_resized(self, readout: str) -> None:
        """The panel of ``readout`` ("tf" or "attn") changed size: redraw the readout, even if a
        rebuild asked for before this layout pass already recorded the new height (it drew with
        the old one). The only hook these readouts need: their panels' sizes are known only once
        the screen is laid out (a first result can be drawn before that), and change when the
        view resizes or when the encoder panel above grows with a new result (the view does
        not resize then); a resize of the view that leaves both panels as they were changes
        nothing they show."""
        self._drawn.pop(readout, None)
        if self.result is not None:
            self.show_frame(self.frame)

    def frame_label(self, frame: int) -> str:
        r = self.result
        if r is None or r.error:
            return ""
        if frame <= r.S:
            return f"encoder word {frame}/{r.S}"
        return f"decoder step {frame - r.S}/{r.T}"

    # --- panels ---------------------------------------------------------------------------------
    def _step(self, frame: int | None = None) -> int:
        """Decoder steps shown (0 while the encoder is still reading)."""
        r = self.result
        frame = self.frame if frame is None else frame
        return max(0, min(frame - r.S, r.T)) if r is not None else 0

    def _enc(self, width: int) -> Any:
        r = self.result
        if r is None or r.error:
            return Text(r.error if r is not None else "", style=BAD)
        S = r.S
        cw = 2 if 2 * S + 6 <= width else 1
        seen = min(self.frame, S)
        units = _rows_for(r.enc_h.shape[1], 8)
        columns = self._per_result("enc", lambda: _binned(list(r.enc_h[:S]), units))
        context = self._per_result("context", lambda: _binned([r.context], units))
        left = _half_block_lines(columns[:seen] + [None] * (S - seen), len(units), cw)
        right = _half_block_lines(context if seen >= S else [None], len(units), 2)
        lines = [a + Text(" │ ") + b for a, b in zip(left, right, strict=True)]
        labels = _vertical_labels(r.source, cw, 0, seen - 1 if seen < S else None)
        labels[0].append(" │ c")
        note = Text(f"{len(units)} of {r.enc_h.shape[1]} units shown; "
                    f"|c| = {np.linalg.norm(r.context):.2f}"
                    + ("; this encoder reads the source backwards" if r.reverse else ""),
                    style="dim")  # fmt: skip
        return [*lines, *labels, note]

    def _room(self, panel: str, used: int) -> int:
        """Lines left in a panel after `used` lines (its border and caption taken off)."""
        return max(3, self.query_one(f"#{panel}").size.height - 4 - used)

    def _attn_steady(self, width: int) -> Any:
        """The attention panel with blank lines after it up to its last frame's height (the
        output wraps, the reference and step lines appear): the readout keeps one height, so
        no frame re-lays out the screen."""
        texts = self._attn(width)
        r = self.result
        if not isinstance(texts, list) or r is None:
            return texts
        panel = self.query_one("#attn-panel").size.height  # the bottleneck's column fits it
        last = self._per_result(
            ("attn lines", width, panel),
            lambda: steady_height([self._attn(width, r.S + r.T)], width),
        )
        return texts + [Text("") for _ in range(last - wrapped_lines(texts, width))]

    def _attn(self, width: int, frame: int | None = None) -> Any:
        """The attention panel at ``frame`` (default: the frame shown)."""
        r = self.result
        if r is None or r.error:
            return Text(r.error if r is not None else "", style=BAD)
        frame = self.frame if frame is None else frame
        t_now = self._step(frame)
        top = [Text(f"{r.label}", style="bold")]
        rows = r.curve or ()
        if rows and "attention" in rows[-1].exact:
            last = rows[-1]
            top.append(Text(
                f"exact match at {last.lo}-{last.hi} words: attention "
                f"{100 * last.exact['attention']:.0f}%, bottleneck "
                f"{100 * last.exact['bottleneck']:.0f}%", style="dim"))  # fmt: skip
        top.append(Text(f"output: {' '.join(r.output[:t_now])}", style="bold"))
        if r.reference is not None and t_now >= r.T:
            ok = tuple(r.output) == tuple(r.reference)
            top.append(Text("= the reference translation" if ok else
                            f"reference: {' '.join(r.reference)}",
                            style="#5ec962" if ok else BAD))  # fmt: skip
        out = list(top)
        if not r.attention_model or r.attn is None:
            out.append(
                Text(
                    "No attention here: every output word is decoded from the same "
                    "single context c = h_T, drawn as one column:",
                    style="italic",
                )
            )
            lines = max(2, min(12, self._room("attn-panel", len(out) + 3)))
            units = _rows_for(r.context.shape[0], lines)
            context = self._per_result(("context", lines), lambda: _binned([r.context], units))
            for line in _half_block_lines(context if frame >= r.S else [None], len(units), 4):
                out.append(Text("  ") + line)
            out.append(Text(f"{len(units)} of its {r.context.shape[0]} numbers shown, for "
                            f"{r.S} source words", style="dim"))  # fmt: skip
            return out
        label_w = min(10, max(len(w) for w in r.output) + 2)
        cw = 2 if label_w + 2 * r.S <= width else 1
        cur = t_now - 1
        weights = self._per_result("attn", lambda: WEIGHT_CMAP.bins(r.attn).tolist())
        for t in range(len(r.output)):
            mark = "▸" if t == cur else " "
            label = f"{mark}{r.output[t][: label_w - 2]:<{label_w - 1}}"
            spans = []
            if t < t_now:  # one cell per source word, coloured by its weight
                spans = [Span(len(label) + j * cw, len(label) + (j + 1) * cw, _weight_style(b))
                         for j, b in enumerate(weights[t])]  # fmt: skip
                label += " " * (cw * len(weights[t]))
            out.append(Text(label, style="bold #ffd54f" if t == cur else "", spans=spans))
        j_star = int(np.argmax(r.attn[cur])) if cur >= 0 else None
        out += _vertical_labels(r.source, cw, label_w, j_star)
        if cur >= 0 and j_star is not None:
            out.append(Text(
                f"step {t_now}: {r.output[cur]!r} looks most at {r.source[j_star]!r} "
                f"(weight {r.attn[cur, j_star]:.2f})"))  # fmt: skip
        return out

    def _tf(self, width: int) -> Any:
        r = self.result
        if r is None or r.error:
            return Text("")
        if r.forced is None or r.free is None:
            return Text(
                "The source is not a sentence of the task's grammar, so there is no "
                "reference translation to feed or to score against.",
                style="italic",
            )
        f, g = r.forced, r.free
        n = max(len(f.outputs), len(g.outputs))
        summary = self._tf_summary(r)
        fed = width >= 64  # narrow: the fed word is the previous row's word anyway
        w = max(5, min(10, (width - 12) // 4 if fed else (width - 18) // 2))
        part = (2 * w + 7) if fed else (w + 6)
        head = Text(f"{'t':>2} ", style="bold")
        for _ in (f, g):
            head.append((f"{'fed':<{w}} " if fed else "") + f"{'out':<{w}} {'loss':>5}")
            head.append(" | " if _ is f else "")
        title = Text(f"{'':>2} {'teacher forcing':<{part}} | free running", style="bold")
        ref = r.reference or ()
        room = self._room("tf-panel", len(summary) + 2)
        cur = self._step()
        last = max(cur, 1)
        first = max(0, min(last, n) - room)
        lines = []
        for t in range(first, min(n, first + room)):
            line = Text(f"{t + 1:>2} ", style="bold #ffd54f" if t + 1 == cur else "",
                        no_wrap=True, overflow="crop")  # fmt: skip
            for d in (f, g):
                if t < len(d.outputs):
                    want = ref[t] if t < len(ref) else None
                    style = "" if d.outputs[t] == want else BAD
                    if d is g and t + 1 == r.force_step:
                        style = "bold reverse #ff6b6b"
                    loss = d.loss[t] if t < len(d.loss) else np.nan
                    if fed:
                        line.append(f"{d.inputs[t][:w]:<{w}} ")
                    line.append(f"{d.outputs[t][:w]:<{w}}", style)
                    line.append(f" {loss:5.2f}" if np.isfinite(loss) else f" {'-':>5}")
                else:
                    line.append(" " * part)
                if d is f:
                    line.append(" | ")
            lines.append(line)
        return [*summary, title, head, *lines]

    @staticmethod
    def _tf_summary(r: Any) -> list[Text]:
        f, g, ref = r.forced, r.free, r.reference
        wrong_f = sum(a != b for a, b in zip(f.outputs, ref, strict=False))
        wrong_g = sum(a != b for a, b in zip(g.outputs, ref, strict=False))
        wrong_g += abs(len(g.outputs) - len(ref))
        out = [
            Text(f"teacher forcing: mean loss {np.nanmean(f.loss):.3f}, {wrong_f} words wrong"),
            Text(f"free running:    mean loss {np.nanmean(g.loss):.3f}, {wrong_g} words wrong"),
        ]
        k = r.force_step
        if k and k <= len(g.outputs):
            after = list(range(k, min(len(g.outputs), len(ref))))
            carried = sum(g.outputs[i] != ref[i] for i in after)
            tail, tf_tail = g.loss[k : len(ref)], f.loss[k : len(ref)]
            fin = np.isfinite(tail)
            fr = float(np.mean(tail[fin])) if fin.any() else float("nan")
            tf = float(np.mean(tf_tail)) if len(tf_tail) else float("nan")
            out.append(Text(
                f"forced error at step {k}: free running then got {carried} of the next "
                f"{len(after)} words wrong; mean loss after it {fr:.2f} (fed the reference: "
                f"{tf:.2f})", style="bold"))  # fmt: skip
            out.insert(0, out.pop())  # the forced error first: short screens keep it
        elif k:
            out.append(Text(f"step {k} is past the end of the free-running output.", style="dim"))
        return out
