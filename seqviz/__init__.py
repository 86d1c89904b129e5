"""seqviz: watch recurrent networks think, live in the terminal.

The public API is imported lazily so that `import seqviz` stays cheap:

    >>> import seqviz
    >>> p = seqviz.Params.random("lstm", input_size=8, hidden_size=16, seed=0)
    >>> tr = seqviz.trace(p, x)          # x: (T, 8) float array
    >>> tr.h.shape, tr.gates.shape, tr.grad_h.shape
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Params", "StackParams", "StackTrace", "Trace", "trace", "trace_stack", "__version__"]

_LAZY = {
    "Params": "seqviz.core.params",
    "Trace": "seqviz.core.trace",
    "trace": "seqviz.core.api",
    "StackParams": "seqviz.core.stack_params",
    "StackTrace": "seqviz.core.stack",
    "trace_stack": "seqviz.core.stack",
}

if TYPE_CHECKING:  # pragma: no cover
    from seqviz.core.api import trace
    from seqviz.core.params import Params
    from seqviz.core.stack import StackTrace, trace_stack
    from seqviz.core.stack_params import StackParams
    from seqviz.core.trace import Trace


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'seqviz' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
