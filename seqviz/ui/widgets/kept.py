"""KeptLines: a widget keeps its drawn lines per what it shows, for content it shows again."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from rich.segment import Segment
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip

from seqviz.ui.compat_textual import content_size

# Characters a respelling may change (one cell each, never a break): letters, digits, a sign,
# a point. Anything else (spaces, where a line could wrap; wide or special characters) must
# stand where it stood in the drawing respelled.
SPELLED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-")


def text_shape(text: Text) -> Hashable | None:
    """What Textual draws a one-line Text from besides the characters ``SPELLED`` stands for:
    its spans, styles and the rest of its characters (None: a newline or a tab). Two Texts of
    one shape draw the same segments, of the same styles and lengths, but for those letters."""
    plain = text.plain
    if not plain.isprintable():
        return None
    form = "".join("x" if ch in SPELLED else ch for ch in plain)
    return (form, tuple(text.spans), text.style, text.justify, text.overflow, text.no_wrap,
            text.end)  # fmt: skip


def respelled(strip: Strip, old: str, new: str) -> Strip | None:
    """``strip``, a line drawn with the text ``old`` shown whole once, with ``new`` (of the
    same shape, ``text_shape``) in its place; None if the line does not show ``old`` so (cut,
    wrapped, wide characters)."""
    line = strip.text
    start = line.find(old)
    if start < 0 or line.find(old, start + 1) >= 0 or strip.cell_length != len(line):
        return None
    stop = start + len(old)
    segments = []
    x = 0
    for segment in strip:
        text, style, control = segment
        if control:
            return None
        end = x + len(text)
        a, b = max(x, start), min(end, stop)
        if a < b:
            segment = Segment(text[: a - x] + new[a - start : b - start] + text[b - x :], style)
        segments.append(segment)
        x = end
    return Strip(segments, strip.cell_length)


class KeptLines:
    """Mixin (before the Widget class): ``render_lines`` keeps its lines per ``kept_key()`` (what
    the widget shows), the crop, the size and the widget's style, for the ``KEEP`` keys shown last.

    A view that switches between two contents (e.g. the gates scene's legends and captions for
    an LSTM and a GRU) then draws each only once: Textual's own line cache is emptied with every
    refresh. The style is in the key, so a theme change draws anew; so are the style rules of
    the widget and its containers (a border's colour is not in the widget's text style).
    """

    # a drawing per model of the gates scene's six, walked with + (four: each was drawn anew)
    KEEP = 8

    def kept_key(self) -> Hashable:
        """What the widget shows; None: nothing to key on, draw as Textual does."""
        raise NotImplementedError

    def drawn_with(self) -> tuple[Any, ...]:
        """What Textual's own pass draws the lines with besides the size and styles (which
        ``render_lines`` adds to the key): the line filters and the ANSI theme. For a
        ``kept_key`` whose lines come from that pass."""
        widget: Any = self
        app = widget.app
        filters = tuple(id(f) for f in widget.get_line_filters())
        return (filters, id(app.ansi_theme), app.native_ansi_color)

    def kept_text(self) -> Text | None:
        """The Text a one-line widget shows, if another Text of its shape (``text_shape``) is
        drawn by respelling a kept drawing of it: a parameter's row or a legend naming a value
        walked with + is a new text at every step, and Textual's pass drew each (about half a
        millisecond a line). None: drawn by Textual every time."""
        return None

    def forget_kept(self) -> None:
        """Drop every kept line: the next draw is a first draw (the UI bench's first play)."""
        self.__dict__.pop("_kept_lines", None)
        self.__dict__.pop("_kept_shapes", None)

    def _own_rules(self) -> Hashable:
        """The widget's own style rules as a key, without ``display``: a row hidden and shown
        again (a gates model switch hides and shows up to seven) draws as before, but Textual's
        ``_cache_key`` is a count of style changes, which each hide and show moves on. Read
        again only when that count moves; the count itself if a rule cannot be hashed."""
        styles: Any = self.styles  # type: ignore[attr-defined]
        count = styles._cache_key
        kept = self.__dict__.get("_kept_rules")
        if kept is not None and kept[0] == count:
            return kept[1]
        key: Hashable = count
        try:
            layers = (styles._base_styles._rules, styles._inline_styles._rules)
            shown = tuple(tuple(sorted(i for i in rules.items() if i[0] != "display"))
                          for rules in layers)  # fmt: skip
            hash(shown)
            key = shown
        except (AttributeError, TypeError):  # a private attribute gone, or an unhashable rule
            pass
        self.__dict__["_kept_rules"] = (count, key)
        return key

    def _shape_key(self, key: tuple[Any, ...]) -> tuple[Hashable, str] | None:
        """(the key of a drawing of the text shown now's shape, that text), or None."""
        text = self.kept_text()
        shape = None if text is None else text_shape(text)
        if shape is None or text is None:
            return None
        return (shape, self.drawn_with(), *key[1:]), text.plain

    def _respelled(self, found: tuple[Hashable, str]) -> list[Strip] | None:
        """The one line shown now (``found``: ``_shape_key``'s), respelled from a kept drawing
        of its shape; None if none."""
        shapes = self.__dict__.get("_kept_shapes")
        drawing = None if shapes is None else shapes.get(found[0])
        if drawing is None:
            return None
        line = respelled(drawing[1], drawing[0], found[1])
        return None if line is None else [line]

    def _keep_shape(self, found: tuple[Hashable, str], lines: list[Strip]) -> None:
        """Keep a line Textual drew as the drawing of its text's shape (``found``)."""
        if len(lines) != 1:
            return
        shapes: OrderedDict[Hashable, tuple[str, Strip]] = self.__dict__.setdefault(
            "_kept_shapes", OrderedDict()
        )
        shapes[found[0]] = (found[1], lines[0])
        if len(shapes) > self.KEEP:
            shapes.popitem(last=False)

    def render_lines(self, crop: Region) -> list[Strip]:
        widget: Any = self
        shows = self.kept_key()
        if shows is None:
            return super().render_lines(crop)  # type: ignore[misc, no-any-return]
        rules = (self._own_rules(), *(node.styles._cache_key for node in widget.ancestors))
        key = (shows, crop, content_size(widget), widget.visual_style, rules)  # no DOM walk
        kept: OrderedDict[Hashable, list[Strip]] = widget.__dict__.setdefault(
            "_kept_lines", OrderedDict()
        )
        lines = kept.get(key)
        if lines is not None:
            kept.move_to_end(key)  # the least recently shown go first
            return lines
        # The text's shape is found once: kept_text() builds the Text (a row's render()).
        found = self._shape_key(key) if crop.height == 1 else None
        lines = None if found is None else self._respelled(found)
        if lines is None:
            lines = super().render_lines(crop)  # type: ignore[misc]
            if found is not None:
                self._keep_shape(found, lines)
        kept[key] = lines
        if len(kept) > self.KEEP:
            kept.popitem(last=False)
        return lines
