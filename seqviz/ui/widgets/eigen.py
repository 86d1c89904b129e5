"""EigenPlot: a matrix's eigenvalues in the complex plane around the unit circle, as a CurvePlot."""

from __future__ import annotations

import numpy as np

from seqviz.ui.widgets.cells import Cell
from seqviz.ui.widgets.curves import PATH, CurvePlot
from seqviz.ui.widgets.series import Series

CIRCLE_COLOR = (120, 120, 120)
EIGEN_COLOR = (255, 196, 0)
EXTRA_EIGEN_COLOR = (90, 220, 220)
_THETA = np.linspace(0.0, 2.0 * np.pi, 241)  # (241,) the last point closes the circle
CIRCLE = Series("unit circle", np.cos(_THETA), np.sin(_THETA), CIRCLE_COLOR, PATH)


class EigenPlot(CurvePlot):
    """Eigenvalues as dots over the unit circle (quadrant blocks), on axes scaled alike (a
    terminal cell is about twice as high as wide), so the circle is round and a direction's distance
    from it reads the same every way; the shorter side spans the largest |eigenvalue| plus a
    margin. Non-finite eigenvalues are left out."""

    DEFAULT_CSS = "EigenPlot { width: 1fr; height: 1fr; min-height: 6; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(log_y=False, blocks=True, id=id)
        self._radius = 1.25
        self._fitted: tuple[int, int, float] | None = None  # (width, height, radius) of _xlim

    def set_eigenvalues(self, eigenvalues: np.ndarray, extra: np.ndarray | None = None) -> None:
        """The matrix's eigenvalues, and optionally a second set drawn in EXTRA_EIGEN_COLOR."""
        eig = np.asarray(eigenvalues, dtype=complex)
        eig = eig[np.isfinite(eig)]
        more = np.zeros(0, complex) if extra is None else np.asarray(extra, dtype=complex)
        more = more[np.isfinite(more)]
        series: list[Series] = [CIRCLE]
        if more.size:
            series.append(Series("extra", more.real, more.imag, EXTRA_EIGEN_COLOR, "•"))
        if eig.size:
            series.append(Series("eigenvalues", eig.real, eig.imag, EIGEN_COLOR, "•"))
        self._radius = max(1.25, float(np.max(np.abs(eig))) * 1.1 if eig.size else 1.25)
        self._fitted = None
        span = (-self._radius, self._radius)
        self.set_series(series, xlim=span, ylim=span)

    def _x_ticks(self) -> list[float]:
        return _unit_ticks(self._xlim[1])

    def _y_ticks(self, rows: int) -> list[tuple[float, str]]:
        return [(t, f"{t:g}") for t in _unit_ticks(self._ylim[1] if self._ylim else 1.0)]

    def cells(self, width: int, height: int) -> list[list[Cell]]:
        if self._fitted != (width, height, self._radius):
            self._fit(width, height)
        return super().cells(width, height)

    def _fit(self, width: int, height: int) -> None:
        """Limits for this size with one data unit as long across as down (a terminal cell is
        about twice as high as wide)."""
        r = self._radius
        self._xlim = self._ylim = (-r, r)
        for _ in range(2):  # the y labels' width depends on the limits: settle it twice
            _, cw, rows, _ = self._axes_area(width, height)
            wide = max(cw, 1) / (2 * max(rows, 1))  # the data area's width over its height
            if wide >= 1:
                self._xlim, self._ylim = (-r * wide, r * wide), (-r, r)
            else:
                self._xlim, self._ylim = (-r, r), (-r / wide, r / wide)
        self._fitted = (width, height, r)


def _unit_ticks(half: float) -> list[float]:
    """Where the unit circle crosses the axis (-1, 0, 1), and the largest whole number inside
    the axis's half-span ``half`` on each side when that is 2 or more."""
    far = float(int(half))
    return [-far, -1.0, 0.0, 1.0, far] if far >= 2 else [-1.0, 0.0, 1.0]
