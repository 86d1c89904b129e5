"""A recurrent cell with a linear readout at the last step: the model the training scene trains."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from seqviz.core.api import batch_backward, batch_forward, batch_record
from seqviz.core.blas import Workspace, blas_backward, blas_record, check_dtype, uses_blas
from seqviz.core.params import CELLS, Params
from seqviz.models.format import register_kind, save_model
from seqviz.tasks.lagged import LagBatch

CELL_NAMES = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
NAMES = (*CELL_NAMES, "out_weight", "out_bias")
KIND = "lagged"


@dataclass(frozen=True)
class Diagnostics:
    """What the last loss_and_grads saw, for the plots (all arrays are this batch's)."""

    loss: float
    accuracy: float  # share of the batch answered right at the last step
    probs: np.ndarray  # (B, C) predicted class probabilities
    grad_h: np.ndarray  # (B, T, d) dL/dh_t
    forget: np.ndarray | None  # (B, T, d) LSTM forget gate, None for other cells
    finite: bool


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


class LagClassifier:
    """cell (PyTorch layout) -> h_T -> out_weight h_T + out_bias -> softmax over the classes.

    The loss is the mean cross-entropy of the answer at the last step. Arrays live in
    ``self.arrays`` and are updated in place by the trainer, in ``self.dtype`` (float64 unless
    ``set_dtype("float32")``); the file and ``params`` are float64 either way.
    """

    kind = KIND

    def __init__(self, cell: str, n_inputs: int, hidden: int, n_classes: int, *, seed: int = 0,
                 forget_bias: float = 1.0, variant: str = "textbook") -> None:  # fmt: skip
        if cell not in CELLS:
            raise ValueError(f"unknown cell {cell!r}; allowed: {', '.join(CELLS)}.")
        p = Params.random(cell, n_inputs, hidden, seed=seed, forget_bias=forget_bias,
                          variant=variant)  # fmt: skip
        self.variant = p.variant
        k = 1.0 / np.sqrt(hidden)
        rng = np.random.default_rng([seed, 1])
        self.cell = cell
        self.arrays: dict[str, np.ndarray] = {
            "weight_ih": p.weight_ih.copy(),  # (G*d, n_in)
            "weight_hh": p.weight_hh.copy(),  # (G*d, d)
            "bias_ih": p.bias_ih.copy(),  # (G*d,)
            "bias_hh": p.bias_hh.copy(),  # (G*d,)
            "out_weight": rng.uniform(-k, k, (n_classes, hidden)),  # (C, d)
            "out_bias": np.zeros(n_classes),  # (C,)
        }
        self.last: Diagnostics | None = None
        self.dtype = np.dtype(np.float64)
        self._workspace = Workspace()

    def set_dtype(self, dtype: str) -> None:
        """Train in float32 or float64 from now on (the arrays are converted)."""
        self.dtype = check_dtype(dtype)
        self.arrays = {k: np.ascontiguousarray(v, self.dtype) for k, v in self.arrays.items()}

    @property
    def hidden(self) -> int:
        return int(self.arrays["weight_hh"].shape[1])

    def parameters(self) -> dict[str, np.ndarray]:
        return self.arrays

    def finite(self) -> bool:
        return all(np.isfinite(a).all() for a in self.arrays.values())

    @property
    def params(self) -> Params:
        """The recurrent cell as core Params (what the gates scene can show)."""
        a = self.arrays
        return Params(self.cell, a["weight_ih"], a["weight_hh"], a["bias_ih"], a["bias_hh"],
                      variant=self.variant)  # fmt: skip

    def loss_and_grads(self, batch: LagBatch) -> tuple[float, dict[str, np.ndarray]]:
        """Mean cross-entropy of the last step's answer and its gradient for every array."""
        B, T = batch.x.shape[:2]
        d = self.hidden
        if not self.finite():
            # A diverged update left inf/nan weights: report it as a nan loss, never raise.
            nan = {k: np.full_like(v, np.nan) for k, v in self.arrays.items()}
            C = self.arrays["out_bias"].shape[0]
            self.last = Diagnostics(float("nan"), float("nan"), np.full((B, C), np.nan),
                                    np.full((B, T, d), np.nan), None, False)  # fmt: skip
            return float("nan"), nan
        if uses_blas(self.dtype, d):
            return self._blas_loss_and_grads(batch)
        record = batch_record(self.params, batch.x)  # kept: the backward pass reuses it
        hT = record.h[:, -1]  # (B, d)
        with np.errstate(all="ignore"):
            logp = _log_softmax(hT @ self.arrays["out_weight"].T + self.arrays["out_bias"])
        loss = float(-logp[np.arange(B), batch.y].mean())
        probs = np.exp(logp)  # (B, C)
        dz = probs.copy()
        dz[np.arange(B), batch.y] -= 1.0
        dz /= B  # (B, C) dL/dlogits
        grad_out = np.zeros((B, T, d))
        grad_out[:, -1] = dz @ self.arrays["out_weight"]
        tr = batch_backward(record, grad_out)
        grads = {name: tr[f"grad_{name}"] for name in CELL_NAMES}
        grads["out_weight"] = dz.T @ hT  # (C, d)
        grads["out_bias"] = dz.sum(axis=0)  # (C,)
        finite = bool(np.isfinite(loss)) and all(np.isfinite(g).all() for g in grads.values())
        forget = tr["gates"][:, :, 1, :] if self.cell == "lstm" else None
        accuracy = float(np.mean(probs.argmax(axis=1) == batch.y))
        self.last = Diagnostics(loss, accuracy, probs, tr["grad_h"], forget, finite)
        return loss, grads

    def _blas_loss_and_grads(self, batch: LagBatch) -> tuple[float, dict[str, np.ndarray]]:
        """loss_and_grads on the batched BLAS kernels, in the model's dtype."""
        a, B = self.arrays, batch.x.shape[0]
        w = (a["weight_ih"], a["weight_hh"], a["bias_ih"], a["bias_hh"])
        ws = self._workspace
        rec = blas_record(self.cell, w, batch.x.transpose(1, 0, 2), variant=self.variant,
                          workspace=ws)  # fmt: skip
        hT = rec.h[-1]  # (B, d)
        with np.errstate(all="ignore"):
            logp = _log_softmax(hT @ a["out_weight"].T + a["out_bias"])
        loss = float(-logp[np.arange(B), batch.y].astype(np.float64).mean())
        probs = np.exp(logp)
        dz = probs.copy()
        dz[np.arange(B), batch.y] -= 1.0
        dz /= B
        g = blas_backward(rec, grad_hT=dz @ a["out_weight"], workspace=ws)
        grads = g.weights()
        grads["out_weight"] = dz.T @ hT
        grads["out_bias"] = dz.sum(axis=0)
        finite = bool(np.isfinite(loss)) and all(np.isfinite(v).all() for v in grads.values())
        f64 = np.float64
        grad_h = g.grad_h.transpose(1, 0, 2).astype(f64)  # (B, T, d) for the views
        forget = rec.gate(1).transpose(1, 0, 2).astype(f64) if self.cell == "lstm" else None
        accuracy = float(np.mean(probs.argmax(axis=1) == batch.y))
        self.last = Diagnostics(loss, accuracy, probs.astype(f64), grad_h, forget, finite)
        return loss, grads

    def predict(self, x: Any) -> np.ndarray:
        """Class probabilities (B, C) at the last step of x (B, T, n_inputs)."""
        h, _, _ = batch_forward(self.params, x)
        return np.exp(_log_softmax(h[:, -1] @ self.arrays["out_weight"].T
                                   + self.arrays["out_bias"]))  # fmt: skip

    def save(self, path: str | os.PathLike[str]) -> Path:
        """The arrays with the cell and variant, in the one model format (written atomically)."""
        extra = {"cell": np.array(self.cell), "variant": np.array(self.variant)}
        arrays = {k: v.astype(np.float64) for k, v in self.arrays.items()}
        return save_model(path, KIND, {**arrays, **extra})

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], path: Path | None = None) -> LagClassifier:
        """A model from a file's arrays (the loader registered for the kind)."""
        where = f" in {str(path)!r}" if path is not None else ""
        missing = [k for k in (*NAMES, "cell") if k not in arrays]
        if missing:
            raise ValueError(f"the lagged classifier{where} lacks {', '.join(missing)}.")
        cell = str(arrays["cell"])
        variant = str(arrays["variant"]) if "variant" in arrays else "textbook"
        w_ih, out_w = np.asarray(arrays["weight_ih"]), np.asarray(arrays["out_weight"])
        if w_ih.ndim != 2 or out_w.ndim != 2:
            raise ValueError(f"the lagged classifier{where} has weights of the wrong shape.")
        model = cls(cell, w_ih.shape[1], out_w.shape[1], out_w.shape[0], variant=variant)
        for name in NAMES:
            want = model.arrays[name].shape
            got = np.asarray(arrays[name], dtype=float)
            if got.shape != want:
                raise ValueError(f"{name}{where} has shape {got.shape}, expected {want}.")
            model.arrays[name] = got.copy()
        return model


register_kind(KIND, LagClassifier.from_arrays, "a seqviz lagged classifier")
