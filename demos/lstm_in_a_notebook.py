"""Looking inside an LSTM from Python: gates, the cell path, gradients, and a trained model.

Runs as a script (python demos/lstm_in_a_notebook.py) or cell by cell in Jupyter / VS Code
(the `# %%` markers). Everything here is seqviz's library API; the app draws the same traces.
"""

# %% An LSTM with random weights reads a random sequence
import numpy as np

import seqviz

params = seqviz.Params.random("lstm", input_size=8, hidden_size=16, seed=0, forget_bias=1.0)
x = np.random.default_rng(0).normal(0.0, 1.0, (50, 8))  # (T, d_in)
tr = seqviz.trace(params, x)
print("h", tr.h.shape, "c", tr.c.shape, "gates", tr.gates.shape)  # (T, d) (T, d) (T, 4, d)

# %% Gate values: i, f, g, o in PyTorch's order; sigmoid gates live in (0, 1)
for k, name in enumerate("ifgo"):
    g = tr.gates[:, k]
    print(f"{name}: mean {g.mean():+.3f}  min {g.min():+.3f}  max {g.max():+.3f}")
print(
    f"forget bias 1 -> mean f {tr.gates[:, 1].mean():.3f} (sigmoid(1) = {1 / (1 + np.exp(-1)):.3f})"
)

# %% The cell path: dL/dc k steps back against the product of the forget gates
f = tr.gates[:, 1]  # (T, d)
prod_f = np.cumprod(f[::-1], axis=0)  # row k: product of f over the last k+1 steps
grad_c = np.linalg.norm(tr.grad_c[::-1], axis=1)  # (T,) |dL/dc| k steps back
for k in (1, 10, 30):
    print(f"k={k:2d}  |dL/dc| {grad_c[k]:.1e}   mean prod f {prod_f[k - 1].mean():.1e}")

# %% A larger forget bias keeps both alive for longer
for bias in (1.0, 3.0, 6.0):
    b = params.bias_hh.copy()  # Params arrays are read-only: change a copy
    b[16:32] += bias - 1.0  # rows d..2d are the forget gate (blocks i, f, g, o)
    t2 = seqviz.trace(params.replace(bias_hh=b), x)
    print(f"forget bias {bias:.0f}: |dL/dh| 30 steps back {t2.grad_norms()[30]:.1e}")

# %% Save for later; the app's `e` key writes the same format
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

with tempfile.TemporaryDirectory() as tmp:
    path = tr.save(Path(tmp) / "lstm-trace.npz")
    back = seqviz.Trace.load(path)
    print("saved and reloaded:", np.array_equal(back.h, tr.h), sorted(np.load(path).files)[:6])

# %% A trained model: the word-level LSTM shipped with seqviz (the agreement grammar)
from seqviz import models  # noqa: E402

lm = models.load("agreement")
plural = lm.trace("the keys to the cabinet in the hallway")
singular = lm.trace("the key to the cabinet in the hallway")
gap = plural.h[-1] - singular.h[-1]  # last state: six words after the subject
units = np.argsort(-np.abs(gap))[:3]
print(
    "units that still remember the subject's number:",
    ", ".join(f"{u} ({plural.h[-1, u]:+.2f} vs {singular.h[-1, u]:+.2f})" for u in units),
)
print(
    "P(next | plural):",
    {
        w: round(p, 3)
        for w, p in list(lm.next_token_probs("the keys to the cabinet in the hallway").items())[:3]
    },
)

# %% Optional: the same numbers from PyTorch (see compare_with_pytorch.py for all three cells)
try:
    import torch
except ImportError:
    torch = None
if torch is not None:
    module = torch.nn.LSTM(8, 16).double()
    with torch.no_grad():
        for name in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"):
            getattr(module, name).copy_(torch.tensor(params.to_dict()[name]))
        out, _ = module(torch.from_numpy(x)[:, None])
    print("PyTorch agrees on h:", np.allclose(out[:, 0].numpy(), tr.h, atol=1e-12))
