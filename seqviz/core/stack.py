"""trace_stack: forward and BPTT through every layer and direction of a stack, on the kernels."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from seqviz.core._io import atomic_savez
from seqviz.core.api import run_forward, run_trace
from seqviz.core.params import Params, as_float_array
from seqviz.core.stack_params import DIRECTIONS, StackParams, direction_index, key
from seqviz.core.trace import Overflow, Trace


def _ro(arr: np.ndarray) -> np.ndarray:
    # The kernels get read-only C arrays only, so Numba compiles (and caches) one signature.
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    arr.flags.writeable = False
    return arr


@dataclass(frozen=True, eq=False)
class StackOverflow:
    """Where a stack first became non-finite: the cell (layer, direction) and its Overflow."""

    layer: int
    direction: int
    overflow: Overflow

    def describe(self) -> str:
        where = f"layer {self.layer}" + (" (reverse)" if self.direction else "")
        return f"{where}: {self.overflow.describe()}"


@dataclass(frozen=True, eq=False)
class StackTrace:
    """Every state, gate and gradient of a stack on one sequence.

    cells[l * D + k] is the Trace of layer l, direction k in the order that cell read its input:
    a reverse cell's Trace runs from the last time step to the first. The accessors below
    return arrays in time order (row t belongs to input t) for both directions.
    """

    params: StackParams
    x: np.ndarray  # (T, d_in)
    h: np.ndarray  # (T, D*d) the top layer's output, as nn.LSTM's first output
    h_n: np.ndarray  # (L*D, d) final states, as nn.LSTM's h_n
    c_n: np.ndarray | None  # (L*D, d) LSTM only
    cells: tuple[Trace, ...]
    grad_x: np.ndarray  # (T, d_in)
    overflow: StackOverflow | None = None

    def __post_init__(self) -> None:
        for value in (self.x, self.h, self.h_n, self.c_n, self.grad_x):
            if isinstance(value, np.ndarray):
                value.flags.writeable = False

    @property
    def T(self) -> int:
        return int(self.h.shape[0])

    def cell(self, layer: int, direction: int | str = 0) -> Trace:
        """The Trace of one cell, in that cell's reading order."""
        self.params.layer(layer, direction)  # validates
        return self.cells[layer * self.params.num_directions + direction_index(direction)]

    def _timed(self, arr: np.ndarray | None, direction: int | str) -> np.ndarray | None:
        if arr is None:
            return None
        return arr[::-1] if direction_index(direction) else arr

    def states(self, layer: int, direction: int | str = 0) -> np.ndarray:
        """(T, d) h of one cell in time order: row t is its state at input t."""
        return self._timed(self.cell(layer, direction).h, direction)  # type: ignore[return-value]

    def cell_states(self, layer: int, direction: int | str = 0) -> np.ndarray | None:
        """(T, d) c of one LSTM cell in time order; None for other cells."""
        return self._timed(self.cell(layer, direction).c, direction)

    def gates(self, layer: int, direction: int | str = 0) -> np.ndarray | None:
        """(T, G, d) gate values of one cell in time order; None for the plain RNN."""
        return self._timed(self.cell(layer, direction).gates, direction)

    def grad_states(self, layer: int, direction: int | str = 0) -> np.ndarray:
        """(T, d) total dL/dh of one cell in time order."""
        return self._timed(self.cell(layer, direction).grad_h, direction)  # type: ignore[return-value]

    def output(self, layer: int) -> np.ndarray:
        """(T, D*d) the output of one layer: forward states, then reverse ones, per step."""
        parts = [self.states(layer, k) for k in range(self.params.num_directions)]
        return np.concatenate(parts, axis=1)

    def grads(self) -> dict[str, np.ndarray]:
        """dL/d(every weight) under PyTorch's key names (weight_ih_l0, bias_hh_l1_reverse, ...)."""
        out: dict[str, np.ndarray] = {}
        D = self.params.num_directions
        for i, tr in enumerate(self.cells):
            layer, k = divmod(i, D)
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                out[key(name, layer, k)] = getattr(tr, "grad_" + name)
        return out

    def grad_h0(self) -> np.ndarray:
        """(L*D, d) dL/dh0 of every cell, in nn.LSTM's h_0 order."""
        return np.stack([tr.grad_h0 for tr in self.cells])

    def grad_c0(self) -> np.ndarray:
        """(L*D, d) dL/dc0 of every cell (zeros unless LSTM)."""
        return np.stack([tr.grad_c0 for tr in self.cells])

    def save(self, path: str | os.PathLike[str]) -> Path:
        """An .npz: x, h (top output), h_n, per-cell states/gates/grads in time order, weights."""
        p = self.params
        arrays: dict[str, np.ndarray] = {"x": self.x, "h": self.h, "h_n": self.h_n,
                                         "grad_x": self.grad_x}  # fmt: skip
        if self.c_n is not None:
            arrays["c_n"] = self.c_n
        arrays.update(p.to_dict())
        for layer in range(p.num_layers):
            for k in range(p.num_directions):
                arrays[key("h", layer, k)] = self.states(layer, k)
                arrays[key("grad_h", layer, k)] = self.grad_states(layer, k)
                for name, value in (("c", self.cell_states(layer, k)),
                                    ("gates", self.gates(layer, k))):  # fmt: skip
                    if value is not None:
                        arrays[key(name, layer, k)] = value
        for name, g in self.grads().items():
            arrays["grad_" + name] = g
        if self.overflow is not None:
            arrays["overflow"] = np.array(self.overflow.describe())
        return atomic_savez(path, arrays)


def _initial(value: Any, name: str, n: int, d: int) -> np.ndarray:
    if value is None:
        return np.zeros((n, d))
    return as_float_array(value, name, (n, d))


