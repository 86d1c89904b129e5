"""Dynamics of recurrent cells: fixed points, Lyapunov exponents, the diagonal linear recurrence.

The submodules are imported on first use (PEP 562): the app's first scene needs only the linear
recurrence, and importing the fixed-point finder and the Lyapunov code cost its launch time.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


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
