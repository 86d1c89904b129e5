"""View of the tagging scene: forward and backward states, their concatenation, tags per word."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal

from seqviz.scenes.tagging import explain
from seqviz.ui.views.base import Panel, SceneView
from seqviz.ui.widgets.colormap import diverging
from seqviz.ui.widgets.heatmap import Heatmap, gutter_width
from seqviz.ui.widgets.legend import ColorLegend
from seqviz.ui.widgets.readout import Readout

TYPE_STYLE = {"PER": "bold #ffb74d", "LOC": "bold #4fc3f7", "ORG": "bold #ba68c8", "O": "#9e9e9e"}


def column_starts(n_words: int, width: int, gutter: int = 1) -> list[int]:
    """First cell of each word under a Heatmap of this width (its gutter, then x*T//W mapping)."""
    plot = max(1, width - gutter)
    return [gutter + math.ceil(t * plot / n_words) for t in range(n_words)] + [gutter + plot]


def _tag_style(tag: str) -> str:
    return TYPE_STYLE.get(tag.split("-")[-1], "")


class TaggingView(SceneView):
    """Frames 1..T: forward fills left to right while backward fills right to left; then tags."""

    CITED_PLOTS = ("tag-concat",)  # what the captions talk about (see SceneView)

    SCOPED_CSS = False

    DEFAULT_CSS = """
    TaggingView #tag-sweeps {
        height: auto;
        max-height: 50%;
    }
    TaggingView #tag-sweeps Panel {
        height: auto;
    }
    TaggingView #tag-sweeps Heatmap {
        height: auto;
    }
    TaggingView #tag-concat-panel {
        height: 1fr;
    }
    TaggingView #tag-concat {
        height: 1fr;
    }
    TaggingView #tag-readout {
        height: auto;
    }
    .-compact TaggingView #tag-concat {
        display: none;
    }
    """

    def compose(self) -> ComposeResult:
        with Horizontal(id="tag-sweeps"):
            yield Panel("forward states →", "", Heatmap(id="tag-forward"), id="tag-forward-panel")
            yield Panel("← backward states", "", Heatmap(id="tag-backward"),
                        id="tag-backward-panel")  # fmt: skip
        yield Panel(
            "concatenation and tags", "", Heatmap(id="tag-concat"), ColorLegend(id="tag-legend"),
            Readout(id="tag-readout"),
            id="tag-concat-panel",
        )  # fmt: skip

    def _layer(self) -> int:
        v = self.values or self.result.values
        return min(int(v.layer), self.result.layers - 1)

    def show_result(self, result: Any) -> None:
        super().show_result(result)
        self._draw_layer()
        self.query_one("#tag-readout", Readout).set_builder(self._readout)
        self.show_frame(self.frame)

    def _draw_layer(self) -> None:
        r = self.result
        layer = self._layer()
        d = r.forward[layer].shape[1]
        cmap = diverging(1.0)
        fwd = self.query_one("#tag-forward-panel", Panel)
        fwd.border_title = f"forward states →  layer {layer} of {r.layers}, {d} units"
        fwd.set_caption("Reads left to right: the state at a word has seen only the words "
                        "before it and itself.", "left to right")  # fmt: skip
        self.query_one("#tag-forward", Heatmap).set_data(r.forward[layer].T, cmap)
        back = self.query_one("#tag-backward-panel", Panel)
        back_map = self.query_one("#tag-backward", Heatmap)
        if r.bidirectional:
            back.border_title = f"← backward states  layer {layer}, {d} units"
            back.set_caption("Reads right to left: the state at a word has seen every word "
                             "after it.", "right to left")  # fmt: skip
            back_map.set_data(r.backward[layer].T, cmap)
        else:
            back.border_title = "← backward states: none"
            back.set_caption("This tagger reads left to right only: at each word it knows "
                             "nothing of the words to its right.", "no backward pass")  # fmt: skip
            back_map.clear()
        concat = r.concatenated(layer)
        panel = self.query_one("#tag-concat-panel", Panel)
        what = "[forward; backward]" if r.bidirectional else "forward only"
        above = "the tags" if layer == r.layers - 1 else f"layer {layer + 1}"
        panel.border_title = f"{what}: {concat.shape[1]} values per word, read by {above}"
        if r.bidirectional:
            panel.set_caption(explain(r), r.network)
        else:
            panel.set_caption(
                "Red: a tag the bidirectional tagger sets differently (its tag below); the "
                "reason follows once every tag is in.", r.network,
            )  # fmt: skip
        self.query_one("#tag-concat", Heatmap).set_data(concat.T, cmap)
        self.query_one("#tag-legend", ColorLegend).set_map(cmap, "h")

    def show_values(self, values: Any) -> None:
        self.values = values
        if self.result is not None:
            self._draw_layer()
            self.show_frame(self.frame)

    def _tags_shown(self, frame: int) -> int:
        r = self.result
        return max(0, min(r.T, frame - r.T)) if r.bidirectional else min(r.T, frame)

    def show_frame(self, frame: int) -> None:
        super().show_frame(frame)
        r = self.result
        if r is None:
            return
        sweep = min(frame, r.T)
        self.query_one("#tag-forward", Heatmap).set_visible(sweep)
        self.query_one("#tag-backward", Heatmap).set_visible(sweep, from_end=True)
        concat = self._tags_shown(frame) if r.bidirectional else sweep
        self.query_one("#tag-concat", Heatmap).set_visible(concat)
        self.query_one("#tag-readout", Readout).rebuild()

    def frame_label(self, frame: int) -> str:
        r = self.result
        if r is None:
            return ""
        if r.bidirectional and frame <= r.T:
            return (
                f"sweeps {frame}/{r.T}: forward at '{r.words[max(frame - 1, 0)]}', backward "
                f"at '{r.words[max(r.T - frame, 0) if frame else -1]}'"
            )
        return f"tags {self._tags_shown(frame)}/{r.T}"

    def _readout(self, width: int) -> Any:
        r = self.result
        if r is None:
            return Text("")
        rows = r.concatenated(self._layer()).shape[1]  # the map above, labelled 0..rows-1
        starts = column_starts(r.T, width, gutter_width(width, len(str(rows - 1))))
        shown = self._tags_shown(self.frame)
        wrong = {m.index for m in r.mistakes}
        rows = [Text(" "), Text(" "), Text(" "), Text(" ")]
        for t, word in enumerate(r.words):
            cell = starts[t + 1] - starts[t]
            for row in rows:
                row.append(" " * max(0, starts[t] - len(row)))
            rows[0].append(word[: max(1, cell - 1)], style="bold")
            if t < shown:
                bad = t in wrong
                style = "bold white on #c62828" if bad else _tag_style(r.tags[t])
                rows[1].append(r.tags[t][: max(1, cell - 1)], style=style)
                rows[2].append(f"{r.probs[t]:.2f}"[: max(1, cell - 1)], style="dim")
                if bad:
                    rows[3].append(("bi " + r.reference_tags[t])[: max(1, cell - 1)],
                                   style=_tag_style(r.reference_tags[t]))  # fmt: skip
        lines: list[Any] = rows[:3] if not wrong else rows
        if shown == r.T and not r.bidirectional and r.mistakes:
            lines.append(Text(explain(r), style="italic"))
        return Group(*lines)
