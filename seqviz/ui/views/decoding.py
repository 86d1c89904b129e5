"""View of scene 5: the beam-search tree, greedy beside it, next-word bars, the ranking."""

from __future__ import annotations

import math
import textwrap
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.geometry import Region
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Static

from seqviz.scenes.decoding import (
    DecodingResult,
    frame_step,
    histogram_lines,
    tree_rows,
    winners,
)
from seqviz.ui.compat_textual import DirectLines, content_size
from seqviz.ui.views.base import Panel, SceneView
from seqviz.ui.widgets.beamtree import BEST, COLORS, GREEDY, MARKERS, BeamTree, fmt_prob
from seqviz.ui.widgets.distribution import DistributionBars, summary
from seqviz.ui.widgets.readout import text_key

LEGEND = (
    ("pending", "scored"),
    ("kept", "kept"),
    ("finished", "finished"),
    ("pruned", "pruned"),
)


def legend_text() -> Text:
    text = Text()
    for status, word in LEGEND:
        text.append(MARKERS[status] + " ", style=COLORS[status])
        text.append(word + " ", style="#9e9e9e")
    text.append("g", style=GREEDY)
    text.append(" greedy ", style="#9e9e9e")
    text.append("★", style=BEST)
    text.append(" best ", style="#9e9e9e")
    text.append("  ", style="on #173b2b")
    text.append(" live beam", style="#9e9e9e")
    return text


