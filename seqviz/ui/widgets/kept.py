"""KeptLines: a widget keeps its drawn lines per what it shows, for content it shows again."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from textual.geometry import Region
from textual.strip import Strip

from seqviz.ui.compat_textual import content_size


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

    def forget_kept(self) -> None:
        """Drop every kept line: the next draw is a first draw (the UI bench's first play)."""
        self.__dict__.pop("_kept_lines", None)

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
        else:
            lines = super().render_lines(crop)  # type: ignore[misc]
            kept[key] = lines
            if len(kept) > self.KEEP:
                kept.popitem(last=False)
        return lines
