"""Imported by the trainer processes' forkserver: loads the training kernels once for every fork.

Importing this module runs one tiny update of each cell, which compiles the batched kernels (or
loads them from Numba's cache); every trainer process forked afterwards starts with them loaded.
Nothing else imports it. A failure here must not stop the forkserver: each trainer would then
load its kernels itself (and report any real error through its pipe).
"""

from __future__ import annotations

try:
    import numpy as np

    from seqviz.training.live import Trainer
    from seqviz.training.race import RaceConfig

    with np.errstate(all="ignore"):
        Trainer(RaceConfig(task="copy", lag=1, cells=("rnn", "lstm", "gru"), hidden=4,
                           batch=2)).run(1, 0.01, 1.0)  # fmt: skip
except Exception:  # noqa: BLE001 (see the docstring)
    pass
