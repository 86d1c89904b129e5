"""Every touch of plotext's (and textual-plotext's) internals, in one place.

plotext is pinned below 6 (textual-plotext uses the module API that 6 removed); the figure's
sizing, its character matrix and the colour codes are internals of 5.x, checked for shape by
tests/test_compat.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from plotext._utility import colors_to_ansi as _colors_to_ansi  # type: ignore[import-untyped]


def colors_to_ansi(*colors: Any) -> Any:
    """plotext's ANSI code for (fullground, style, background), as its own printer uses."""
    return _colors_to_ansi(*colors)


@dataclass(frozen=True)
class Grid:
    """A built plot as cells: per row (top first) the characters and their colour keys."""

    markers: list[list[str]]  # rows x cols characters
    keys: list[list[tuple[Any, Any, Any]]]  # rows x cols (fullground, style, background)
    canvas: tuple[int, int]  # first column and width of the plotting canvas


def set_size(plt: Any, width: int, height: int) -> None:
    """Size the figure as PlotextPlot.render does: plotsize alone can lag one draw behind."""
    plt.plotsize(width, height)
    plt._set_size(width, height)


def build_grid(plt: Any) -> Grid:
    """What plotext's build() does, short of printing the figure as ANSI text."""
    figure: Any = plt
    figure._set_sizes()
    figure._build_matrix()
    matrix = figure.monitor.matrix
    markers, keys = [], []
    for row in reversed(range(matrix.rows)):
        markers.append(list(matrix.marker[row]))
        keys.append(list(zip(matrix.fullground[row], matrix.style[row], matrix.background[row],
                             strict=True)))  # fmt: skip
    canvas = matrix.Cols_canvas
    return Grid(markers, keys, (canvas.start, len(canvas)))


def theme_name(plot: Any, textual_theme: str) -> str:
    """The plotext theme textual-plotext picks for a Textual theme (its private mapping)."""
    return str(plot._get_plotext_theme_name(textual_theme))


INTERNALS = (
    ("plotext._utility", "colors_to_ansi"),
    ("plotext._figure._figure_class", "_set_size"),
    ("plotext._figure._figure_class", "_set_sizes"),
    ("plotext._figure._figure_class", "_build_matrix"),
    ("textual_plotext.PlotextPlot", "_get_plotext_theme_name"),
)
