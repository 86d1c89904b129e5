"""Time kernel start-up: first process compiles into an empty cache, a second loads from it."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

CHILD = (
    "import time; import numpy, numba; t = time.perf_counter(); import seqviz.core as c; "
    "c.warmup(); print(f'{time.perf_counter() - t:.3f}')"
)


def startup_seconds(cache_dir: str) -> float:
    """Seconds for a fresh interpreter (numpy, numba already imported) to get every kernel ready."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
    out.check_returncode()
    return float(out.stdout.strip())


def main() -> int:
    with tempfile.TemporaryDirectory() as cache:
        cold = startup_seconds(cache)
        warm = [startup_seconds(cache) for _ in range(3)]
    print(f"first process (compiles, empty cache): {cold:.2f} s")
    print(f"later processes (load from cache):     {min(warm):.2f} s (best of 3)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