def _checked(params: Any, x: Any) -> tuple[StackParams, np.ndarray]:
    if isinstance(params, Params):
        params = StackParams.from_params(params)
    if not isinstance(params, StackParams):
        raise ValueError(f"params must be seqviz StackParams, got {type(params).__name__}.")
    shape = np.shape(x)
    if len(shape) != 2 or shape[0] < 1:
        raise ValueError(
            f"x has shape {shape}; expected (T, {params.input_size}) with T >= 1 steps."
        )
    return params, as_float_array(x, "x", (shape[0], params.input_size))


def _layer_forward(
    params: StackParams, layer: int, xin: np.ndarray, h0: np.ndarray, c0: np.ndarray
) -> np.ndarray:
    """(T, D*d) output of one layer from its input (T, d_in) and initial states (L*D, d)."""
    D, lstm = params.num_directions, params.cell == "lstm"
    zero = _ro(np.zeros(params.hidden_size))
    outs = []
    for k in range(D):
        i = layer * D + k
        h, _ = run_forward(
            params.cells[i], _ro(xin[::-1] if k else xin), _ro(h0[i]), _ro(c0[i]) if lstm else zero
        )
        outs.append(h[::-1] if k else h)
    return _ro(np.concatenate(outs, axis=1))


def forward_stack(params: StackParams | Params, x: Any, h0: Any = None, c0: Any = None):
    """Forward pass only: the top layer's output (T, D*d), as nn.LSTM's first output."""
    params, x_ = _checked(params, x)
    n, d = params.num_layers * params.num_directions, params.hidden_size
    h0_, c0_ = _initial(h0, "h0", n, d), _initial(c0, "c0", n, d)
    out = x_
    for layer in range(params.num_layers):
        out = _layer_forward(params, layer, out, h0_, c0_)
    return out


def trace_stack(
    params: StackParams | Params,
    x: Any,
    h0: Any = None,
    c0: Any = None,
    grad_out: Any = None,
    grad_hn: Any = None,
) -> StackTrace:
    """Forward through every layer and direction, then BPTT back through all of them.

    x is (T, input_size); h0/c0 are (L*D, d) like nn.LSTM's (h_0, c_0). The loss gradient is
    grad_out (T, D*d), dL/d(top output), plus grad_hn (L*D, d), dL/dh_n; with neither the loss
    is sum(top output at the last step)/sqrt(D*d). A single Params is a one-layer stack.
    """
    params, x_ = _checked(params, x)
    T = x_.shape[0]
    L, D, d = params.num_layers, params.num_directions, params.hidden_size
    lstm = params.cell == "lstm"
    h0_ = _initial(h0, "h0", L * D, d)
    if c0 is not None and not lstm:
        raise ValueError(f"c0 is only used by the lstm cell, not by {params.cell}.")
    c0_ = _initial(c0, "c0", L * D, d)
    if grad_out is None and grad_hn is None:
        g_top = np.zeros((T, D * d))
        g_top[-1] = 1.0 / np.sqrt(D * d)
    else:
        g_top = (
            np.zeros((T, D * d))
            if grad_out is None
            else as_float_array(grad_out, "grad_out", (T, D * d))
        )
    g_hn = (
        np.zeros((L * D, d)) if grad_hn is None else as_float_array(grad_hn, "grad_hn", (L * D, d))
    )
    zero = _ro(np.zeros(d))

    # Forward, layer by layer: each layer's input is the concatenated output of the one below.
    inputs = [x_]
    for layer in range(L - 1):
        inputs.append(_layer_forward(params, layer, inputs[-1], h0_, c0_))

    # Backward, top layer first: dL/d(input of layer l) is dL/d(output of layer l-1).
    traces: list[Trace | None] = [None] * (L * D)
    for layer in range(L - 1, -1, -1):
        g_in = np.zeros_like(inputs[layer])
        for k in range(D):
            i = layer * D + k
            xin, g = inputs[layer], g_top[:, k * d : (k + 1) * d]
            if k:
                xin, g = xin[::-1], g[::-1]
            c_init = _ro(c0_[i]) if lstm else zero
            tr = run_trace(params.cells[i], _ro(xin), _ro(h0_[i]), c_init, _ro(g), _ro(g_hn[i]))
            traces[i] = tr
            g_in += tr.grad_x[::-1] if k else tr.grad_x
        g_top = g_in
    cells = tuple(t for t in traces if t is not None)
    top_cells = cells[(L - 1) * D :]
    top = np.concatenate([tr.h[::-1] if k else tr.h for k, tr in enumerate(top_cells)], axis=1)
    h_n = np.stack([tr.h[-1] for tr in cells])
    c_n = np.stack([tr.c[-1] for tr in cells if tr.c is not None]) if lstm else None
    return StackTrace(
        params=params, x=x_, h=top, h_n=h_n, c_n=c_n, cells=cells, grad_x=g_top,
        overflow=_first_overflow(cells, D),
    )  # fmt: skip


def _first_overflow(cells: tuple[Trace, ...], D: int) -> StackOverflow | None:
    """The lowest layer's forward overflow, else the top layer's backward one (order computed)."""
    for i, tr in enumerate(cells):
        if tr.overflow is not None and tr.overflow.phase == "forward":
            return StackOverflow(i // D, i % D, tr.overflow)
    for i in range(len(cells) - 1, -1, -1):
        found = cells[i].overflow
        if found is not None:
            return StackOverflow(i // D, i % D, found)
    return None


__all__ = [
    "DIRECTIONS",
    "StackOverflow",
    "StackParams",
    "StackTrace",
    "forward_stack",
    "trace_stack",
]
