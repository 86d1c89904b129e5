"""Dynamics of recurrent cells: fixed points, Lyapunov exponents, the diagonal linear recurrence.

The submodules are imported on first use (PEP 562): the app's first scene needs only the linear
recurrence, and importing the fixed-point finder and the Lyapunov code cost its launch time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqviz.lazy import lazy_getattr

if TYPE_CHECKING:
    from seqviz.dynamics.fixedpoints import FixedPoint, FixedPoints, cell_map, find_fixed_points
    from seqviz.dynamics.linear import LinearRecurrence, scan_levels
    from seqviz.dynamics.lyapunov import lyapunov_grid, lyapunov_spectrum, lyapunov_table

_MODULE_OF = {
    "FixedPoint": "fixedpoints",
    "FixedPoints": "fixedpoints",
    "cell_map": "fixedpoints",
    "find_fixed_points": "fixedpoints",
    "LinearRecurrence": "linear",
    "scan_levels": "linear",
    "lyapunov_grid": "lyapunov",
    "lyapunov_spectrum": "lyapunov",
    "lyapunov_table": "lyapunov",
}

__getattr__ = lazy_getattr(__name__, _MODULE_OF)


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
