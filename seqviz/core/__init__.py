"""The numerical core: Params, stacks, Trace and the jitted forward/BPTT kernels (no UI imports)."""

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
from seqviz.core.stack import StackTrace, trace_stack
from seqviz.core.stack_params import StackParams
from seqviz.core.trace import Overflow, Trace

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
