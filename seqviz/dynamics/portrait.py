"""Phase portraits: fixed points, trajectories and the flow of a cell projected on a plane."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from seqviz.core import Params
from seqviz.dynamics.fixedpoints import FixedPoints, cell_map

FLOW_GRID = (48, 24)  # columns x rows of flow samples; the view picks the nearest per arrow


@dataclass(frozen=True)
class Projection:
    """p = (h - origin) @ basis.T: a plane through origin spanned by the rows of basis (2, d)."""

    origin: np.ndarray  # (d,)
    basis: np.ndarray  # (2, d) orthonormal rows
    labels: tuple[str, str]

    def __call__(self, h: np.ndarray) -> np.ndarray:
        """(..., d) states -> (..., 2) plane coordinates."""
        return (np.asarray(h) - self.origin) @ self.basis.T

    def lift(self, p: np.ndarray) -> np.ndarray:
        """(..., 2) plane coordinates -> (..., d) states on the plane."""
        return self.origin + np.asarray(p) @ self.basis


def principal_axes(states: np.ndarray, count: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean (d,), top `count` principal directions (count, d) and their shares of the variance."""
    X = np.asarray(states, dtype=float)  # (N, d)
    mean = X.mean(axis=0)
    _, s, vt = np.linalg.svd(X - mean, full_matrices=False)
    var = s**2
    share = var / var.sum() if var.sum() > 0 else np.zeros_like(var)
    count = min(count, vt.shape[0])
    # A fixed sign per axis (largest entry positive) so the picture does not flip between runs.
    comps = (
        vt[:count] * np.sign(vt[:count, np.argmax(np.abs(vt[:count]), axis=1)].diagonal())[:, None]
    )
    return mean, comps, share[:count]


@dataclass(frozen=True)
class Portrait:
    """Everything a phase-portrait view draws, in plane coordinates."""

    projection: Projection
    bounds: tuple[float, float, float, float]  # xmin, xmax, ymin, ymax
    flow: np.ndarray  # (rows, cols, 2) projected F(h) - h at the grid's points
    trajectory: np.ndarray  # (runs, T, 2) the drawn runs
    points: np.ndarray  # (n, 2) fixed points
    kinds: tuple[str, ...]  # stable | saddle | unstable per point
    directions: np.ndarray  # (n, 2) first unstable direction on the plane (0 for stable points)


def portrait(
    params: Params,
    projection: Projection,
    trajectory: np.ndarray,
    fixed: FixedPoints,
    bounds: tuple[float, float, float, float] | None = None,
    extra: Sequence[np.ndarray] = (),
) -> Portrait:
    """Project runs (T, d) or (runs, T, d) and the fixed points; sample the zero-input flow."""
    runs = np.asarray(trajectory)
    traj = projection(runs if runs.ndim == 3 else runs[None])  # (runs, T, 2)
    pts = np.array([projection(p.h) for p in fixed.points]).reshape(-1, 2)
    dirs = np.zeros_like(pts)
    for i, p in enumerate(fixed.points):
        if len(p.unstable):
            v = p.unstable[0] @ projection.basis.T
            n = float(np.linalg.norm(v))
            dirs[i] = v / n if n > 1e-9 else 0.0
    if bounds is None:
        everything = np.concatenate([traj.reshape(-1, 2), pts, *(projection(e) for e in extra)])
        lo, hi = everything.min(axis=0), everything.max(axis=0)
        pad = np.maximum((hi - lo) * 0.08, 1e-3)
        bounds = (lo[0] - pad[0], hi[0] + pad[0], lo[1] - pad[1], hi[1] + pad[1])
    cols, rows = FLOW_GRID
    xs = np.linspace(bounds[0], bounds[1], cols)
    ys = np.linspace(bounds[3], bounds[2], rows)  # top row first, as drawn
    plane = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)  # (rows*cols, 2)
    h = projection.lift(plane)
    f, _ = cell_map(params)(h)
    flow = projection(f + projection.origin - h).reshape(rows, cols, 2)
    box = (float(bounds[0]), float(bounds[1]), float(bounds[2]), float(bounds[3]))
    kinds = tuple(p.kind for p in fixed.points)
    return Portrait(projection, box, flow, traj, pts, kinds, dirs)
