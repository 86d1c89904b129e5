"""Readout: a small block of numbers, laid out for the width it gets (table or compact lines)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from io import StringIO
from typing import Any

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from seqviz.ui.compat_textual import DirectLines, content_size, refresh_lines


def sci(value: float) -> str:
    """The lesson's number format (6.5e-01); inf/nan spelled out."""
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return f"{value:.1e}"


DRAWN_CACHE = 256  # drawn line sets a keyed readout keeps
_MEASURE = Console(file=StringIO(), width=200, color_system=None)  # wraps text, draws nothing


def wrapped_lines(texts: Sequence[Text], width: int) -> int:
    """Lines ``texts`` take, one after the other, wrapped to ``width`` as a Readout draws them."""
    width = max(10, width)
    return sum(len(text.wrap(_MEASURE, width)) for text in texts)


def steady_height(frames: Iterable[Sequence[Text]], width: int) -> int:
    """The most lines any frame's texts take at ``width``: a readout padded to it keeps one
    height over the animation, so no frame re-lays the screen out."""
    return max((wrapped_lines(texts, width) for texts in frames), default=0)


def text_key(text: Text) -> tuple:
    """Everything a Text draws from: equal keys draw equal lines."""
    return (text.plain, tuple(text.spans), text.style, text.justify, text.overflow,
            text.no_wrap, text.end)  # fmt: skip


class NumberTable:
    """A readout's table of one-line cells: a bold header, one space each side of every cell,
    columns aligned left or right, each in its style.

    Drawn as Text lines, cell for cell and style for style what rich's ``Table(box=None,
    padding=(0, 1), show_edge=False, header_style="bold")`` draws for such columns when they fit
    (tests/test_latency_path.py compares the two), at about a tenth of its cost: the Table
    measured and rendered every cell, 5-8 ms per new result in the vanishing readout. A table
    wider than its room is left to rich, which knows how to shrink it.
    """

    def __init__(self) -> None:
        self.columns: list[tuple[str, str, str]] = []  # (header, justify, style)
        self.rows: list[tuple[str, ...]] = []

    def add_column(self, header: str, *, justify: str = "left", style: str = "") -> None:
        self.columns.append((header, justify, style))

    def add_row(self, *cells: str) -> None:
        self.rows.append(cells)

    def rich_table(self) -> Table:
        table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
        for header, justify, style in self.columns:
            table.add_column(header, justify=justify, no_wrap=True, style=style or None)  # type: ignore[arg-type]
        for row in self.rows:
            table.add_row(*row)
        return table

    def renderable(self, width: int) -> RenderableType:
        texts = self.texts(width)
        return self.rich_table() if texts is None else Group(*texts)

    def texts(self, width: int) -> list[Text] | None:
        """The table's lines (the header first) if it fits ``width``, else None. A readout
        given a list of lines keeps each unchanged line's strips and draws the new ones without
        rich's render pipeline (``Readout._text_lines``)."""
        widths = [
            max([cell_len(header)] + [cell_len(row[i]) for row in self.rows])
            for i, (header, _, _) in enumerate(self.columns)
        ]
        if sum(widths) + 2 * len(widths) > width:
            return None
        right = [justify == "right" for _, justify, _ in self.columns]

        def line(cells: tuple[str, ...], styles: list[str]) -> Text:
            text = Text()
            for cell, room, to_right, style in zip(cells, widths, right, styles, strict=True):
                pad = " " * (room - cell_len(cell))
                text.append(f" {pad}{cell} " if to_right else f" {cell}{pad} ", style=style)
            return text

        headers = tuple(header for header, _, _ in self.columns)
        styles = [style for _, _, style in self.columns]
        return [line(headers, ["bold"] * len(headers)), *(line(row, styles) for row in self.rows)]


