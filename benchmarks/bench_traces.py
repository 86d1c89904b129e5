"""Full-trace benchmark (same as `seqviz bench`): python benchmarks/bench_traces.py [--json]."""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")  # before numpy loads its BLAS
    from seqviz.bench.traces import main

    raise SystemExit(main(json_output="--json" in sys.argv, quick="--quick" in sys.argv))
