"""The numerical core: Params, stacks, Trace and the jitted forward/BPTT kernels (no UI imports).

The stacks (``StackParams``, ``StackTrace``, ``trace_stack``) are imported on first use (PEP 562):
the app's first scene runs single cells, and their module and three dataclasses cost its launch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqviz.core.api import (
    BatchRecord,
    batch_backward,
    batch_forward,
    batch_record,
    batch_trace,
    forward,
    step,
    trace,
    warmup,
)
from seqviz.core.params import Params
from seqviz.core.trace import Overflow, Trace
from seqviz.lazy import lazy_getattr

if TYPE_CHECKING:
    from seqviz.core.stack import StackTrace, trace_stack
    from seqviz.core.stack_params import StackParams

_MODULE_OF = {"StackParams": "stack_params", "StackTrace": "stack", "trace_stack": "stack"}

__getattr__ = lazy_getattr(__name__, _MODULE_OF)


__all__ = [
    "BatchRecord",
    "Overflow",
    "Params",
    "StackParams",
    "StackTrace",
    "Trace",
    "batch_backward",
    "batch_forward",
    "batch_record",
    "batch_trace",
    "forward",
    "step",
    "trace",
    "trace_stack",
    "warmup",
]
