"""Beam-search tree drawn with the line API: one node per line, scrolled to keep the selection."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from seqviz.scenes.decoding import TreeRow, shown
from seqviz.ui.compat_textual import DirectLines, content_size, repaint_directly

NUMBERS = 18  # flags (3) + p(token) (7) + log P (8)
MARKERS = {
    "root": "◆",
    "pending": "○",
    "kept": "●",
    "finished": "■",
    "pruned": "✗",
    "blocked": "⊘",
}
COLORS = {
    "root": "bold #e0e0e0",
    "pending": "#ffd54f",
    "kept": "#5fd787",
    "finished": "bold #ffaf00",
    "pruned": "#6c6c6c",
    "blocked": "#d75f5f",
}
OPTIMUM = "underline #5fd7ff"  # the exact optimum's path (search=exact)
LIVE_BG = "#173b2b"
SELECTED_BG = "#3a3a78"
GREEDY = "bold #ff8c42"
BEST = "bold #ffd700"


@lru_cache(maxsize=64)
def _style(**rules: Any) -> Style:
    """A Style made once per rules: a row drew about eight, and making a Style is most of the
    cost of combining it (combinations are cached by rich)."""
    return Style(**rules)


def fmt_prob(p: float) -> str:
    """A probability in 5 characters: 0.500, 0.003, 2e-05."""
    if p >= 0.0005 or p == 0.0:
        return f"{p:.3f}"
    return f"{p:.0e}"


def fmt_logp(lp: float) -> str:
    if lp == float("-inf"):
        return "-inf"
    return f"{lp:.2f}"


class BeamTree(DirectLines, ScrollView, inherit_bindings=False, can_focus=True):
    """The decoding tree at one frame; up/down move a node cursor, p/b/g jump to nodes.

    The header line stays put while the rows scroll under it. Left/right/home/end stay the
    app's frame keys even while the tree has focus. A frame's changed rows are repainted
    straight to the screen, not one message hop later, and its lines skip Textual's line pass
    (DirectLines: the tree has no border or padding; its focus tint is a background tint, which
    that path draws as Textual's does).
    """

    TRUECOLOR = True  # markers, guides, numbers and backgrounds: hex colours or none

    JUMP = Binding.Group("jump")  # one footer hint "p b g jump": parent, best, greedy
    BINDINGS = [
        Binding("up,k", "move(-1)", "node", key_display="↑↓"),  # one footer hint for the pair
        Binding("down,j", "move(1)", "next node", show=False),
        Binding("pageup", "page(-1)", "page up", show=False),
        Binding("pagedown", "page(1)", "page down", show=False),
        Binding("p", "jump('parent')", "parent", group=JUMP),
        Binding("b", "jump('best')", "best", group=JUMP),
        Binding("g", "jump('greedy')", "greedy", group=JUMP),
        Binding("left", "app.step(-1)", "back", show=False),
        Binding("right", "app.step(1)", "step", show=False),
        Binding("home", "app.home", "start", show=False),
        Binding("end", "app.end", "end", show=False),
    ]

    DEFAULT_CSS = """
    BeamTree {
        height: 1fr;
        width: 1fr;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 0;
    }
    BeamTree:focus {
        background-tint: $accent 4%;
    }
    """

    class NodeSelected(Message):
        """The user picked node `node_id` (keys or a click)."""

        def __init__(self, node_id: int) -> None:
            super().__init__()
            self.node_id = node_id

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[TreeRow] = []
        self.selected: int | None = None
        self.greedy_path: tuple[int, ...] = ()
        self.optimum_path: tuple[int, ...] = ()
        self.best: int | None = None
        self._targets: dict[str, int] = {}
        self._strips: dict[tuple, Strip] = {}  # row key -> its strip (the rows on screen)
        self._shown: dict[int, tuple | None] = {}  # screen line -> key of the row painted there
        self._indent = 3

    # --- data in -------------------------------------------------------------------------------
    def set_tree(
        self,
        rows: list[TreeRow],
        selected: int | None,
        *,
        greedy_path: tuple[int, ...] = (),
        best: int | None = None,
        targets: dict[str, int] | None = None,
        optimum_path: tuple[int, ...] = (),
    ) -> None:
        """New rows (from scenes.decoding.tree_rows), the selected node, and the jump targets;
        `optimum_path` (the exact optimum's tokens) marks its nodes and the search error."""
        self.rows = rows
        self.selected = selected
        self.greedy_path = greedy_path
        self.optimum_path = tuple(optimum_path)
        self.best = best
        self._targets = dict(targets or {})
        relaid = self._layout()
        self._refresh_changed()
        # Scrolled after the paint, once a new layout has set the scroll limits; a selection
        # already in view needs no scroll (each frame, a message to the tree and a callback).
        if relaid or self._scroll_target() is not None:
            self.call_after_refresh(self.scroll_to_selected)

    def selected_row(self) -> int | None:
        for i, row in enumerate(self.rows):
            if row.node is not None and row.node.id == self.selected:
                return i
        return None

    # --- keys and mouse ------------------------------------------------------------------------
    def _node_rows(self) -> list[int]:
        return [i for i, r in enumerate(self.rows) if r.node is not None]

    def action_move(self, delta: int) -> None:
        rows = self._node_rows()
        if not rows:
            return
        here = self.selected_row()
        if here is None:
            target = rows[0]
        else:
            pos = rows.index(here) + delta
            target = rows[max(0, min(pos, len(rows) - 1))]
        self._pick(self.rows[target].node.id)

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self._room().height - 2))

    def action_jump(self, where: str) -> None:
        if where == "parent":
            row = self.selected_row()
            node = self.rows[row].node if row is not None else None
            if node is not None and node.parent >= 0:
                self._pick(node.parent)
            return
        target = self._targets.get(where)
        if target is not None:
            self._pick(target)

    def _pick(self, node_id: int) -> None:
        if node_id != self.selected:
            self.post_message(self.NodeSelected(node_id))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return
        index = int(self.scroll_offset.y) + offset.y - 1
        if 0 <= index < len(self.rows) and self.rows[index].node is not None:
            self._pick(self.rows[index].node.id)

    def scroll_to_selected(self) -> None:
        target = self._scroll_target()
        if target is not None:
            self.scroll_to(y=target, animate=False)

    def _scroll_target(self) -> int | None:
        """The scroll offset that brings the selected row into view; None if it is in view."""
        index = self.selected_row()
        if index is None:
            return None
        height = max(1, self._room().height - 1)
        top = int(self.scroll_offset.y)
        if index < top:
            return index
        if index >= top + height:
            return index - height + 1
        return None

    # --- drawing -------------------------------------------------------------------------------
    def _room(self) -> Size:
        """The size of the rows' area (``scrollable_content_region``'s) as the last layout left
        it: that property finds the tree's region by walking up to its screen, and a frame asked
        for it once per line drawn."""
        size = content_size(self)
        gutter = self.scrollbar_gutter
        return Size(max(0, size.width - gutter.width), max(0, size.height - gutter.height))

    def on_resize(self) -> None:
        self._strips.clear()
        self._shown.clear()
        self._layout()
        self.refresh()  # the indent may have changed with the width (a paint may precede this)
        self.call_after_refresh(self.scroll_to_selected)

    def _layout(self) -> bool:
        """Fit the indent and the scroll size to the rows; True if that asked for a layout."""
        width = max(1, self._room().width)
        depth = max((r.depth for r in self.rows), default=0)
        longest = max((len(r.node.text) for r in self.rows if r.node is not None), default=4)
        room = width - NUMBERS - 1 - 2 - min(longest, 12)
        self._indent = 3 if depth * 3 <= room else 2
        size = Size(width, len(self.rows) + 1)
        # Textual moves the thumb only while the scrollbar shows: a scroll clamped to 0 while
        # the tree was short left the thumb where it was when a taller tree showed it again.
        if self.is_mounted and self.vertical_scrollbar.position != self.scroll_y:
            self.vertical_scrollbar.position = self.scroll_y
        if size == self.virtual_size:
            return False
        # The widget's own size does not depend on its rows (1fr), so a new number of rows
        # needs no layout of the screen unless the scrollbar appears or goes: only the
        # scrollbar's length and the scroll limit change (a layout pass cost a frame ~70 ms).
        room_y = self.container_size.height
        if (
            self.is_mounted
            and room_y
            and (size.height > room_y) == (self.virtual_size.height > room_y)
        ):
            self.set_reactive(BeamTree.virtual_size, size)
            self._scroll_update(size)
            # The thumb's new length goes to the screen with this frame's rows: Textual's
            # refresh of the scrollbar would reach the screen one message hop later.
            if self.show_vertical_scrollbar:
                repaint_directly(self.vertical_scrollbar)
            return False
        self.virtual_size = size
        return True

    def _key(self, index: int, width: int) -> tuple:
        """Everything a row's strip depends on (equal keys draw equal strips)."""
        row = self.rows[index]
        node = row.node
        if node is None:
            return (row, width)
        greedy = self.greedy_path
        on_greedy = (
            node.depth > 0 and len(node.tokens) <= len(greedy)
            and greedy[: len(node.tokens)] == node.tokens
        )  # fmt: skip
        return (row, node.id == self.selected, node.id == self.best, on_greedy, self._indent,
                width, self._on_optimum(node))  # fmt: skip

    def _on_optimum(self, node: Any) -> bool:
        opt = self.optimum_path
        return 0 < len(node.tokens) <= len(opt) and opt[: len(node.tokens)] == node.tokens

    def _refresh_changed(self) -> None:
        """Repaint only the screen lines whose row differs from the one painted there."""
        if not self.is_mounted or not self._shown:
            self.refresh()
            return
        width, height = self._room()
        top = int(self.scroll_offset.y)
        keys: dict[tuple | None, None] = {}
        changed = []
        for y in range(1, height):
            index = top + y - 1
            key = self._key(index, width) if 0 <= index < len(self.rows) else None
            keys[key] = None
            if self._shown.get(y, ()) != key:
                changed.append(Region(0, y, width, 1))
        if changed:
            self.refresh(*changed)
        # keep only the strips still on screen (a later frame often shows the same rows)
        self._strips = {key: strip for key, strip in self._strips.items() if key in keys}

    def render_line(self, y: int) -> Strip:
        width = self._room().width
        if y == 0:
            return self._header(width)
        index = int(self.scroll_offset.y) + y - 1
        if not 0 <= index < len(self.rows):
            self._shown[y] = None
            return Strip.blank(width)
        key = self._key(index, width)
        self._shown[y] = key
        strip = self._strips.get(key)
        if strip is None:
            strip = self._row_strip(self.rows[index], width)
            self._strips[key] = strip
        return strip

    def _header(self, width: int) -> Strip:
        style = _style(color="#9e9e9e", bold=True)
        left = " token"
        right = "p(tok)".rjust(10) + "log P".rjust(8)
        text = left + " " * max(0, width - len(left) - len(right)) + right
        return Strip([Segment(text[:width], style)], min(width, len(text))).extend_cell_length(
            width
        )

    def _row_strip(self, row: TreeRow, width: int) -> Strip:
        node = row.node
        selected = node is not None and node.id == self.selected
        bg = SELECTED_BG if selected else (LIVE_BG if row.live else None)
        base = _style(bgcolor=bg)
        dim = row.status == "pruned"
        segs: list[Segment] = [
            Segment("▸" if selected else " ", _style(color="#ffd54f", bold=True) + base)
        ]
        step = self._indent
        guide = _style(color="#5f5f87") + base
        for more in row.guides:
            segs.append(Segment(("│" if more else " ").ljust(step), guide))
        if row.depth > 0:
            segs.append(Segment(("└" if row.last else "├") + "─" * (step - 2) + " ", guide))
        color = Style.parse(COLORS.get(row.status, "")) + base
        if node is None:
            verb = "candidates" if row.status == "pending" else "pruned"
            text = f"⋯ {row.folded} more {verb} (p ≤ {fmt_prob(row.folded_max)})"
            segs.append(Segment(text, _style(color="#6c6c6c", italic=True) + base))
            return self._finish(segs, [], width, base)
        segs.append(Segment(MARKERS.get(row.status, "?") + " ", color))
        token_style = _style(color="#6c6c6c") if dim else _style(bold=row.live or selected)
        if row.status == "finished":
            token_style = Style.parse(COLORS["finished"])
        on_opt = self._on_optimum(node)
        if on_opt:
            token_style = token_style + Style.parse(OPTIMUM)
        segs.append(Segment(shown(node.text), token_style + base))
        if on_opt and row.status == "pruned":  # the beam dropped a prefix of the optimum
            segs.append(Segment(" search error", _style(color="#ff5f5f", bold=True) + base))
        elif node.note and row.status in ("blocked", "pruned", "kept", "finished"):
            segs.append(Segment(f" {node.note}", _style(color="#d75f5f", italic=True) + base))
        if row.rank is not None:
            segs.append(Segment(f" #{row.rank}", Style.parse(COLORS["pending"]) + base))
        flag_best = node.id == self.best
        on_greedy = (
            node.depth > 0
            and len(node.tokens) <= len(self.greedy_path)
            and self.greedy_path[: len(node.tokens)] == node.tokens
        )
        num_style = _style(color="#6c6c6c" if dim else "#d0d0d0") + base
        right = [
            Segment(" ★" if flag_best else "  ", Style.parse(BEST) + base),
            Segment("g" if on_greedy else " ", Style.parse(GREEDY) + base),
            Segment("" if node.depth == 0 else fmt_prob(node.token_prob).rjust(7), num_style),
            Segment(fmt_logp(node.logprob).rjust(8 if node.depth else 15), num_style),
        ]
        return self._finish(segs, right, width, base)

    @staticmethod
    def _finish(left: list[Segment], right: list[Segment], width: int, base: Style) -> Strip:
        """Left part cut to fit, padding, right part flush right: one Strip of `width` cells."""
        right_len = sum(cell_len(s.text) for s in right)
        if right_len > width:
            right, right_len = [], 0
        room = width - right_len
        out: list[Segment] = []
        used = 0
        for seg in left:
            n = cell_len(seg.text)
            if used + n > room:
                seg = Segment(set_cell_size(seg.text, room - used), seg.style)
                n = room - used
            out.append(seg)
            used += n
            if used >= room:
                break
        if used < room:
            out.append(Segment(" " * (room - used), base))
        out.extend(right)
        return Strip(out, width)

    def row_text(self, index: int) -> str:
        """Plain text of one row (for tests and screen readers)."""
        width = max(40, self._room().width)
        return "".join(s.text for s in self._row_strip(self.rows[index], width)).rstrip()
