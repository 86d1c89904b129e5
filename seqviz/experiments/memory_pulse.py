"""The lesson's second experiment: how much of one input pulse a scalar RNN and LSTM still hold."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from seqviz.core import Params, forward, trace
from seqviz.experiments import _check_int, _jsonable


@dataclass(frozen=True)
class RnnMemory:
    w: float
    h_final: float


@dataclass(frozen=True)
class LstmMemory:
    forget_bias: float
    forget_gate: float
    c_final: float
    h_final: float


@dataclass(frozen=True)
class MemoryResult:
    steps: int
    rnn: tuple[RnnMemory, ...]
    lstm: tuple[LstmMemory, ...]

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(asdict(self))


def pulse(steps: int) -> np.ndarray:
    """(steps, 1): a single 1 at the first step, then zeros."""
    x = np.zeros((steps, 1))
    x[0, 0] = 1.0
    return x


def memory_rnn(w: float) -> Params:
    """Scalar RNN h_t = tanh(w h_{t-1} + 2 x_t)."""
    return Params.from_arrays("rnn", [[2.0]], [[w]])


def memory_lstm(forget_bias: float) -> Params:
    """Scalar LSTM whose gates ignore h: f = sig(b), i = sig(8x - 4), g = tanh(2x), o = sig(4)."""
    w_ih = np.array([[8.0], [0.0], [2.0], [0.0]])  # rows i, f, g, o
    b_ih = np.array([-4.0, forget_bias, 0.0, 4.0])
    return Params.from_arrays("lstm", w_ih, np.zeros((4, 1)), b_ih)


def memory(
    ws: Sequence[float] = (0.9, 1.5),
    forget_biases: Sequence[float] = (2.0, 5.0, 10.0),
    steps: int = 100,
) -> MemoryResult:
    """How much of one input pulse a scalar RNN and a scalar LSTM still hold after `steps`."""
    _check_int(steps, "steps", 1)
    x = pulse(steps)
    rnn = []
    for w in ws:
        h, _ = forward(memory_rnn(w), x)
        rnn.append(RnnMemory(float(w), float(h[-1, 0])))
    lstm = []
    for b in forget_biases:
        tr = trace(memory_lstm(b), x)
        assert tr.gates is not None and tr.c is not None  # an LSTM trace has both
        lstm.append(
            LstmMemory(float(b), float(tr.gates[0, 1, 0]), float(tr.c[-1, 0]), float(tr.h[-1, 0]))
        )
    return MemoryResult(steps, tuple(rnn), tuple(lstm))
