"""Scene 2, memory: one pulse then silence, held by a one-unit RNN and by a one-unit LSTM cell."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from seqviz.scenes import title_of
from seqviz.scenes.base import ParamSpec, Scene

SPECS = (
    ParamSpec("w", "RNN weight w", "float", 0.9, 0.0, 3.0, 0.05,
              help="recurrent weight of the one-unit tanh RNN"),
    ParamSpec("forget_bias", "forget bias", "float", 5.0, -5.0, 15.0, 0.5,
              help="LSTM forget-gate bias b_f; f = sigmoid(b_f)"),
    ParamSpec("steps", "steps", "int", 100, 10, 1000, 10, help="sequence length T"),
)  # fmt: skip


@dataclass(frozen=True)
class MemoryResult:
    values: Any
    rnn_h: np.ndarray  # (T,) RNN hidden state h_t
    lstm_c: np.ndarray  # (T,) LSTM cell state c_t
    lstm_h: np.ndarray  # (T,) LSTM hidden state h_t
    forget: float  # f = sigmoid(forget_bias)
    decay: np.ndarray  # (T,) f**k for k = 0..T-1
    lesson_rnn: tuple[tuple[float, float], ...]  # (w, h_T) for the lesson's weights
    lesson_lstm: tuple[tuple[float, float, float], ...]  # (b_f, f, c_T)

    @property
    def T(self) -> int:
        return int(self.rnn_h.shape[0])


def compute(v: Any) -> MemoryResult:
    from seqviz import experiments
    from seqviz.core import forward

    x = experiments.pulse(v.steps)
    rnn_h, _ = forward(experiments.memory_rnn(v.w), x)
    lstm_h, lstm_c = forward(experiments.memory_lstm(v.forget_bias), x)
    f = 1.0 / (1.0 + np.exp(-v.forget_bias))
    table = lesson_table(v.steps)
    return MemoryResult(
        values=v,
        rnn_h=np.asarray(rnn_h)[:, 0],
        lstm_c=np.asarray(lstm_c)[:, 0],
        lstm_h=np.asarray(lstm_h)[:, 0],
        forget=float(f),
        decay=f ** np.arange(v.steps, dtype=np.float64),
        lesson_rnn=tuple((r.w, r.h_final) for r in table.rnn),
        lesson_lstm=tuple((r.forget_bias, r.forget_gate, r.c_final) for r in table.lstm),
    )


@lru_cache(maxsize=8)
def lesson_table(steps: int) -> Any:
    """The lesson's weights and biases (w 0.9/1.5; b_f 2/5/10) at this length, via experiments."""
    from seqviz import experiments

    return experiments.memory(steps=steps)


def frames(result: MemoryResult) -> int:
    return result.T


def traces(result: MemoryResult) -> dict[str, Any]:
    """The one-unit RNN and LSTM reading the pulse."""
    from seqviz import experiments
    from seqviz.core import trace

    v = result.values
    x = experiments.pulse(v.steps)
    return {
        "rnn": trace(experiments.memory_rnn(v.w), x),
        "lstm": trace(experiments.memory_lstm(v.forget_bias), x),
    }


SCENE = Scene(
    name="memory",
    title=title_of("memory"),
    summary="A single pulse, then silence: how long does each cell remember it?",
    specs=SPECS,
    compute=compute,
    frames=frames,
    view="seqviz.ui.views.memory:MemoryView",
    traces=traces,
)