class Sized(DirectLines, Widget):
    """Draws ``builder(width, height)``; a new builder repaints only the lines that changed,
    without a layout pass (the strips are drawn as Textual draws ``render()``'s, and kept; the
    same Text again is not drawn again). Its lines skip Textual's line pass (DirectLines) and
    its repaints go to the screen at once: a first-play frame of the decoding scene draws a new
    ranking and comparison."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # Its texts hold no links: Textual's pass for links would read every segment's meta
        # (each carries its text offset, for selection) on every draw.
        self.set_reactive(Sized.auto_links, False)
        self._builder: Any = lambda width, height: Text("")
        self._lines: list[Strip] | None = None
        self._lines_key: tuple | None = None  # (size, style, the Text's key) they were drawn for

    def set_builder(self, builder: Any) -> None:
        self._builder = builder
        old, old_key = self._lines, self._lines_key
        if old is None or old_key is None or not self.is_mounted or old_key[:2] != self._size_key():
            self._lines = None
            self.refresh()
            return
        new = self._strips()
        if new is old:
            return
        width, height = old_key[0]
        blank = Strip.blank(width, self.visual_style.rich_style)
        changed = [
            Region(0, y, width, 1)
            for y in range(height)
            if (old[y] if y < len(old) else blank) != (new[y] if y < len(new) else blank)
        ]
        if changed:
            self.refresh(*changed)

    def selection_updated(self, selection: Any) -> None:
        self._lines = None
        super().selection_updated(selection)

    def render(self) -> Any:
        width, height = content_size(self)
        return self._builder(max(10, width), max(1, height))

    def _size_key(self) -> tuple:
        return (content_size(self), self.visual_style)  # the last layout's: no DOM walk

    def _strips(self) -> list[Strip]:
        """The strips for the builder now (the kept ones if it draws the same Text)."""
        content = self.render()
        key = (*self._size_key(), text_key(content) if isinstance(content, Text) else None)
        if self._lines is None or key[2] is None or key != self._lines_key:
            width, height = key[0]
            self._lines = Visual.to_strips(self, visualize(self, content), width, height,
                                           self.visual_style)  # fmt: skip
            self._lines_key = key
        return self._lines

    def render_line(self, y: int) -> Strip:
        lines = self._lines
        if lines is None or self._lines_key is None or self._lines_key[:2] != self._size_key():
            lines = self._strips()
        if y < len(lines):
            return lines[y]
        return Strip.blank(content_size(self).width, self.visual_style.rich_style)


class DecodingView(SceneView):
    """Frames 2s-1 and 2s show search step s scored and then decided (see scenes.decoding)."""

    CITED_PLOTS = ("tree",)  # what the captions talk about (see SceneView)

    SCOPED_CSS = False  # its rules follow the screen size classes (-compact, -tiny)

    DEFAULT_CSS = """
    DecodingView #dec-body {
        layout: horizontal;
        height: 1fr;
    }
    DecodingView #dec-error {
        display: none;
        height: auto;
        color: $error;
        text-style: bold;
        padding: 0 1;
    }
    DecodingView.-error #dec-error {
        display: block;
    }
    DecodingView #dec-left {
        width: 4fr;
        height: 1fr;
    }
    DecodingView #dec-right {
        width: 3fr;
        height: 1fr;
    }
    DecodingView.-narrow #dec-left, DecodingView.-narrow #dec-right {
        width: 1fr;
    }
    DecodingView #cmp-panel {
        height: auto;
    }
    DecodingView #dist-panel {
        height: 1fr;
    }
    DecodingView #rank-panel {
        height: 1fr;
        min-height: 12;
    }
    DecodingView #ranking {
        height: 1fr;
    }
    DecodingView #compare {
        height: 3;
    }
    DecodingView #dist-summary {
        height: 2;
    }
    DecodingView #tree-info, DecodingView #dist-head, DecodingView #tree-legend {
        height: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    DecodingView #tree-info, DecodingView #dist-summary {
        color: $text-muted;
    }
    .-compact DecodingView #dec-body {
        layout: vertical;
    }
    .-compact DecodingView #dec-left {
        width: 1fr;
        height: 1fr;
    }
    .-compact DecodingView #dec-right {
        width: 1fr;
        height: auto;
    }
    .-compact DecodingView #dist-panel {
        height: 9;
    }
    .-compact DecodingView #rank-panel, .-compact DecodingView #tree-legend,
    .-compact DecodingView #tree-info {
        display: none;
    }
    .-compact DecodingView #dist-summary {
        height: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    .-compact DecodingView.-ranking #dist-panel {
        display: none;
    }
    .-compact DecodingView.-ranking #rank-panel {
        display: block;
        height: 11;
        min-height: 0;
    }
    .-compact DecodingView.-short #dist-summary {
        display: none;
    }
    .-compact DecodingView.-short #dist-panel {
        height: 7;
    }
    .-compact DecodingView.-short #compare {
        height: 2;
    }
    .-compact DecodingView.-short.-ranking #rank-panel {
        height: 8;
    }
    .-tiny DecodingView #dec-right, .-tiny DecodingView #cmp-panel {
        display: none;
    }
    """

    BINDINGS = [
        Binding(
            "v", "toggle_ranking", "panel", tooltip="small screens: next-word bars or the ranking"
        ),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.selected: int = 0  # the node actually shown as selected (visible at this frame)
        self._dist_key: tuple | None = None
        self._path: tuple[int, ...] | None = None  # the selection's tokens, kept across results
        self._rows: list = []
        self._rows_key: tuple | None = None
        self._panels_key: tuple | None = None  # what the comparison and ranking show
        self._info_key: int | None = None
        self._head_key: tuple | None = None
        self._drawn_node: int | None = None  # the node parameter when _path was recorded
        self._reselect_pending = False
        self._targets: dict[str, int] = {}
        self._targets_key: tuple | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="dec-error")
        with Horizontal(id="dec-body"):
            with Vertical(id="dec-left"):
                yield Panel(
                    "greedy vs beam search",
                    "Greedy keeps the single likeliest word each step; the beam keeps several "
                    "hypotheses and compares whole sentences.",
                    Sized(id="compare"),
                    id="cmp-panel",
                )
                yield Panel(
                    "beam search tree",
                    "Every live hypothesis (green band) is extended by every word; the best "
                    "`width` candidates by total log P survive.",
                    Static("", id="tree-info"),
                    BeamTree(id="tree"),
                    Static(legend_text(), id="tree-legend"),
                    short="green: being extended · ↑↓ select · b best · g greedy",
                    id="tree-panel",
                )
            with Vertical(id="dec-right"):
                yield Panel(
                    "next word after the selected node",
                    "P(next word) at temperature T. Sampling draws only above the dashed cut "
                    "lines; the beam scores at T=1.",
                    Static("", id="dist-head"),
                    DistributionBars(id="bars"),
                    Sized(id="dist-summary"),
                    short="Sampling keeps only the words above the dashed cut lines",
                    id="dist-panel",
                )
                yield Panel(
                    "ranking of the hypotheses",
                    "norm: rank by log P / t^alpha (what beam search returns); plain: rank by "
                    "log P, which favours short sentences.",
                    Sized(id="ranking"),
                    short="norm: by log P / t^alpha · plain: by log P",
                    id="rank-panel",
                )

    def on_mount(self) -> None:
        # The comparison is self-explanatory in two lines; on small screens it gets no caption.
        self.query_one("#cmp-panel", Panel).set_short_display("none")
        self.query_one(BeamTree).focus()

    def action_toggle_ranking(self) -> None:
        """Small screens have room for one lower panel: the bars or the ranking."""
        panel = "bars" if self.has_class("-ranking") else "ranking"
        if not self._set_param("panel", panel):  # the app redraws through show_values
            self.set_class(panel == "ranking", "-ranking")

    def _set_param(self, name: str, value: Any) -> bool:
        """Set a parameter of this view's scene through the app; False outside a seqviz app.
        After a scene switch this view still handles its queued keys: those changes are dropped."""
        app: Any = self.app
        if not hasattr(app, "if_scene"):
            return False
        app.if_scene(getattr(self, "scene_name", app.scene.name), app.set_param, name, value)
        return True

    def on_resize(self, event: Any) -> None:
        # Between 120 and ~150 columns the 4:3 split leaves the ranking too narrow for its table;
        # below ~24 rows the tree needs the lines of the sampling summary and the verdict.
        self.set_class(event.size.width < 110, "-narrow")
        self.set_class(event.size.height < 24, "-short")
        # With the summary line shown it says what the cut lines leave: its row goes to a bar.
        # (Inline, as the app's stylesheet outranks this view's.)
        self.query_one("#dist-panel", Panel).set_short_display(
            None if self.has_class("-short") else "none"
        )

    # --- the app's interface -------------------------------------------------------------------
    def show_result(self, result: Any) -> None:
        super().show_result(result)
        self.set_class(getattr(self.values, "panel", "bars") == "ranking", "-ranking")
        # Every cache keyed on id(result) is dropped: a new result may get the id of one freed
        # meanwhile, and would then be shown with the old result's rows, panels or bars.
        self._dist_key = self._panels_key = self._info_key = None
        self._rows_key = self._head_key = self._targets_key = None
        error = result.error
        self.set_class(error is not None, "-error")
        self.query_one("#dec-error", Static).update(
            Text(f"⚠ {error}") if error else Text("")
        )  # fmt: skip
        self._reselect_pending = error is None and self._path is not None

    def show_values(self, values: Any) -> None:
        self.set_class(getattr(values, "panel", "bars") == "ranking", "-ranking")
        super().show_values(values)

    def show_frame(self, frame: int) -> None:
        super().show_frame(frame)
        r: DecodingResult | None = self.result
        if r is None:
            return
        if r.error is not None:
            self._show_error_state(r)
            return
        # The app may redraw a new result at the old result's frame before moving the cursor.
        frame = max(0, min(frame, 2 * r.n_steps))
        v = self.values
        s, decided = frame_step(frame)
        node_param = v.node
        if self._reselect_pending:
            self._reselect_pending = False
            if node_param == self._drawn_node:  # nobody picked another node meanwhile
                node_param = self._reselect(r)
        self.selected = self._visible_selection(r, node_param, s)
        self._drawn_node = node_param
        self._path = r.nodes[node_param].tokens if node_param in r.nodes else ()
        # A pruned node is drawn even when folded, so only then does the selection change rows.
        forced = self.selected if r.nodes[self.selected].status == "pruned" else None
        rows_key = (id(r), frame, v.pruned, forced)
        if rows_key != self._rows_key:
            self._rows_key = rows_key
            self._rows = tree_rows(r, frame, v.pruned, self.selected)
        tree = self.query_one(BeamTree)
        tree.set_tree(
            self._rows,
            self.selected,
            greedy_path=r.greedy_path(),
            best=r.final.best.id if frame >= 2 * r.n_steps and r.n_steps else None,
            targets=self._targets_at(r, s),
            optimum_path=tuple(r.exact.tokens) if r.exact is not None else (),
        )
        if self._info_key != id(r):  # the line says what the search ran with: per result
            self._info_key = id(r)
            self.query_one("#tree-info", Static).update(self._info(r), layout=False)
        # The comparison and the ranking show what the search had decided after `done` steps (a
        # scored step has decided nothing yet), and the ranking the live beam of a step that
        # stopped the search: a scored frame shows what the decided frame before it showed, and
        # neither is built again.
        done = s if decided else s - 1
        stopped = decided and s > 0 and bool(r.steps[s - 1].stop)
        panels_key = (id(r), done, stopped)
        if panels_key != self._panels_key:
            self._panels_key = panels_key
            self.query_one("#compare", Sized).set_builder(
                lambda w, h: self._compare(r, s, decided, w)
            )
            self.query_one("#ranking", Sized).set_builder(
                lambda w, h: self._ranking(r, s, decided, w, h)
            )
        self._show_distribution(r, s, decided)

    def frame_label(self, frame: int) -> str:
        r = self.result
        if r is None or r.error is not None:
            return "no tree: the model or prompt is unusable (message above)"
        s, decided = frame_step(max(0, min(frame, 2 * r.n_steps)))
        if s == 0:
            return f"step 0/{r.n_steps}: only <s>, press → to expand"
        step = r.steps[s - 1]
        if not decided:
            n = len(step.candidates)
            label = f"step {s}/{r.n_steps}: {n} candidates expanded and ranked by log P"
        else:
            label = (
                f"step {s}/{r.n_steps}: kept {len(step.kept)}, finished "
                f"{len(step.new_finished)}, pruned {len(step.pruned)}"
            )
            if step.stop:
                label += f" · stopped: {step.stop}"
        return label

    # --- selection -----------------------------------------------------------------------------
    def on_beam_tree_node_selected(self, message: BeamTree.NodeSelected) -> None:
        message.stop()
        self._select(message.node_id)

    def _select(self, node_id: int) -> None:
        self._set_param("node", node_id)  # the app redraws through show_values

    @staticmethod
    def _visible_selection(r: DecodingResult, node_id: int, s: int) -> int:
        """The node itself if it exists at step s, else its nearest ancestor that does."""
        node = r.nodes.get(node_id)
        if node is None:
            return 0
        while node.depth > s and node.parent >= 0:
            node = r.nodes[node.parent]
        return node.id

    def _reselect(self, r: DecodingResult) -> int:
        """After a recomputation, the node with the same words (or their longest prefix)."""
        by_tokens = {n.tokens: n.id for n in r.nodes.values()}
        path = self._path or ()
        while path and path not in by_tokens:
            path = path[:-1]
        target = by_tokens.get(path, 0)
        if target != self.values.node:
            self.call_later(self._select, target)
        return target

    def _targets_at(self, r: DecodingResult, s: int) -> dict[str, int]:
        key = (id(r), s)
        if key != self._targets_key:
            self._targets_key = key
            self._targets = self._find_targets(r, s)
        return self._targets

    @staticmethod
    def _find_targets(r: DecodingResult, s: int) -> dict[str, int]:
        """Where b (best so far) and g (the deepest node of greedy's path in the tree) jump."""
        targets = {}
        best = _best_so_far(r, s)
        if best is not None:
            targets["best"] = best.id
        greedy = r.greedy_path()
        node = r.root
        for tok in greedy[:s]:  # walk greedy's words down the tree while they are in it
            child = next(
                (r.nodes[c] for c in r.children.get(node.id, ()) if r.nodes[c].token == tok), None
            )
            if child is None:
                break
            node = child
        if node.depth:
            targets["greedy"] = node.id
        return targets

    # --- panels --------------------------------------------------------------------------------
    def _show_error_state(self, r: DecodingResult) -> None:
        self._panels_key = self._rows_key = self._head_key = self._info_key = None
        self.query_one(BeamTree).set_tree([], None)
        self.query_one("#tree-info", Static).update("", layout=False)
        self.query_one("#compare", Sized).set_builder(
            lambda w, h: Text("no decoding: fix the model or prompt")
        )
        self.query_one("#ranking", Sized).set_builder(lambda w, h: Text(""))
        self.query_one(DistributionBars).set_distribution(None, message="")
        self.query_one("#dist-head", Static).update("", layout=False)
        self.query_one("#dist-summary", Sized).set_builder(lambda w, h: Text(""))

    def _info(self, r: DecodingResult) -> Text:
        v = r.values
        text = Text()
        text.append(r.model_label, style="bold")
        variant = " (keep live)" if v.variant == "keep_live" else ""
        text.append(f" · width {v.width}{variant} · alpha {v.alpha:g} · max {v.max_len} · ")
        text.append(f"prompt: {r.prompt_text()}")
        if v.path.strip() and v.model != "file":
            text.append(" · model file ignored: set model to file", style="#ffaf00")
        return text

    def _compare(self, r: DecodingResult, s: int, decided: bool, width: int = 200) -> Text:
        """Greedy's sentence so far and the beam's best so far, with their probabilities."""
        done_steps = s if decided else s - 1  # a scored step has not chosen anything yet
        g_nodes = [_chosen(step) for step in r.greedy_steps[:done_steps]]
        g_node = g_nodes[-1] if g_nodes else None
        g_done = done_steps >= len(r.greedy_steps)
        b_node = _best_so_far(r, done_steps)
        b_done = done_steps >= r.n_steps
        label_w = 10
        rows = [
            ("greedy", g_node, g_done, GREEDY),
            (f"beam w={r.values.width}", b_node, b_done, BEST),
        ]
        if r.exact is not None:  # search=exact: the optimum beside them, known from the start
            rows.append(("exact", r.exact, True, "bold #5fd7ff"))
        words = [r.words(n) if n is not None and n.depth else "<s>" for _, n, _, _ in rows]
        need = max(len(w) for w in words)
        # What to drop when the panel is narrow: first the state, then log P, then cut words.
        for detail in (2, 1, 0):
            tails = [_tail(node, done, detail) for _, node, done, _ in rows]
            room = width - label_w - 2 - max(len(a) + len(b) for a, b in tails)
            if room >= need:
                break
        room = max(8, room)
        words = [w if len(w) <= room else w[: room - 1] + "…" for w in words]
        words_w = max(len(w) for w in words) + 2
        text = Text()
        for i, ((label, _, _, style), w, (numbers, state)) in enumerate(
            zip(rows, words, tails, strict=True)
        ):
            if i:
                text.append("\n")
            text.append(label.ljust(label_w), style=style)
            text.append(w.ljust(words_w), style="bold")
            text.append(numbers)
            text.append(state, style="#9e9e9e")
        if g_done and b_done and g_node is not None and b_node is not None:
            stop = r.steps[-1].stop if r.steps else None
            verdict = _compare_verdict(g_node, b_node, stop, width, r.values.alpha)
            text.append("\n" + verdict, style="italic #9e9e9e")
        return text

    def _ranking(
        self, r: DecodingResult, s: int, decided: bool, width: int = 60, height: int = 13
    ) -> Any:
        """Finished (and still live) hypotheses, by logP/t^alpha, with the plain-logP rank; above
        them, whether length normalisation changes the winner (computed from these rows)."""
        if r.samples is not None:  # samples > 0: their histogram takes the ranking's place
            hist = histogram_lines(r, max(10, width))
            return Text("\n".join(hist[: max(3, height)]), no_wrap=True, overflow="crop")
        if s == 0:
            return Text("nothing finished yet", style="#9e9e9e")
        step = r.steps[s - 1]
        finished = (
            list(step.finished) if decided else list(r.steps[s - 2].finished if s > 1 else ())
        )
        live = list(step.beam) if decided and step.stop else []
        hyps = finished + live
        if not hyps:
            return Text("nothing finished yet", style="#9e9e9e")
        alpha = r.values.alpha
        by_score = sorted(hyps, key=lambda n: (not n.finished, -n.score))
        by_logp = sorted(hyps, key=lambda n: (not n.finished, -n.logprob))
        logp_rank = {n.id: i + 1 for i, n in enumerate(by_logp)}
        text = Text(no_wrap=True, overflow="crop")  # rows are fitted; keep their spaces
        verdict, changed = _winner_verdict(r, hyps, alpha)
        lines = textwrap.wrap(verdict, max(10, width)) if verdict else []
        for line in lines:
            text.append(line + "\n", style="bold #ffaf00" if changed else "italic #9e9e9e")
        # search=exact: search vs model error; with alpha: the two length penalties' winners
        extra = [
            w
            for x in (*r.error_lines(), *r.penalty_lines(hyps))
            for w in textwrap.wrap(x, max(10, width))
        ]
        for line in extra:
            text.append(line + "\n", style="#5fd7ff")
        lines += extra
        if decided and step.stop and height >= 8:  # else the status line alone says it
            stop = textwrap.wrap(f"beam stopped at step {s}: {step.stop}", max(10, width))
            text.append("\n".join(stop) + "\n", style="#9e9e9e")
            lines += stop
        # Narrow panels get short headers, never a wrapped row.
        short = width - 30 < 16
        rank_w, plain_w, score_w = (3, 3, 6) if short else (4, 5, 7)
        hyp_w = max(6, width - (rank_w + plain_w + score_w + 14))
        norm = f"/t^{alpha:g}"
        heads = ("nrm", "pln") if short else ("norm", "plain")
        header = (
            f"{heads[0]:>{rank_w}} {heads[1]:>{plain_w}}  {'hypothesis':<{hyp_w}} "
            f"{'t':>2} {'p':>5} {norm:>{score_w}}"
        )
        text.append(header[:width], style="bold")
        room = max(1, height - 1 - len(lines))
        rows = room if len(by_score) <= room else max(1, room - 1)
        for i, n in enumerate(by_score[:rows]):
            words = r.words(n) + ("" if n.finished else " (live)")
            if len(words) > hyp_w:
                words = words[: hyp_w - 1] + "…"
            style = "bold" if i == 0 else ""
            text.append("\n")
            text.append(f"{i + 1:>{rank_w}} ", style=style)
            text.append(f"{logp_rank[n.id]:>{plain_w}}  ", style="#9e9e9e")
            score = f"{n.score:>{score_w}.{3 if score_w > 6 else 2}f}"
            line = f"{words:<{hyp_w}} {n.depth:>2} {_p(n.logprob):>5} {score}"
            text.append(line[: max(0, width - rank_w - plain_w - 3)], style=style)
        if len(by_score) > rows:
            text.append(f"\n⋯ {len(by_score) - rows} more", style="#9e9e9e")
        return text

    def _show_distribution(self, r: DecodingResult, s: int, decided: bool) -> None:
        v = self.values
        node = r.nodes[self.selected]
        if (id(r), node.id) != self._head_key:
            self._head_key = (id(r), node.id)
            head = Text()
            head.append("after ", style="#9e9e9e")
            head.append(r.path_text(node), style="bold")
            status = "root" if node.parent < 0 else node.status
            head.append(f"  (node {node.id}, {status})", style="#9e9e9e")
            self.query_one("#dist-head", Static).update(head, layout=False)
        bars = self.query_one(DistributionBars)
        ended = r.ended(node)
        marks: dict[int, str] = {}
        for kid_id in () if ended else r.children.get(node.id, ()):
            kid = r.nodes[kid_id]
            if kid.depth < s or (kid.depth == s and decided):
                marks[kid.token] = kid.status
            elif kid.depth == s:
                marks[kid.token] = "pending"
        # The bars change with the frame only through the children's markers (once the node's
        # children are decided, a frame draws nothing new there), an ended node's message with
        # the step.
        moment = (s, decided) if ended else tuple(marks.items())
        key = (id(r), node.id, v.temperature, v.top_k, v.top_p, moment)
        if key == self._dist_key:
            return
        self._dist_key = key
        if ended:
            bars.set_distribution(None, message=_ended_message(node, s, decided))
            self.query_one("#dist-summary", Sized).set_builder(lambda w, h: Text(""))
            return
        dist = r.distribution(node.id, v.temperature, v.top_k, v.top_p)
        bars.set_distribution(dist, marks)
        line = summary(dist)
        self.query_one("#dist-summary", Sized).set_builder(lambda w, h: Text(_fit_summary(line, w)))


def _fit_summary(line: str, width: int) -> str:
    """The sampling summary on one line, or broken before its arrow (never inside a part)."""
    if len(line) <= width or " → " not in line:
        return line
    head, tail = line.split(" → ", 1)
    return f"{head}\n→ {tail}"


def _compare_verdict(
    g_node: Any, b_node: Any, stop: str | None, width: int, alpha: float = 0.0
) -> str:
    """The longest of a few phrasings of greedy against beam that fits one line of `width`."""
    ratio = math.exp(b_node.logprob - g_node.logprob)
    if b_node.tokens == g_node.tokens:
        options = ["beam and greedy agree"]
    elif ratio < 1 and alpha > 0:  # only length normalisation ranks a less probable one first
        options = [
            f"beam's pick is {ratio:.2f}x as probable as greedy's: /t^{alpha:g} ranks it first",
            f"beam: {ratio:.2f}x greedy's p, first by /t^{alpha:g}",
            f"beam/greedy p: {ratio:.2f}x",
        ]
    else:
        options = [
            f"beam's sentence is {ratio:.2f}x as probable as greedy's",
            f"beam: {ratio:.2f}x as probable as greedy",
            f"beam/greedy p: {ratio:.2f}x",
        ]
    if stop:
        options = [f"{options[0]} · beam stopped: {stop}", *options]
    return next((o for o in options if len(o) <= width), options[-1])


def _winner_verdict(r: DecodingResult, hyps: list, alpha: float) -> tuple[str, bool]:
    """(sentence, whether the winner changes): plain log P's winner against logP/t^alpha's."""
    best = winners(hyps)
    if best is None:
        return "", False
    plain, norm = best
    if alpha == 0:
        return "alpha 0: plain log P decides (no length normalisation)", False
    if plain.id == norm.id:
        return f"plain log P and /t^{alpha:g} pick the same winner", False
    return (
        f"alpha {alpha:g} changes the winner: /t^{alpha:g} picks '{r.words(norm)}' "
        f"(p={_p(norm.logprob)}), plain log P '{r.words(plain)}' (p={_p(plain.logprob)})",
        True,
    )


def _ended_message(node: Any, s: int, decided: bool) -> str:
    """What is true of a node ending in </s>: finished, pruned, or not yet decided."""
    where = f"p={fmt_prob(node.token_prob)}, log P={node.logprob:.2f}"
    if node.depth == s and not decided:
        return f"</s> would end this hypothesis here ({where}); this step is still ranking it."
    if node.finished:
        return f"</s> ends this hypothesis ({where}): it is finished, nothing follows it."
    return (
        f"</s> would have ended this hypothesis ({where}), but it ranked below the kept "
        "candidates and was pruned: a pruned end has no next word."
    )


def _tail(node: Any, done: bool, detail: int) -> tuple[str, str]:
    """(numbers, state) after a sentence: detail 2 has both, 1 drops the state, 0 log P too."""
    if node is None or not node.depth:
        return "", ""
    numbers = f"p={_p(node.logprob)}" + (f"  log P={node.logprob:.2f}" if detail >= 1 else "")
    state = "done" if done else ("finished" if node.finished else "so far")
    return numbers, f"  {state}" if detail >= 2 else ""


def _chosen(step: Any) -> Any:
    """The token greedy took at this step (its only kept or finished candidate)."""
    return next(c for c in step.candidates if c.status != "pruned")


def _best_so_far(r: DecodingResult, s: int) -> Any:
    """The best finished hypothesis after step s (by score), else the most probable live one."""
    if s == 0:
        return r.root
    step = r.steps[s - 1]
    if step.finished:
        return step.finished[0]
    return step.beam[0] if step.beam else None


def _p(logprob: float) -> str:
    return fmt_prob(math.exp(logprob)) if logprob > -745 else "0"
