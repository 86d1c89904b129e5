"""Trace nn.RNN, nn.LSTM and nn.GRU with seqviz and check against PyTorch's forward and autograd.

Run:  python demos/compare_with_pytorch.py        (needs torch; seqviz itself does not)

Each model is saved with torch.save(state_dict) and read back with seqviz.Params.load, exactly
as `seqviz --weights model.pt` does. seqviz's loss is <g, h_T> with g = ones(d)/sqrt(d) (the
lesson's gradient at the last state), so the same loss is built in PyTorch and both gradients
are compared: every weight, every bias and the input.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

import seqviz

try:
    import torch
except ImportError:
    sys.exit("this example needs PyTorch: pip install torch")

T, D_IN, D = 25, 6, 10


def compare(cell: str, folder: Path) -> dict[str, float]:
    torch.manual_seed(0)
    module = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[cell](D_IN, D)
    path = folder / f"{cell}.pt"
    torch.save(module.state_dict(), path)

    params = seqviz.Params.load(path)  # a GRU loads as variant="pytorch": nn.GRU's equations
    x = np.random.default_rng(1).normal(0.0, 1.0, (T, D_IN))
    tr = seqviz.trace(params, x)

    module = module.double()
    xt = torch.tensor(x, requires_grad=True)
    out, _ = module(xt[:, None])  # (T, batch 1, D): nn.* is sequence-first by default
    loss = out[-1, 0].sum() / np.sqrt(D)
    loss.backward()

    def diff(ours: np.ndarray, theirs: torch.Tensor) -> float:
        return float(np.max(np.abs(ours - theirs.detach().numpy())))

    return {
        "h": diff(tr.h, out[:, 0]),
        "dW_ih": diff(tr.grad_weight_ih, module.weight_ih_l0.grad),
        "dW_hh": diff(tr.grad_weight_hh, module.weight_hh_l0.grad),
        "db_ih": diff(tr.grad_bias_ih, module.bias_ih_l0.grad),
        "db_hh": diff(tr.grad_bias_hh, module.bias_hh_l0.grad),
        "dx": diff(tr.grad_x, xt.grad),
    }


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        rows = {cell: compare(cell, Path(tmp)) for cell in ("rnn", "lstm", "gru")}
    names = list(next(iter(rows.values())))
    print("max |seqviz - PyTorch|  " + "  ".join(f"{n:>8}" for n in names))
    for cell, row in rows.items():
        print(f"{cell:<22} " + "  ".join(f"{row[n]:8.1e}" for n in names))
    worst = max(v for row in rows.values() for v in row.values())
    print(f"worst difference {worst:.1e}: " + ("agree" if worst < 1e-9 else "DISAGREE"))
    return 0 if worst < 1e-9 else 1


if __name__ == "__main__":
    raise SystemExit(main())
