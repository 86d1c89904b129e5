"""`seqviz bench --training`: updates per second of the live trainer against a PyTorch loop."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np

from seqviz.tasks.lagged import make_task

CELLS = ("rnn", "lstm", "gru")
HIDDEN, LAG, BATCH, TASK = 32, 20, 32, "copy"
TARGET = 50.0  # updates per second per cell the Training scene needs


@dataclass
class Row:
    cell: str
    seqviz_per_s: float
    torch_per_s: float | None

    @property
    def ratio(self) -> float | None:
        """seqviz's rate over PyTorch's (above 1: seqviz is faster)."""
        return None if self.torch_per_s is None else self.seqviz_per_s / self.torch_per_s


def _rate(update, budget: float) -> float:
    update()  # warm-up (and compilation)
    n, start = 0, time.perf_counter()
    while n < 5 or time.perf_counter() - start < budget:
        update()
        n += 1
    return n / (time.perf_counter() - start)


def _seqviz(cell: str, batches: list, budget: float) -> float:
    from seqviz.models.lagged import LagClassifier
    from seqviz.training import FitConfig, Loop

    task = make_task(TASK, LAG)
    model = LagClassifier(cell, task.n_inputs, HIDDEN, task.n_classes, seed=0)
    loop = Loop(model, FitConfig(lr=0.01, optimizer="adam", clip=1.0))
    i = [0]

    def update() -> None:
        loop.update(batches[i[0] % len(batches)])
        i[0] += 1

    return _rate(update, budget)


def _torch(cell: str, batches: list, budget: float) -> float | None:
    """The same updates in PyTorch: nn.RNN/LSTM/GRU, a Linear readout at the last step,
    cross-entropy, clip_grad_norm_ and Adam, float64 like seqviz, one thread."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    task = make_task(TASK, LAG)
    make = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[cell]
    net = make(task.n_inputs, HIDDEN, batch_first=True, dtype=torch.float64)
    head = torch.nn.Linear(HIDDEN, task.n_classes, dtype=torch.float64)
    params = [*net.parameters(), *head.parameters()]
    opt = torch.optim.Adam(params, lr=0.01)
    data = [(torch.tensor(b.x), torch.tensor(b.y)) for b in batches]
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

    return _rate(update, budget)


def bench_training(quick: bool = False) -> dict:
    budget = 0.5 if quick else 2.0
    task = make_task(TASK, LAG)
    rng = np.random.default_rng(0)
    batches = [task.batch(rng, BATCH) for _ in range(8)]
    rows = [Row(c, _seqviz(c, batches, budget), _torch(c, batches, budget)) for c in CELLS]
    return {
        "task": TASK, "lag": LAG, "hidden": HIDDEN, "batch": BATCH, "steps": LAG + 5,
        "target_per_s": TARGET,
        "rows": [{**asdict(r), "ratio": r.ratio} for r in rows],
    }  # fmt: skip


def format_report(result: dict) -> str:
    lines = [
        f"Training updates per second, one core: {result['task']} at lag {result['lag']} "
        f"({result['steps']} steps), hidden {result['hidden']}, batch {result['batch']}, "
        "Adam, clip 1, float64",
        f"{'cell':<5} {'seqviz':>9} {'PyTorch':>9} {'ratio':>7}  "
        f"needs {result['target_per_s']:g}/s",
    ]
    for r in result["rows"]:
        t = "—" if r["torch_per_s"] is None else f"{r['torch_per_s']:.0f}/s"
        ratio = "—" if r["ratio"] is None else f"{r['ratio']:.2f}x"
        ok = "ok" if r["seqviz_per_s"] >= result["target_per_s"] else "TOO SLOW"
        lines.append(f"{r['cell'].upper():<5} {r['seqviz_per_s']:>7.0f}/s {t:>9} {ratio:>7}  {ok}")
    lines.append("ratio: seqviz's rate over PyTorch's (above 1: seqviz is faster)")
    return "\n".join(lines)
