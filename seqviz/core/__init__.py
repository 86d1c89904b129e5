"""The numerical core: Params, Trace and the jitted forward/BPTT kernels (no UI imports)."""

from seqviz.core.api import forward, step, trace, warmup
from seqviz.core.params import Params
from seqviz.core.trace import Overflow, Trace

__all__ = ["Overflow", "Params", "Trace", "forward", "step", "trace", "warmup"]
