"""Kernels are cached on disk: a second process loads them instead of compiling."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CHILD = """
import json
from seqviz.core import kernels, warmup
warmup()
stats = {name: getattr(kernels, name).stats for name in
         ("trace_kernel", "forward_kernel", "step_kernel", "batch_backward_kernel",
          "batch_forward_kernel")}
print(json.dumps({n: [len(s.cache_hits), len(s.cache_misses)] for n, s in stats.items()}))
"""


def _run() -> dict[str, list[int]]:
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.slow
def test_second_process_loads_kernels_from_cache():
    _run()  # fills the cache if this checkout has not compiled yet
    stats = _run()
    for name, (hits, misses) in stats.items():
        assert hits >= 1 and misses == 0, (name, hits, misses)