class Readout(DirectLines, Widget):
    """Shows whatever ``builder(width)`` returns (a renderable, or a list of Text lines, drawn
    as their Group; each line's strips are kept while it stays the same, so a frame that
    changes a few lines draws only those); rebuilt on resize so nothing is cut off.

    The renderable is drawn once per content and width and kept as strips, which also give the
    height; so new numbers cost one Rich render, and a layout pass of the screen only when the
    number of lines changes. A builder given a ``key`` (what its output depends on besides the
    width, e.g. the frame) has its drawn lines kept per key, so a frame shown again is not drawn
    anew; a new builder forgets them. Its lines go to the screen without Textual's line pass
    (DirectLines) where that pass would not change them.
    """

    DEFAULT_CSS = """
    Readout {
        height: auto;
        width: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None, width_only: bool = False) -> None:
        """``width_only``: the builder's lines depend on the width alone (not on the height the
        readout is given), so a resize that keeps the width needs no second layout pass."""
        super().__init__(id=id)
        self._width_only = width_only
        self._builder: Callable[[int], RenderableType] = lambda width: Text("")
        self._strips: list[Strip] | None = None
        self._strips_width = 0
        self._strips_style: Any = None  # the VisualStyle the strips were drawn over
        self._key: Callable[[], Hashable] | None = None
        self._drawn: dict[Hashable, list[Strip]] = {}  # (key, width, base style) -> lines
        self._line_cache: dict[tuple, list[Strip]] = {}  # a Text line's key -> its strips
        self._line_cache_key: tuple = ()
        self._line_cache_older: dict[tuple, list[Strip]] = {}  # the build before the last's

    def set_builder(self, builder: Callable[[int], RenderableType],
                    key: Callable[[], Hashable] | None = None) -> None:  # fmt: skip
        """Show ``builder(width)``; ``key()``, if given, must change whenever the builder's
        output would (for the same width)."""
        self._builder = builder
        self._key = key
        self._drawn.clear()
        self.rebuild()

    def rebuild(self) -> None:
        """The builder's output changed (new numbers): draw it again. Only the lines that differ
        are repainted; the screen is laid out again only if the number of lines changed."""
        old, old_width = self._strips, self._strips_width
        self._strips = None
        width = content_size(self).width if self.is_mounted else 0
        if width <= 0 or old is None:
            self._relayout()
            return
        new = self._lines(width)
        if len(new) != len(old) and self._sized_by_lines():
            self._relayout()
            return
        if len(new) != len(old) or width != old_width:
            # a height set by its CSS (e.g. 1fr) is not the lines': no layout
            refresh_lines(self)
            return
        changed = [
            Region(0, y, width, 1) for y, (a, b) in enumerate(zip(old, new, strict=True)) if a != b
        ]
        if changed:
            refresh_lines(self, *changed)

    def _lines(self, width: int) -> list[Strip]:
        if width <= 0:  # squeezed to nothing: no lines (rich cannot wrap text to width 0)
            return []
        # The lines are drawn over the widget's style: a new one (a theme change) draws them anew
        # (keyed on the style itself, not the theme's name, which changes before the styles do).
        style = self.visual_style
        if self._strips is not None and self._strips_width == width and self._strips_style is style:
            return self._strips
        self._strips_style = style
        key = None if self._key is None else (self._key(), width, style.rich_style)
        if key is not None and key in self._drawn:
            self._strips, self._strips_width = self._drawn[key], width
            return self._strips
        # As Textual draws a Rich renderable in a widget (RichVisual), without a second pass.
        app = self.app
        options = app.console_options.update(highlight=False, width=width, height=None)
        out = self._builder(max(10, width))
        if isinstance(out, list):
            self._strips = self._text_lines(out, options, style.rich_style, width)
        else:
            self._strips = self._draw(out, options, style.rich_style, width)
        self._strips_width = width
        if key is not None:
            if len(self._drawn) >= DRAWN_CACHE:
                self._drawn.clear()
            self._drawn[key] = self._strips
        return self._strips

    def _draw(self, renderable: RenderableType, options: Any, base: Any, width: int) -> list[Strip]:
        segments = self.app.console.render(self.post_render(renderable, base), options)
        lines = Segment.split_and_crop_lines(segments, width, include_new_lines=False, pad=False)
        return [Strip(line) for line in lines]

    def _text_lines(self, texts: list[Text], options: Any, base: Any, width: int) -> list[Strip]:
        """A list of Texts drawn as a Group of them is, reusing the strips of the lines of the
        last two builds (a view switching between two results and back draws none anew)."""
        same = self._line_cache_key == (width, base)
        cache = self._line_cache if same else {}
        older = self._line_cache_older if same else {}
        self._line_cache_older = cache
        fresh: dict[tuple, list[Strip]] = {}
        strips: list[Strip] = []
        for text in texts:
            key = text_key(text)
            drawn = fresh.get(key) or cache.get(key) or older.get(key)
            if drawn is None:  # as one member of the Group (the widget's justify not applied)
                drawn = self._text_strips(text, options, base, width)
                if drawn is None:
                    drawn = self._draw(Group(text), options, base, width)
            fresh[key] = drawn
            strips.extend(drawn)
        self._line_cache, self._line_cache_key = fresh, (width, base)
        return strips

    def _text_strips(self, text: Text, options: Any, base: Any, width: int) -> list[Strip] | None:
        """A Text's lines as rich draws the Text alone in a Group (``_draw``; a test compares the
        two), without its render pipeline: about a fifth of the cost, and new lines each frame
        are what an animated readout draws. Rich's own wrap breaks the lines. None if the Text
        needs what only rich does (a newline, a tab, a justify, a line cropped)."""
        plain = text.plain
        justify = text.justify or options.justify or "default"
        if "\n" in plain or "\t" in plain or justify != "default" or text.end != "\n":
            return None
        console = self.app.console
        lines: Any = [text]
        if cell_len(plain) > width:  # as Text.__rich_console__ wraps it
            overflow = text.overflow or options.overflow or "fold"
            no_wrap = text.no_wrap if text.no_wrap is not None else bool(options.no_wrap)
            lines = text.wrap(console, width, justify="default", overflow=overflow, no_wrap=no_wrap)
            if any(cell_len(line.plain) > width for line in lines):
                return None
        strips = []
        add = base.__add__ if base else None
        for line in lines:
            # As Text.__rich_console__ does: a joined copy carries the line's style as a span.
            segments: Any = Text("\n").join([line]).render(console)
            if add is not None:
                segments = [Segment(part, add(style)) for part, style, _ in segments]
            strips.append(Strip(list(segments)))
        return strips

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width)) if width > 0 else 0

    def render_line(self, y: int) -> Strip:
        width = content_size(self).width
        lines = self._lines(width)
        return lines[y] if y < len(lines) else Strip.blank(width, self.visual_style.rich_style)

    def on_resize(self) -> None:
        if self._width_only and self._strips is not None and self._strips_width == self.size.width:
            # The layout that gave this height measured these very lines: laying the screen out
            # again (each new result of another height did) would change nothing.
            self.refresh()
            return
        self._strips = None
        self._relayout()

    def _sized_by_lines(self) -> bool:
        height = self.styles.height
        return height is None or height.is_auto

    def _relayout(self) -> None:
        """Lay the screen out again for this readout's new number of lines. Textual keeps a
        widget's size per a counter that a second request does not advance while the first is
        still pending; a layout pass in between (a resize's, or the first) caches the size of
        the old lines, and the second request would reuse it: a readout rebuilt for its panel's
        real height kept the height of lines drawn before that panel was laid out."""
        self._box_model_cache.clear()
        self.refresh(layout=True)
