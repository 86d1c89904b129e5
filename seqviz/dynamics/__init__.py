"""Dynamics of recurrent cells: fixed points, Lyapunov exponents, the diagonal linear recurrence."""

from seqviz.dynamics.fixedpoints import FixedPoint, FixedPoints, cell_map, find_fixed_points
from seqviz.dynamics.linear import LinearRecurrence, scan_levels
from seqviz.dynamics.lyapunov import lyapunov_grid, lyapunov_spectrum, lyapunov_table

__all__ = [
    "FixedPoint",
    "FixedPoints",
    "LinearRecurrence",
    "cell_map",
    "find_fixed_points",
    "lyapunov_grid",
    "lyapunov_spectrum",
    "lyapunov_table",
    "scan_levels",
]
