"""StackParams: weights of a stacked and/or bidirectional nn.RNN/LSTM/GRU, in PyTorch's layout."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from seqviz.core._io import atomic_savez
from seqviz.core.codes import N_GATES
from seqviz.core.params import Params, _check_size, _infer_cell, read_state, split_prefix

DIRECTIONS = ("forward", "reverse")
_NAMES = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
_KEY = re.compile(r"^(weight_ih|weight_hh|bias_ih|bias_hh)_l(\d+)(_reverse)?$")


def key(name: str, layer: int, direction: int) -> str:
    """PyTorch's key of one weight: key("weight_hh", 1, 1) == "weight_hh_l1_reverse"."""
    return f"{name}_l{layer}{'_reverse' if direction else ''}"


def direction_index(direction: int | str) -> int:
    """0 for "forward" (or 0), 1 for "reverse"/"backward" (or 1); a ValueError otherwise."""
    if direction in (0, 1) and not isinstance(direction, bool):
        return int(direction)
    if isinstance(direction, str) and direction.lower() in ("forward", "reverse", "backward"):
        return 0 if direction.lower() == "forward" else 1
    raise ValueError(f"unknown direction {direction!r}; allowed: forward, reverse (0, 1).")


@dataclass(frozen=True, eq=False)
class StackParams:
    """num_layers x (1 or 2) cells; cells[l * D + k] is layer l, direction k (0 fwd, 1 reverse).

    Layer 0 reads the input; layer l > 0 reads the concatenated outputs (T, D*d) of layer l-1.
    """

    cells: tuple[Params, ...]
    num_layers: int
    bidirectional: bool

    def __post_init__(self) -> None:
        L = _check_size(self.num_layers, "num_layers")
        D = 2 if self.bidirectional else 1
        cells = tuple(self.cells)
        if len(cells) != L * D or not all(isinstance(p, Params) for p in cells):
            raise ValueError(f"a {L}-layer stack with {D} direction(s) needs {L * D} Params.")
        first = cells[0]
        for i, p in enumerate(cells):
            layer, k = divmod(i, D)
            name = key("weight_ih", layer, k)
            if (p.cell, p.nonlinearity, p.variant) != (
                first.cell,
                first.nonlinearity,
                first.variant,
            ):
                raise ValueError(f"{name} belongs to a {p.cell} cell; the stack is {first.cell}.")
            if p.hidden_size != first.hidden_size:
                raise ValueError(
                    f"{key('weight_hh', layer, k)} has hidden size {p.hidden_size}; "
                    f"every layer of this stack has {first.hidden_size}."
                )
            want = first.input_size if layer == 0 else D * first.hidden_size
            if p.input_size != want:
                raise ValueError(
                    f"{name} has shape {p.weight_ih.shape}; layer {layer} reads "
                    f"{want} inputs, so it needs ({p.n_gates * p.hidden_size}, {want})."
                )
        object.__setattr__(self, "cells", cells)
        object.__setattr__(self, "num_layers", L)
        object.__setattr__(self, "bidirectional", bool(self.bidirectional))

    @property
    def cell(self) -> str:
        return self.cells[0].cell

    @property
    def nonlinearity(self) -> str:
        return self.cells[0].nonlinearity

    @property
    def variant(self) -> str:
        return self.cells[0].variant

    @property
    def num_directions(self) -> int:
        return 2 if self.bidirectional else 1

    @property
    def input_size(self) -> int:
        return self.cells[0].input_size

    @property
    def hidden_size(self) -> int:
        return self.cells[0].hidden_size

    @property
    def output_size(self) -> int:
        """Width of each layer's output: 2d when bidirectional, else d."""
        return self.num_directions * self.hidden_size

    @property
    def n_params(self) -> int:
        return sum(p.n_params for p in self.cells)

    def layer(self, layer: int, direction: int | str = 0) -> Params:
        """The Params of one cell, or a ValueError naming the allowed layers/directions."""
        k = direction_index(direction)
        if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)):
            raise ValueError(f"layer must be an integer, got {layer!r}.")
        if not 0 <= layer < self.num_layers:
            raise ValueError(
                f"layer {layer} does not exist; this stack has layers 0-{self.num_layers - 1}."
            )
        if k >= self.num_directions:
            raise ValueError("direction reverse exists only in a bidirectional stack.")
        return self.cells[int(layer) * self.num_directions + k]

    def describe(self) -> str:
        bi = "bidirectional " if self.bidirectional else ""
        return f"{self.num_layers}-layer {bi}{self.cell} (hidden {self.hidden_size})"

    def __repr__(self) -> str:
        return (
            f"StackParams(cell={self.cell!r}, input_size={self.input_size}, hidden_size="
            f"{self.hidden_size}, num_layers={self.num_layers}, bidirectional={self.bidirectional})"
        )

    @classmethod
    def from_params(cls, params: Params) -> StackParams:
        """A one-layer, one-direction stack around a single cell."""
        return cls((params,), 1, False)

    @classmethod
    def random(
        cls,
        cell: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bidirectional: bool = False,
        *,
        seed: int = 0,
        **kwargs: Any,
    ) -> StackParams:
        """Each cell as Params.random (same keyword arguments) with its own seed from `seed`."""
        L = _check_size(num_layers, "num_layers")
        D = 2 if bidirectional else 1
        d = _check_size(hidden_size, "hidden_size")
        seeds = np.random.SeedSequence(seed).generate_state(L * D)
        cells = tuple(
            Params.random(cell, input_size if i < D else D * d, d, seed=int(s), **kwargs)
            for i, s in enumerate(seeds)
        )
        return cls(cells, L, bidirectional)

    def to_dict(self) -> dict[str, np.ndarray]:
        """PyTorch's state_dict keys (weight_ih_l0, ..., bias_hh_l1_reverse) plus the settings."""
        out: dict[str, np.ndarray] = {}
        D = self.num_directions
        for i, p in enumerate(self.cells):
            layer, k = divmod(i, D)
            for name in _NAMES:
                out[key(name, layer, k)] = getattr(p, name)
        out.update(
            cell=np.array(self.cell), nonlinearity=np.array(self.nonlinearity),
            variant=np.array(self.variant), num_layers=np.array(self.num_layers),
            bidirectional=np.array(self.bidirectional),
        )  # fmt: skip
        return out

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write an .npz with PyTorch's key names and the cell settings (atomic)."""
        return atomic_savez(path, self.to_dict())

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        nonlinearity: str | None = None,
        variant: str | None = None,
    ) -> StackParams:
        """Read an .npz (save() or torch keys) or a torch state_dict (.pt/.pth) of any stack."""
        data = read_state(Path(path))
        default_variant = "pytorch" if "cell" not in data else str(data.get("variant", "textbook"))
        return cls.from_state_dict(
            data,
            nonlinearity=nonlinearity or str(data.get("nonlinearity", "tanh")),
            variant=variant or default_variant,
        )

    @classmethod
    def from_state_dict(
        cls, state: dict[str, Any], *, nonlinearity: str = "tanh", variant: str = "pytorch"
    ) -> StackParams:
        """A stack from an nn.RNN/LSTM/GRU state_dict (arrays), possibly inside a bigger model.

        Keys of other sub-modules ("fc.weight") and seqviz's settings are ignored; a missing
        layer, a missing direction or an inconsistent shape is a ValueError naming the key.
        """
        prefix, own = split_prefix(state)
        parsed: dict[tuple[str, int, int], np.ndarray] = {}
        for name, v in own.items():
            m = _KEY.match(name)
            if m:
                parsed[(m[1], int(m[2]), 1 if m[3] else 0)] = np.asarray(v, dtype=np.float64)
            elif "." not in name and name not in ("cell", "nonlinearity", "variant", "num_layers",
                                           "bidirectional"):  # fmt: skip
                raise ValueError(
                    f"the weights have {prefix + name}, which seqviz does not support (only "
                    "nn.RNN/nn.LSTM/nn.GRU keys weight_ih_lK, weight_hh_lK, bias_ih_lK, "
                    "bias_hh_lK, optionally _reverse, without projection)."
                )
        L = 1 + max(layer for _, layer, _ in parsed)
        D = 2 if any(k for _, _, k in parsed) else 1
        has_bias = any(name.startswith("bias") for name, _, _ in parsed)
        need = _NAMES if has_bias else _NAMES[:2]
        for layer in range(L):
            for k in range(D):
                for name in need:
                    if (name, layer, k) not in parsed:
                        what = "direction" if k else "layer"
                        raise ValueError(
                            f"the weights lack {prefix}{key(name, layer, k)}: a {L}-layer "
                            f"{'bidirectional ' if D == 2 else ''}network needs it (missing "
                            f"{what} {layer})."
                        )
        cell = _infer_cell(parsed[("weight_ih", 0, 0)], parsed[("weight_hh", 0, 0)])
        G, d = N_GATES[cell], parsed[("weight_hh", 0, 0)].shape[1]
        cells = []
        for layer in range(L):
            for k in range(D):
                arrays = {n: parsed.get((n, layer, k)) for n in _NAMES}
                d_in = parsed[("weight_ih", 0, 0)].shape[1] if layer == 0 else D * d
                shapes = {"weight_ih": (G * d, d_in), "weight_hh": (G * d, d),
                          "bias_ih": (G * d,), "bias_hh": (G * d,)}  # fmt: skip
                for n, want in shapes.items():
                    a = arrays[n]
                    if a is not None and a.shape != want:
                        raise ValueError(
                            f"{prefix}{key(n, layer, k)} has shape {a.shape}, but this "
                            f"{cell} stack (hidden size {d}) needs {want}."
                        )
                cells.append(
                    Params.from_arrays(
                        cell,
                        arrays["weight_ih"],
                        arrays["weight_hh"],
                        arrays["bias_ih"],
                        arrays["bias_hh"],
                        nonlinearity=nonlinearity if cell == "rnn" else "tanh",
                        variant=variant if cell == "gru" else "textbook",
                    )  # fmt: skip
                )
        return cls(tuple(cells), L, D == 2)
