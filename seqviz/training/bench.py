"""`seqviz bench --training`: updates per second of the one trainer against a PyTorch loop.

The same updates side by side (LSTM on the copy task, Adam, clipping, the same batches), in
float64 and float32, at the Training scene's small size and at hidden 64 and 256. The two
loops take turns in several rounds on one thread each, so that a loaded machine slows both
alike; a rate is the median over the rounds, a ratio the median of the rounds' ratios.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from seqviz.tasks.lagged import make_task

TASK = "copy"
CELL = "lstm"
# (hidden, batch, lag): the Training scene's size first, then the sizes a real text needs.
SIZES = ((32, 32, 20), (64, 64, 100), (256, 64, 100))
DTYPES = ("float64", "float32")
TARGET = 50.0  # updates per second the Training scene needs at its size
THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


@dataclass
class Row:
    hidden: int
    batch: int
    lag: int
    dtype: str
    seqviz_per_s: float
    torch_per_s: float | None
    ratio: float | None  # median over the rounds of seqviz's rate over PyTorch's
    rounds: int


def _timed(update: Callable[[], None], budget: float) -> float:
    """Updates per second over at least `budget` seconds (and at least two updates)."""
    n, start = 0, time.perf_counter()
    while n < 2 or time.perf_counter() - start < budget:
        update()
        n += 1
    return n / (time.perf_counter() - start)


def _seqviz(batches: list, hidden: int, lag: int, dtype: str) -> Callable[[], None]:
    from seqviz.models.lagged import LagClassifier
    from seqviz.training import FitConfig, Loop

    task = make_task(TASK, lag)
    model = LagClassifier(CELL, task.n_inputs, hidden, task.n_classes, seed=0)
    loop = Loop(model, FitConfig(lr=0.01, optimizer="adam", clip=1.0, dtype=dtype))
    i = [0]

    def update() -> None:
        loop.update(batches[i[0] % len(batches)])
        i[0] += 1

    return update


def _torch(batches: list, hidden: int, lag: int, dtype: str) -> Callable[[], None] | None:
    """The same updates in PyTorch: nn.LSTM, a Linear readout at the last step, cross-entropy,
    clip_grad_norm_ and Adam, one thread."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    tdt = getattr(torch, dtype)
    task = make_task(TASK, lag)
    torch.manual_seed(0)
    net = torch.nn.LSTM(task.n_inputs, hidden, batch_first=True, dtype=tdt)
    head = torch.nn.Linear(hidden, task.n_classes, dtype=tdt)
    params = [*net.parameters(), *head.parameters()]
    opt = torch.optim.Adam(params, lr=0.01)
    data = [(torch.tensor(b.x, dtype=tdt), torch.tensor(b.y)) for b in batches]
    i = [0]

    def update() -> None:
        x, y = data[i[0] % len(data)]
        i[0] += 1
        opt.zero_grad()
        out, _ = net(x)
        loss = torch.nn.functional.cross_entropy(head(out[:, -1]), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()

    return update


def _row(hidden: int, batch: int, lag: int, dtype: str, rounds: int, budget: float) -> Row:
    task = make_task(TASK, lag)
    rng = np.random.default_rng(0)
    batches = [task.batch(rng, batch) for _ in range(4)]
    ours, theirs = _seqviz(batches, hidden, lag, dtype), _torch(batches, hidden, lag, dtype)
    ours()  # warm-up (and compilation)
    if theirs is not None:
        theirs()
    a: list[float] = []
    b: list[float] = []
    for _ in range(rounds):  # taking turns, so that both see the same load
        a.append(_timed(ours, budget))
        if theirs is not None:
            b.append(_timed(theirs, budget))
    ratio = statistics.median(x / y for x, y in zip(a, b, strict=True)) if b else None
    return Row(hidden, batch, lag, dtype, statistics.median(a),
               statistics.median(b) if b else None, ratio, rounds)  # fmt: skip


def measure(quick: bool = False) -> dict:
    """The table, measured in this process (see bench_training for the one-thread setting)."""
    rounds, budget = (2, 0.3) if quick else (5, 1.0)
    rows = [_row(h, b, lag, dt, rounds, budget) for h, b, lag in SIZES for dt in DTYPES]
    return {
        "task": TASK, "cell": CELL, "optimizer": "adam", "clip": 1.0,
        "target_per_s": TARGET, "threads": {v: os.environ.get(v) for v in THREAD_VARS},
        "rows": [asdict(r) for r in rows],
    }  # fmt: skip


def bench_training(quick: bool = False) -> dict:
    """The table, measured in a fresh interpreter with one BLAS, OpenMP and Numba thread (the
    thread counts are read when the libraries load, which may have happened in this process)."""
    import json

    env = dict(os.environ, **{v: "1" for v in THREAD_VARS})
    code = (
        "import json, sys; from seqviz.training.bench import measure; "
        f"json.dump(measure(quick={bool(quick)}), sys.stdout)"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"the training benchmark failed: {last}")
    return json.loads(done.stdout)


def format_report(result: dict) -> str:
    lines = [
        f"Training updates per second, one thread each: {result['cell'].upper()} on the "
        f"{result['task']} task, Adam, clip {result['clip']:g}, the same batches",
        f"{'hidden':>6} {'batch':>5} {'steps':>5} {'dtype':<7} {'seqviz':>9} {'PyTorch':>9} "
        f"{'ratio':>6}",
    ]
    for r in result["rows"]:
        t = "—" if r["torch_per_s"] is None else f"{r['torch_per_s']:.1f}/s"
        ratio = "—" if r["ratio"] is None else f"{r['ratio']:.2f}x"
        lines.append(
            f"{r['hidden']:>6} {r['batch']:>5} {r['lag'] + 5:>5} {r['dtype']:<7} "
            f"{r['seqviz_per_s']:>7.1f}/s {t:>9} {ratio:>6}"
        )
    small = [r for r in result["rows"] if (r["hidden"], r["batch"], r["lag"]) == SIZES[0]]
    slow = [r["dtype"] for r in small if r["seqviz_per_s"] < result["target_per_s"]]
    lines.append(
        f"ratio: seqviz's rate over PyTorch's, the median of {result['rows'][0]['rounds']} "
        "rounds taken in turns (above 1: seqviz is faster)"
    )
    lines.append(
        f"Training scene ({SIZES[0][0]} hidden) needs {result['target_per_s']:g}/s: "
        + ("ok" if not slow else f"TOO SLOW in {', '.join(slow)}")
    )
    return "\n".join(lines)
