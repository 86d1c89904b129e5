"""SceneView: the Textual side of a scene; Panel: a titled box with a one-line caption.

A view is mounted by the app when its scene is shown. The app calls:

- ``show_result(result)`` when a new computation result arrives (inside ``batch_update``);
- ``show_frame(frame)`` whenever the animation cursor moves (0 .. scene.frames(result));
- ``show_values(values)`` when only view-only parameters changed (``ParamSpec.recompute=False``).

Views draw from the result only; they never compute anything heavy on the main thread.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from seqviz.ui.compat_textual import (
    DirectLines,
    alike_rows,
    set_title_line,
    static_height,
    update_static,
)
from seqviz.ui.widgets.kept import KeptLines


class _Title:
    """A panel's ``border_title`` that repaints only when it changes, and then only its top line:
    Textual repaints the whole panel, every line of its border, on each set, and views set their
    titles with each result."""

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return _TEXTUAL_TITLE.__get__(obj, objtype)

    def __set__(self, obj: Any, title: Any) -> None:
        if obj.__dict__.get("_title_set", _UNSET) == title:
            return
        obj.__dict__["_title_set"] = title
        set_title_line(obj, title)


_TEXTUAL_TITLE: Any = Widget.__dict__["border_title"]
_UNSET = object()


def read_so_far(text: str, width: int, *, words: bool) -> str:
    """The end of ``text`` in at most ``width`` characters, for a status line that quotes what
    a model has read. Cut text starts with "…"; with ``words`` the cut falls before a whole
    word (a quote starting mid-word misquotes the sentence), unless one word fills it all."""
    if len(text) <= width:
        return text
    tail = text[len(text) - (width - 1) :]
    if words and text[len(text) - width] != " " and " " in tail[:-1]:
        tail = tail[tail.index(" ") + 1 :]  # the cut fell inside a word: begin at the next
    return "…" + tail


@lru_cache(maxsize=256)
def _markup(text: str) -> Content:
    return Content.from_markup(text)


class Caption(KeptLines, DirectLines, Static):
    """A panel's caption. Given the texts it will show (``reserve``), it takes the height of the
    tallest of them at every width, so that showing another of them is a repaint in place: a
    new height would be a layout pass of the whole screen. Its lines skip Textual's line pass
    (DirectLines), which a gates model switch paid for six captions drawn anew."""

    def __init__(self, text: str, *, classes: str) -> None:
        super().__init__(text, classes=classes)
        self.text: Any = text
        self._reserve: tuple[str, ...] = ()
        self._reserved: tuple[int, int] = (-1, 0)  # (width, the tallest text's lines)

    def kept_key(self) -> str | None:
        return self.text if isinstance(self.text, str) else None  # a Text may change in place

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        self.text = content
        # a caption's markup read once per text: a view sets its captions with each result
        visual = _markup(content) if isinstance(content, str) else content
        if layout:
            super().update(visual, layout=True)
        else:
            update_static(self, visual)

    def reserve(self, texts: tuple[str, ...]) -> None:
        if texts != self._reserve:
            self._reserve, self._reserved = texts, (-1, 0)
            self.refresh(layout=True)

    def show(self, text: str) -> None:
        if text == self.text:
            return
        steady = self.text in self._reserve and text in self._reserve
        self.update(text, layout=not steady)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        height = super().get_content_height(container, viewport, width)
        if not self._reserve:
            return height
        if self._reserved[0] != width:
            tallest = max(static_height(self, text, width) for text in self._reserve)
            self._reserved = (width, tallest)
        return max(height, self._reserved[1])


class Panel(KeptLines, Vertical):
    """A bordered panel with a title and a caption line saying what to look at. Its own lines
    (the border with the title) are kept per title (a view switching between two models
    shows two)."""

    border_title = _Title()  # type: ignore[assignment]

    ALLOW_MAXIMIZE = True  # presenter key `m`: one panel fills the projector

    DEFAULT_CSS = """
    Panel {
        border: round $primary 60%;
        border-title-color: $text;
        border-title-style: bold;
        padding: 0 1;
        height: 1fr;
        width: 1fr;
    }
    Panel > .caption {
        height: auto;
        max-height: 3;
        color: $text-muted;
        text-style: italic;
    }
    Panel > .caption-short {
        display: none;
    }
    """

    def __init__(self, title: str, caption: str, *children: Widget, short: str | None = None,
                 id: str | None = None, classes: str | None = None) -> None:  # fmt: skip
        """``caption`` says what to look at; ``short`` is its one-line form for small screens
        (default: the caption; "" leaves small screens that line for the panel's content)."""
        super().__init__(*children, id=id, classes=classes)
        alike_rows(self)  # its lines between the top and bottom border are alike
        self.border_title = title
        self._caption = caption
        self._short = caption if short is None else short
        # The short caption shows only on a compact screen (app.tcss): it is made when the
        # screen is compact (at compose, or ``show_short`` when it becomes so), not hidden
        # from the start. Until then its reserve and inline display are kept here.
        self._short_caption: Caption | None = None
        self._short_reserve: tuple[str, ...] = ()
        self._short_display: str | None = None if self._short else "none"

    def compose(self) -> ComposeResult:
        yield Caption(self._caption, classes="caption caption-long")
        if self.screen.has_class("-compact"):
            yield self._make_short()

    def _make_short(self) -> Caption:
        short = self._short_caption = Caption(self._short, classes="caption caption-short")
        self._set_short_display(self._short_display)
        if self._short_reserve:
            short.reserve(self._short_reserve)
        return short

    def show_short(self) -> None:
        """The screen became compact: the short caption is made now (after the long one)."""
        if self._short_caption is None and self.is_mounted:
            self.mount(self._make_short(), after=self._long_caption())

    @property
    def short_text(self) -> str:
        """What the short caption shows (on a compact screen)."""
        return self._short

    def set_short_display(self, display: str | None) -> None:
        """Hide (``"none"``) the short caption or let the size rules decide (None), inline: a
        view's own choice, which wins over app.tcss's compact rule."""
        self._set_short_display(display)

    def _set_short_display(self, display: str | None) -> None:
        self._short_display = display
        short = self._short_caption
        if short is None:
            return
        if display is None:  # cleared: the size rules decide again
            short.styles.clear_rule("display")
        else:
            short.styles.display = display  # type: ignore[assignment]

    def kept_key(self) -> Hashable:
        return (self._border_title, self._border_subtitle)

    def _long_caption(self) -> Caption:
        """The long caption (Textual keeps what ``query_one`` found until the children change)."""
        return self.query_one(".caption-long", Caption)

    CAPTION_ROWS = 3  # the long caption's max-height (DEFAULT_CSS)

    def _fitting_caption(self) -> str:
        """The long caption if it fits whole in CAPTION_ROWS rows at the panel's width, else the
        short one (a caption cut mid-sentence read "...the model knows the")."""
        caption = self._long_caption() if self.is_mounted and self.children else None
        width = caption.content_region.width if caption is not None else 0
        if width <= 0 or not self._short or self._short == self._caption:
            return self._caption
        if static_height(caption, _markup(self._caption), width) <= self.CAPTION_ROWS:
            return self._caption
        return self._short

    def on_resize(self) -> None:
        if self.children:
            self.call_after_refresh(self._show_fitting_caption)

    def _show_fitting_caption(self) -> None:
        if self.is_mounted and self.children:
            self._long_caption().show(self._fitting_caption())

    def set_caption(self, text: str, short: str | None = None) -> None:
        short = text if short is None else short
        if (text, short) == (self._caption, self._short):
            return  # an update is a layout pass of the whole screen
        self._caption, self._short = text, short
        self._long_caption().show(self._fitting_caption())
        if self._short_caption is not None:
            self._short_caption.show(short)
        # Inline, to win over the compact rule that shows short captions; cleared otherwise
        # so that the size rules decide again.
        self._set_short_display(None if short else "none")

    def reserve_captions(self, long: tuple[str, ...], short: tuple[str, ...]) -> None:
        """The captions this panel will show: it keeps the height of the tallest, so that a
        change among them needs no layout pass (e.g. a view switching between two models)."""
        self._long_caption().reserve(long)
        self._short_reserve = short
        if self._short_caption is not None:
            self._short_caption.reserve(short)


class SceneView(Vertical):
    """Base class of scene views; subclasses compose panels and implement the show_* methods.

    Set ``SCOPED_CSS = False`` in each subclass (Textual reads it per class) so the view's
    DEFAULT_CSS can follow the screen's size classes: ``.-compact MyView #panel {display: none;}``.
    """

    SCOPED_CSS = False

    DEFAULT_CSS = """
    SceneView {
        height: 1fr;
        width: 1fr;
    }
    """

    CITED_PLOTS: tuple[str, ...] = ()
    """Ids of the plots this scene's captions talk about: they get the room first, and
    `seqviz demo --check` fails a step where one of them is shown with fewer than 6 rows (one
    that the scene's mode hides is not checked)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.result: Any = None
        self.values: Any = None
        self.frame = 0

    def cited_plots(self) -> tuple[str, ...]:
        """CITED_PLOTS, for the mode on screen (a view whose modes show other plots says so)."""
        return self.CITED_PLOTS

    def show_result(self, result: Any) -> None:
        self.result = result
        self.values = getattr(result, "values", None)

    def show_frame(self, frame: int) -> None:
        self.frame = frame

    def show_values(self, values: Any) -> None:
        self.values = values
        if self.result is not None:
            self.show_frame(self.frame)

    @property
    def status_due(self) -> bool:
        """Whether the status line is redrawn with the result just shown (a live view may
        pace it with its other panels)."""
        return True

    def show_paused(self) -> None:
        """Playing stopped (the animation, or a live scene's stream): a view that draws some
        panels less often while playing brings them up to date here."""

    def frame_label(self, frame: int) -> str:
        """What the frame cursor means, e.g. "forward t=12/60" (status line)."""
        return f"frame {frame}"
