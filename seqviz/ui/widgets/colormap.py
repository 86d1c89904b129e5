"""Colour maps binned for terminal cells: diverging for signed values, sequential for gates."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rich.color import Color

NONFINITE = "#ff2bd6"  # inf/nan: a colour no map uses, so overflow stands out
_R, _G, _B = Color.parse(NONFINITE).get_truecolor()
NONFINITE_RGB = (_R, _G, _B)  # the same, as the RGB triple a curve's marks take


def _interpolate(anchors: list[str], n: int) -> tuple[str, ...]:
    rgb = np.array([Color.parse(a).get_truecolor()[:3] for a in anchors], dtype=float)
    pos, ts = np.linspace(0, 1, len(anchors)), np.linspace(0, 1, n)
    channels = [np.interp(ts, pos, rgb[:, k]).tolist() for k in range(3)]  # all n at once
    rows = zip(*channels, strict=True)
    return tuple("#{:02x}{:02x}{:02x}".format(*(int(round(v)) for v in c)) for c in rows)


@dataclass(frozen=True)
class Colormap:
    """A fixed number of colour bins over [vmin, vmax], plus the marked colour for inf/nan."""

    name: str
    colors: tuple[str, ...]
    vmin: float
    vmax: float
    log: bool = False

    @property
    def n(self) -> int:
        return len(self.colors)

    @property
    def nonfinite_bin(self) -> int:
        return self.n

    def color(self, index: int) -> str:
        return NONFINITE if index >= self.n else self.colors[index]

    def bins(self, data: np.ndarray) -> np.ndarray:
        """Bin index per value (int16); inf/nan get ``nonfinite_bin``."""
        values = np.asarray(data, dtype=np.float64)
        finite = np.isfinite(values)
        with np.errstate(all="ignore"):
            if self.log:
                values = np.log10(np.maximum(np.abs(values), 1e-300))
            # Divide first: vmax - vmin itself can overflow when the data reach 1e308.
            unit = max(abs(self.vmin), abs(self.vmax)) or 1.0
            lo, hi = self.vmin / unit, self.vmax / unit
            span = (hi - lo) or 1.0
            scaled = np.where(finite, (values / unit - lo) / span, 0.0)
            scaled = np.clip(scaled, 0.0, 1.0)
            scaled = np.nan_to_num(scaled, nan=0.0)
        idx = np.minimum((scaled * self.n).astype(np.int64), self.n - 1)
        return np.where(finite, idx, self.n).astype(np.int16)


DIVERGING = _interpolate(
    ["#2166ac", "#4393c3", "#92c5de", "#2a2a2a", "#f4a582", "#d6604d", "#b2182b"], 21
)
SEQUENTIAL = _interpolate(["#440154", "#3b528b", "#21918c", "#5ec962", "#fde725"], 16)
MAGNITUDE = _interpolate(["#0d0887", "#7e03a8", "#cc4778", "#f89540", "#f0f921"], 16)


def diverging(limit: float = 1.0) -> Colormap:
    """Signed values: blue below zero, dark at zero, red above, symmetric around zero."""
    limit = float(limit) if np.isfinite(limit) and limit > 0 else 1.0
    return Colormap("diverging", DIVERGING, -limit, limit)


def sequential(vmin: float = 0.0, vmax: float = 1.0) -> Colormap:
    """Values in (0, 1) such as gates: dark purple at 0 to yellow at 1."""
    return Colormap("sequential", SEQUENTIAL, vmin, vmax)


def log_magnitude(lo_exp: float, hi_exp: float) -> Colormap:
    """|value| on a log10 scale, for gradients spanning many orders of magnitude."""
    if not hi_exp > lo_exp:
        hi_exp = lo_exp + 1
    return Colormap("log magnitude", MAGNITUDE, lo_exp, hi_exp, log=True)


def symmetric_limit(data: np.ndarray, floor: float = 1e-12) -> float:
    """The largest finite |value| (at least ``floor``): a diverging map's half-range."""
    values = np.asarray(data, dtype=np.float64)
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return 1.0
    return max(float(np.max(np.abs(finite))), floor)
