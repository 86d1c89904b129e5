"""Side-by-side timings of a full trace: seqviz kernels, the NumPy reference and PyTorch."""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial

import numpy as np

from seqviz.core import Params, trace
from seqviz.core.reference import reference_trace

CELLS = ("rnn", "lstm", "gru")
SIZES = ((64, 100), (256, 100), (64, 1000), (256, 1000))
QUICK_SIZES = ((64, 100), (256, 100))


@dataclass
class Row:
    cell: str
    d: int
    T: int
    seqviz_ms: float
    numpy_ms: float
    torch_loop_ms: float | None  # explicit step loop keeping every gate, h_t and c_t
    torch_cell_ms: float | None  # nn.*Cell step loop keeping h_t, c_t (the cell hides gates)
    torch_fused_ms: float | None

    def ratios(self) -> dict[str, float | None]:
        def r(v: float | None) -> float | None:
            return None if v is None else v / self.seqviz_ms

        return {
            "numpy": r(self.numpy_ms),
            "torch_loop": r(self.torch_loop_ms),
            "torch_cell": r(self.torch_cell_ms),
            "torch_fused": r(self.torch_fused_ms),
        }


def best_ms(fn: Callable[[], object], budget: float, min_reps: int = 3) -> float:
    """Fastest of several calls after one warm-up call: the least disturbed by other load."""
    fn()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < min_reps or (time.perf_counter() - start < budget and len(times) < 200):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1e3 * min(times)


def _torch_runners(cell: str, p: Params, x: np.ndarray):
    """(step loop recording every gate and dL/dh_t, nn.*Cell step loop, fused nn.*)."""
    import torch
    import torch.nn.functional as F

    d = p.hidden_size
    module = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[cell](
        p.input_size, d, dtype=torch.float64
    )
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(module, f"{name}_l0").copy_(torch.tensor(getattr(p, name)))
    w_ih, w_hh = module.weight_ih_l0, module.weight_hh_l0
    b_ih, b_hh = module.bias_ih_l0, module.bias_hh_l0
    xt = torch.tensor(x, requires_grad=True)
    scale = 1.0 / d**0.5

    def loop() -> list:
        module.zero_grad()
        xt.grad = None
        h = torch.zeros(d, dtype=torch.float64)
        c = torch.zeros(d, dtype=torch.float64)
        states = []
        gates: list[tuple[torch.Tensor, ...]] = []  # (i, f, g, o) or (r, z, n)
        for t in range(x.shape[0]):
            a_x = F.linear(xt[t], w_ih, b_ih)
            a_h = F.linear(h, w_hh, b_hh)
            if cell == "rnn":
                h = torch.tanh(a_x + a_h)
            elif cell == "lstm":
                i, f, g, o = (a_x + a_h).chunk(4)
                i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
                c = f * c + i * g
                c.retain_grad()
                h = o * torch.tanh(c)
                gates.append((i, f, g, o))
            else:
                xr, xz, xn = a_x.chunk(3)
                hr, hz, hn = a_h.chunk(3)
                r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
                n = torch.tanh(xn + r * hn)
                h = (1 - z) * n + z * h
                gates.append((r, z, n))
            h.retain_grad()
            states.append((h, c))
        (h.sum() * scale).backward()
        return [s[0].grad for s in states]

    cell_module = {"rnn": torch.nn.RNNCell, "lstm": torch.nn.LSTMCell, "gru": torch.nn.GRUCell}[
        cell
    ](p.input_size, d, dtype=torch.float64)
    cell_module.load_state_dict({k.removesuffix("_l0"): v for k, v in module.state_dict().items()})

    def cell_loop() -> list:
        cell_module.zero_grad()
        xt.grad = None
        h = torch.zeros(1, d, dtype=torch.float64)
        c = torch.zeros(1, d, dtype=torch.float64)
        states = []
        for t in range(x.shape[0]):
            if cell == "lstm":
                h, c = cell_module(xt[t : t + 1], (h, c))
                c.retain_grad()
            else:
                h = cell_module(xt[t : t + 1], h)
            h.retain_grad()
            states.append((h, c))
        (h.sum() * scale).backward()
        return [s[0].grad[0] for s in states]

    def fused() -> None:
        module.zero_grad()
        xt.grad = None
        out, _ = module(xt)
        (out[-1].sum() * scale).backward()

    return loop, cell_loop, fused


