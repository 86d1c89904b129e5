"""A scatter plot of point groups in the unit square (gate saturation), on the SafePlot base."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from seqviz.ui.widgets.plots import SafePlot, _array_key
from seqviz.ui.widgets.series import Series


class ScatterPlot(SafePlot):
    """Groups of points with x and y in [0, 1], drawn as dots in each group's colour."""

    DEFAULT_CSS = """
    ScatterPlot {
        width: 1fr;
        height: 1fr;
        min-height: 6;
    }
    """

    def __init__(self, *, xlabel: str = "", ylabel: str = "", id: str | None = None) -> None:
        super().__init__(id=id)
        self.xlabel = xlabel
        self.ylabel = ylabel
        self._groups: tuple[Series, ...] = ()
        self._key: Hashable = ()

    def set_groups(self, groups: Sequence[Series]) -> None:
        """New point groups (each a Series: label, x, y, colour)."""
        self._groups = tuple(groups)
        self._key = tuple((g.label, g.color, _array_key(g.x), _array_key(g.y))
                          for g in self._groups)  # fmt: skip
        self.refresh()

    def _content_key(self) -> Hashable:
        return (self._key, self.xlabel, self.ylabel)

    def _draw(self, upto: int | None) -> None:
        plt = self.plt
        for g in self._groups:
            plt.scatter(g.x.tolist(), g.y.tolist(), color=g.color, marker="dot")
        plt.xlim(0.0, 1.0)
        plt.ylim(0.0, 1.0)
        ticks = [0.0, 0.5, 1.0]
        plt.xticks(ticks, [f"{t:g}" for t in ticks])
        plt.yticks(ticks, [f"{t:g}" for t in ticks])
        if self.xlabel:
            plt.xlabel(self.xlabel)
        if self.ylabel:
            plt.ylabel(self.ylabel)
