"""The edge-of-chaos grid (20x20 networks, d=64, T=500) side by side: seqviz's Numba kernel with
prange and on one thread, the batched NumPy reference, and the same batch in PyTorch if present.

    python benchmarks/bench_lyapunov.py
"""

from __future__ import annotations

import time

import numba
import numpy as np

from seqviz.dynamics import lyapunov_grid
from seqviz.dynamics.reference import lyapunov_grid_reference

RHOS = np.round(0.15 * np.arange(1, 21), 2)
SCALES = np.round(0.1 * np.arange(20), 1)
D, T = 64, 500


def best(fn, repeat=3):  # noqa: ANN001, ANN201
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def torch_grid():  # noqa: ANN201
    import torch

    from seqviz.dynamics.lyapunov import network

    net = network(D, T, 0)
    w = torch.from_numpy(net.w)
    r = torch.from_numpy(RHOS)[:, None, None]
    s = torch.from_numpy(SCALES)[None, :, None]
    x = torch.from_numpy(net.x)
    h = torch.from_numpy(net.h0).expand(len(RHOS), len(SCALES), D).clone()
    v = torch.from_numpy(net.v0).expand(len(RHOS), len(SCALES), D).clone()
    acc = torch.zeros(len(RHOS), len(SCALES), dtype=torch.float64)
    for t in range(T):
        h = torch.tanh(r * (h @ w.T) + s * x[t])
        v = (1 - h * h) * (r * (v @ w.T))
        n = v.norm(dim=2)
        if t >= T // 5:
            acc += n.log()
        v = v / n[..., None]
    return acc / (T - T // 5)


def main() -> None:
    lyapunov_grid(RHOS[:2], SCALES[:2], D, T)  # compile / load the cache
    threads = numba.get_num_threads()
    rows = [
        (
            f"seqviz Numba, prange on {threads} threads",
            best(lambda: lyapunov_grid(RHOS, SCALES, D, T)),
        )
    ]
    numba.set_num_threads(1)
    rows.append(("seqviz Numba, 1 thread", best(lambda: lyapunov_grid(RHOS, SCALES, D, T))))
    numba.set_num_threads(threads)
    rows.append(("NumPy reference (400 networks batched)",
                 best(lambda: lyapunov_grid_reference(RHOS, SCALES, D, T), 1)))  # fmt: skip
    try:
        import torch

        torch.set_num_threads(threads)
        rows.append((f"PyTorch batched ({threads} threads, no grad norm)", best(torch_grid, 1)))
    except ImportError:
        pass
    fastest = rows[0][1]
    print(f"edge-of-chaos grid: {len(RHOS)}x{len(SCALES)} networks, d={D}, T={T}")
    for name, seconds in rows:
        print(f"  {name:<48} {seconds:7.3f} s   {seconds / fastest:6.1f}x seqviz")


if __name__ == "__main__":
    main()