def measure(quick: bool = False, cells=None, sizes=None, progress=None) -> list[Row]:
    """Time every cell at every size; torch columns are None when torch is not installed."""
    try:
        import torch

        torch.set_num_threads(1)
        have_torch = True
    except ImportError:
        have_torch = False
    sizes = sizes or (QUICK_SIZES if quick else SIZES)
    cells = cells or CELLS
    budget = 0.2 if quick else 0.6
    rows = []
    for cell in cells:
        for d, T in sizes:
            p = Params.random(cell, d, d, seed=0)
            x = np.random.default_rng(1).normal(size=(T, d))
            ours = best_ms(partial(trace, p, x), budget)
            ref = best_ms(partial(reference_trace, p, x), budget, min_reps=2)
            loop_ms = cell_ms = fused_ms = None
            if have_torch:
                loop, cell_loop, fused = _torch_runners(cell, p, x)
                loop_ms = best_ms(loop, budget, min_reps=2)
                cell_ms = best_ms(cell_loop, budget, min_reps=2)
                fused_ms = best_ms(fused, budget)
            rows.append(Row(cell, d, T, ours, ref, loop_ms, cell_ms, fused_ms))
            if progress:
                progress(rows[-1])
    return rows


def environment() -> dict[str, object]:
    info: dict[str, object] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "default"),
        "seqviz_threads": 1,
    }
    try:
        import numba

        info["numba"] = numba.__version__
        import torch

        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
    except ImportError:
        info["torch"] = None
    return info


def _fmt(v: float | None, spec: str) -> str:
    """``v`` formatted by ``spec``; a missing value is a dash of the same width (columns align)."""
    if v is None:
        width = int(spec.split(".")[0] or 0)
        return "-".rjust(width)
    return format(v, spec)


def format_rows(rows: list[Row]) -> str:
    with_torch = any(r.torch_fused_ms is not None for r in rows)
    head = f"{'cell':5} {'d':>4} {'T':>5} | {'seqviz':>8} {'numpy':>8}"
    if with_torch:
        head += f" {'loop':>8} {'nn.Cell':>8} {'fused':>8}"
    head += f" | {'x numpy':>7}"
    if with_torch:
        head += f" {'x loop':>7} {'x Cell':>7} {'x fused':>7}"
    lines = ["Full trace (forward with every gate + BPTT to every step), best time in ms", head]
    for r in rows:
        q = r.ratios()
        line = f"{r.cell:5} {r.d:>4} {r.T:>5} | {r.seqviz_ms:8.2f} {r.numpy_ms:8.2f}"
        if with_torch:
            line += (f" {_fmt(r.torch_loop_ms, '8.2f')} {_fmt(r.torch_cell_ms, '8.2f')} "
                     f"{_fmt(r.torch_fused_ms, '8.2f')}")  # fmt: skip
        line += f" | {_fmt(q['numpy'], '7.1f')}"
        if with_torch:
            line += (f" {_fmt(q['torch_loop'], '7.1f')} {_fmt(q['torch_cell'], '7.1f')} "
                     f"{_fmt(q['torch_fused'], '7.1f')}")  # fmt: skip
        lines.append(line)
    lines.append("numpy: seqviz/core/reference.py")
    if with_torch:
        lines += [
            "loop: PyTorch step loop keeping every gate and dL/dh_t",
            "nn.Cell: nn.*Cell step loop keeping every dL/dh_t (and dL/dc_t)",
            "fused: nn.RNN/LSTM/GRU forward+backward, recording nothing",
        ]
    else:
        lines.append("PyTorch is not installed: its columns are left out (pip install torch)")
    lines.append("x = the other's time / seqviz's time (higher is better)")
    return "\n".join(lines)


def main(json_output: bool = False, quick: bool = False) -> int:
    from seqviz.core import warmup

    warmup()  # compile or load from cache before timing
    show = None if json_output else (lambda r: print(f"  measured {r.cell} d={r.d} T={r.T}"))
    rows = measure(quick=quick, progress=show)
    env = environment()
    if json_output:
        data = {"environment": env, "rows": [asdict(r) | {"ratios": r.ratios()} for r in rows]}
        print(json.dumps(data, indent=2))
    else:
        print(format_rows(rows))
        print(
            f"threads: seqviz 1, NumPy BLAS {env['blas_threads']}, "
            f"torch {env.get('torch_threads', '-')}; {env['cpus']} CPUs"
        )
    return 0


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m seqviz.bench.traces", description=__doc__)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true")
    ns = parser.parse_args()
    raise SystemExit(main(json_output=ns.json, quick=ns.quick))
