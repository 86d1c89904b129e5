"""The flip-flop network: a tanh RNN with a linear readout, trained on the flip-flop task."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from seqviz.core import Params, forward
from seqviz.models.format import register_kind, save_model
from seqviz.tasks import flipflop as task

KIND = "flipflop"
CORE = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")


class FlipFlopRNN:
    """h_t = tanh(W_ih x_t + W_hh h_{t-1} + b), y_t = W_out h_t + b_out; mean squared error."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self._p = {k: np.array(v, dtype=float) for k, v in arrays.items()}  # writable copies
        self.dtype = np.dtype(np.float64)
        _ = self.params  # validates the shapes

    @classmethod
    def random(cls, hidden: int = 24, bits: int = task.BITS, seed: int = 0) -> FlipFlopRNN:
        p = Params.random("rnn", bits, hidden, seed=seed)
        rng = np.random.default_rng(seed + 1)
        out = rng.normal(0.0, 1.0 / np.sqrt(hidden), (bits, hidden))
        core = {k: getattr(p, k) for k in CORE}
        return cls({**core, "w_out": out, "b_out": np.zeros(bits)})

    @property
    def params(self) -> Params:
        """The recurrent cell as core Params (a read-only snapshot of the current weights)."""
        return Params.from_arrays("rnn", *(self._p[k] for k in CORE))

    @property
    def hidden(self) -> int:
        return int(self._p["weight_hh"].shape[0])

    @property
    def bits(self) -> int:
        return int(self._p["w_out"].shape[0])

    def parameters(self) -> dict[str, np.ndarray]:
        return self._p

    def set_dtype(self, dtype: str) -> None:
        """Train in float32 or float64 from now on (the file is float64 either way)."""
        from seqviz.core.blas import check_dtype

        self.dtype = check_dtype(dtype)
        self._p = {k: np.ascontiguousarray(v, self.dtype) for k, v in self._p.items()}

    def readout(self, h: np.ndarray) -> np.ndarray:
        """(..., d) states -> (..., bits) outputs."""
        return h @ self._p["w_out"].T + self._p["b_out"]

    def run(self, x: np.ndarray, h0: np.ndarray | None = None) -> np.ndarray:
        """States (T, d) for pulses x (T, bits) from h0 (zeros by default)."""
        h, _ = forward(self.params, x, h0=h0)
        return h

    def loss_and_grads(self, batch: task.FlipFlopBatch) -> tuple[float, dict[str, np.ndarray]]:
        """Mean squared error over sequences, steps and bits; its gradient by the core's BPTT."""
        from seqviz.core import batch_backward, batch_record
        from seqviz.core.blas import uses_blas

        B, T, C = batch.y.shape
        w_out = self._p["w_out"]
        if uses_blas(self.dtype, self.hidden):
            return self._blas_loss_and_grads(batch)
        record = batch_record(self.params, batch.x)  # kept: the backward pass reuses it
        h = record.h  # (B, T, d)
        err = self.readout(h) - batch.y  # (B, T, C)
        g_y = (2.0 / (B * T * C)) * err
        out = batch_backward(record, g_y @ w_out)
        grads = {k: np.asarray(out["grad_" + k], dtype=float).copy() for k in CORE}
        grads["w_out"] = np.einsum("btc,btd->cd", g_y, h)
        grads["b_out"] = g_y.sum(axis=(0, 1))
        return float(np.mean(err * err)), grads

    def _blas_loss_and_grads(
        self, batch: task.FlipFlopBatch
    ) -> tuple[float, dict[str, np.ndarray]]:
        """loss_and_grads on the batched BLAS kernels, in the model's dtype."""
        from seqviz.core.blas import blas_backward, blas_record

        B, T, C = batch.y.shape
        p, dt = self._p, self.dtype
        rec = blas_record("rnn", tuple(p[k] for k in CORE), batch.x.transpose(1, 0, 2))
        h = rec.h  # (T, B, d)
        err = self.readout(h) - batch.y.transpose(1, 0, 2).astype(dt)  # (T, B, C)
        g_y = (2.0 / (B * T * C)) * err
        out = blas_backward(rec, g_y @ p["w_out"])
        grads = out.weights()
        grads["w_out"] = g_y.reshape(T * B, C).T @ h.reshape(T * B, -1)
        grads["b_out"] = g_y.sum(axis=(0, 1))
        return float(np.mean(err.astype(np.float64) ** 2)), grads

    def evaluate(self, data: task.FlipFlopBatch) -> dict[str, float]:
        """Mean squared error, and the share of held bits (target != 0) whose sign is right."""
        params = self.params
        sq, right, held = 0.0, 0, 0
        for b in range(len(data.x)):
            y = self.readout(forward(params, data.x[b])[0])
            sq += float(np.sum((y - data.y[b]) ** 2))
            mask = data.y[b] != 0
            right += int(np.sum(np.sign(y[mask]) == data.y[b][mask]))
            held += int(mask.sum())
        return {"mse": sq / data.y.size, "bit_accuracy": right / max(held, 1)}

    def save(self, path: str | os.PathLike[str]) -> Path:
        return save_model(path, KIND, {k: v.astype(np.float64) for k, v in self._p.items()})

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], path: Path) -> FlipFlopRNN:
        missing = [k for k in (*CORE, "w_out", "b_out") if k not in arrays]
        if missing:
            raise ValueError(
                f"{str(path)!r} is not a flip-flop model: it lacks {', '.join(missing)}."
            )
        try:
            return cls({k: arrays[k] for k in (*CORE, "w_out", "b_out")})
        except ValueError as exc:
            raise ValueError(f"{str(path)!r} is not a valid flip-flop model: {exc}") from None


@dataclass(frozen=True)
class TrainSettings:
    hidden: int = 24
    steps: int = 100
    batch: int = 32
    batches: int = 40  # per epoch
    seed: int = 0


def batches_for(settings: TrainSettings) -> Any:
    """The batches callable of seqviz.training.fit: fresh random sequences every epoch."""

    def make(epoch: int, rng: np.random.Generator) -> Any:
        for _ in range(settings.batches):
            yield task.batch(rng, settings.batch, settings.steps)

    return make


def quality(model: FlipFlopRNN, seed: int = 12345) -> dict[str, float]:
    """Held-out quality: error and right bits on 64 fresh sequences of 200 steps (a seed the
    training never draws), and the fixed points found from their states."""
    from seqviz.dynamics import find_fixed_points

    test = task.dataset(seed, 64, 200)
    scores = model.evaluate(test)
    states = np.concatenate([model.run(x) for x in test.x[:16]])
    fixed = find_fixed_points(model.params, starts=states, n_starts=512)
    return {**scores, "stable": len(fixed.stable), "saddles": len(fixed.saddles)}


register_kind(KIND, FlipFlopRNN.from_arrays, "a seqviz flip-flop network")
