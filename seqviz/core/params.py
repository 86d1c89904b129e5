"""Params: the weights of one recurrent cell, in PyTorch's single-layer nn.RNN/LSTM/GRU layout."""

from __future__ import annotations

import dataclasses
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from seqviz.core._io import atomic_savez, read_npz
from seqviz.core.codes import N_GATES, NONLINEARITY_CODES, VARIANT_CODES
from seqviz.files import refuse_non_finite
from seqviz.limits import shown

if TYPE_CHECKING:
    from seqviz.core.stack_params import StackParams

CELLS = tuple(N_GATES)
NONLINEARITIES = tuple(NONLINEARITY_CODES)
VARIANTS = tuple(VARIANT_CODES)
_KEYS = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")


def _check_choice(value: object, allowed: tuple[str, ...], what: str) -> str:
    if not isinstance(value, str) or value.lower() not in allowed:
        raise ValueError(f"unknown {what} {value!r}; allowed: {', '.join(allowed)}.")
    return value.lower()


def as_float_array(value: Any, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """`value` as a read-only float64 C array of `shape`, or a one-sentence ValueError."""
    try:
        arr = np.array(value, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers.") from None
    if arr.shape != shape:
        raise ValueError(f"{name} has shape {arr.shape}, expected {shape}.")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains non-finite values (inf or nan); all must be finite.")
    arr.flags.writeable = False
    return arr


def _check_size(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}.")
    return int(value)


@dataclass(frozen=True, eq=False)
class Params:
    """Weights of one cell. Gate row blocks follow PyTorch: LSTM i,f,g,o; GRU r,z,n."""

    cell: str
    weight_ih: np.ndarray  # (G*d, d_in)
    weight_hh: np.ndarray  # (G*d, d)
    bias_ih: np.ndarray  # (G*d,)
    bias_hh: np.ndarray  # (G*d,)
    nonlinearity: str = "tanh"  # rnn only: tanh | relu | linear
    variant: str = "textbook"  # gru only: textbook | pytorch

    def __post_init__(self) -> None:
        cell = _check_choice(self.cell, CELLS, "cell")
        nonlinearity = _check_choice(self.nonlinearity, NONLINEARITIES, "nonlinearity")
        variant = _check_choice(self.variant, VARIANTS, "GRU variant")
        if cell != "rnn" and nonlinearity != "tanh":
            raise ValueError(f"nonlinearity applies to the rnn cell only; {cell} uses 'tanh'.")
        if cell != "gru" and variant != "textbook":
            raise ValueError(f"variant applies to the gru cell only; {cell} uses 'textbook'.")
        g = N_GATES[cell]
        w_hh = np.asarray(self.weight_hh)
        w_ih = np.asarray(self.weight_ih)
        if w_hh.ndim != 2 or w_hh.shape[1] < 1 or w_hh.shape[0] != g * w_hh.shape[1]:
            raise ValueError(
                f"weight_hh has shape {w_hh.shape}; a {cell} cell needs ({g}*d, d) with d >= 1."
            )
        d = w_hh.shape[1]
        if w_ih.ndim != 2 or w_ih.shape[0] != g * d or w_ih.shape[1] < 1:
            raise ValueError(
                f"weight_ih has shape {w_ih.shape}; a {cell} cell with hidden size {d} "
                f"needs ({g * d}, input_size) with input_size >= 1."
            )
        set_ = object.__setattr__
        set_(self, "cell", cell)
        set_(self, "nonlinearity", nonlinearity)
        set_(self, "variant", variant)
        set_(self, "weight_ih", as_float_array(w_ih, "weight_ih", w_ih.shape))
        set_(self, "weight_hh", as_float_array(w_hh, "weight_hh", w_hh.shape))
        set_(self, "bias_ih", as_float_array(self.bias_ih, "bias_ih", (g * d,)))
        set_(self, "bias_hh", as_float_array(self.bias_hh, "bias_hh", (g * d,)))

    @property
    def input_size(self) -> int:
        return int(self.weight_ih.shape[1])

    @property
    def hidden_size(self) -> int:
        return int(self.weight_hh.shape[1])

    @property
    def n_gates(self) -> int:
        return N_GATES[self.cell]

    @property
    def n_params(self) -> int:
        return int(
            self.weight_ih.size + self.weight_hh.size + self.bias_ih.size + self.bias_hh.size
        )

    def __repr__(self) -> str:
        extra = f", nonlinearity={self.nonlinearity!r}" if self.cell == "rnn" else ""
        extra += f", variant={self.variant!r}" if self.cell == "gru" else ""
        return (
            f"Params(cell={self.cell!r}, input_size={self.input_size}, "
            f"hidden_size={self.hidden_size}{extra})"
        )

    @classmethod
    def from_arrays(
        cls,
        cell: str,
        weight_ih: Any,
        weight_hh: Any,
        bias_ih: Any = None,
        bias_hh: Any = None,
        *,
        nonlinearity: str = "tanh",
        variant: str = "textbook",
    ) -> Params:
        """Build and validate Params from arrays; a missing bias is zeros."""
        rows = np.shape(weight_hh)[0] if np.ndim(weight_hh) >= 1 else 0
        zeros = np.zeros(rows)
        return cls(
            cell,
            weight_ih,
            weight_hh,
            zeros if bias_ih is None else bias_ih,
            zeros if bias_hh is None else bias_hh,
            nonlinearity=nonlinearity,
            variant=variant,
        )

    @classmethod
    def random(
        cls,
        cell: str,
        input_size: int,
        hidden_size: int,
        *,
        seed: int | None = 0,
        forget_bias: float = 1.0,
        spectral_radius: float | None = None,
        nonlinearity: str = "tanh",
        variant: str = "textbook",
        scale: float | None = None,
    ) -> Params:
        """Uniform(-scale, scale) weights (default scale 1/sqrt(hidden_size)), zero biases.

        spectral_radius rescales each d x d recurrent block of weight_hh to that radius;
        forget_bias (LSTM only) is put in the forget rows of bias_ih.
        """
        cell = _check_choice(cell, CELLS, "cell")
        if seed is not None:
            from seqviz.limits import check_seed

            seed = check_seed(seed, "seed")
        d_in = _check_size(input_size, "input_size")
        d = _check_size(hidden_size, "hidden_size")
        g = N_GATES[cell]
        k = 1.0 / np.sqrt(d) if scale is None else float(scale)
        if not np.isfinite(k) or k < 0:
            raise ValueError(f"scale must be a finite number >= 0, got {scale!r}.")
        rng = np.random.default_rng(seed)
        w_ih = rng.uniform(-k, k, (g * d, d_in))
        w_hh = rng.uniform(-k, k, (g * d, d))
        if spectral_radius is not None:
            rho = float(spectral_radius)
            if not np.isfinite(rho) or rho < 0:
                raise ValueError(f"spectral_radius must be a finite number >= 0, got {rho!r}.")
            for b in range(g):
                block = w_hh[b * d : (b + 1) * d]
                radius = float(np.max(np.abs(np.linalg.eigvals(block))))
                if radius > 0:
                    block *= rho / radius
        b_ih = np.zeros(g * d)
        if cell == "lstm":
            fb = float(forget_bias)
            if not np.isfinite(fb):
                raise ValueError(f"forget_bias must be a finite number, got {forget_bias!r}.")
            b_ih[d : 2 * d] = fb
        return cls(
            cell, w_ih, w_hh, b_ih, np.zeros(g * d), nonlinearity=nonlinearity, variant=variant
        )

    def replace(self, **changes: Any) -> Params:
        """A copy with some fields changed, validated like a new Params."""
        return dataclasses.replace(self, **changes)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write an .npz with PyTorch's key names plus cell, nonlinearity and variant (atomic)."""
        atomic_savez(path, self.to_dict())

    def to_dict(self) -> dict[str, np.ndarray]:
        arrays = (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        out: dict[str, np.ndarray] = dict(zip(_KEYS, arrays, strict=True))
        out.update(
            cell=np.array(self.cell),
            nonlinearity=np.array(self.nonlinearity),
            variant=np.array(self.variant),
        )
        return out

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        nonlinearity: str | None = None,
        variant: str | None = None,
    ) -> Params | StackParams:
        """Read an .npz written by save(), or a torch state_dict (.pt/.pth) of nn.RNN/LSTM/GRU.

        A single-layer, one-direction model gives a Params; a stacked or bidirectional one
        (weight_ih_l1, ..._reverse) gives a StackParams. A torch nn.RNN state_dict does not
        record its nonlinearity: pass it (default tanh). A GRU from torch loads with
        variant="pytorch", since that is what nn.GRU computes.
        """
        p = Path(path)
        state = read_state(p)
        if is_stack(state):
            from seqviz.core.stack_params import StackParams

            return StackParams.load(p, nonlinearity=nonlinearity, variant=variant)
        if "cell" not in state:
            # PyTorch's keys without seqviz's metadata: weights exported from torch.
            params = cls.from_state_dict(
                state, nonlinearity=nonlinearity or "tanh", variant=variant or "pytorch"
            )
            if params.cell == "rnn" and nonlinearity is None:
                # A ReLU RNN read as tanh gives wrong states without any error: say so.
                warnings.warn(AssumedNonlinearity(p), stacklevel=2)
            return params
        data = state
        missing = [k for k in _KEYS[:2] if k not in data]
        if missing:
            raise ValueError(f"{p} lacks {', '.join(missing)}; expected PyTorch key names.")
        return cls.from_arrays(
            str(data["cell"]), data["weight_ih_l0"], data["weight_hh_l0"],
            data.get("bias_ih_l0"), data.get("bias_hh_l0"),
            nonlinearity=nonlinearity or str(data.get("nonlinearity", "tanh")),
            variant=variant or str(data.get("variant", "textbook")),
        )  # fmt: skip

    @classmethod
    def from_state_dict(
        cls, state: dict[str, Any], *, nonlinearity: str = "tanh", variant: str = "pytorch"
    ) -> Params:
        """Params from a single-layer, one-direction nn.RNN/LSTM/GRU state_dict (arrays).

        The recurrent layer may sit inside a bigger model ("lstm.weight_ih_l0", ...); keys of
        other sub-modules ("fc.weight") are ignored.
        """
        prefix, state = split_prefix(state)
        extra = [prefix + k for k in state if k not in _KEYS and "." not in k]
        if extra:
            raise ValueError(
                f"the weights have {', '.join(sorted(extra)[:3])}: Params holds one cell (keys "
                "weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0); load stacked or "
                "bidirectional networks with StackParams, without projection."
            )
        if "weight_hh_l0" not in state:
            raise ValueError(f"the weights have {prefix}weight_ih_l0 but no {prefix}weight_hh_l0.")
        w_ih = np.asarray(state["weight_ih_l0"], dtype=np.float64)
        w_hh = np.asarray(state["weight_hh_l0"], dtype=np.float64)
        cell = _infer_cell(w_ih, w_hh)
        return cls.from_arrays(
            cell, w_ih, w_hh, state.get("bias_ih_l0"), state.get("bias_hh_l0"),
            nonlinearity=nonlinearity if cell == "rnn" else "tanh",
            variant=variant if cell == "gru" else "textbook",
        )  # fmt: skip


class AssumedNonlinearity(UserWarning):
    """An nn.RNN state_dict was read with tanh assumed, since the dict does not record it."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path}: an nn.RNN state_dict does not record its nonlinearity; assumed tanh. "
            "For a ReLU RNN pass nonlinearity='relu' (on the command line: --nonlinearity relu)."
        )


def read_state(path: Path) -> dict[str, Any]:
    """The arrays of a weights file: a torch state_dict (.pt/.pth) or an .npz (save() or torch
    key names); FileNotFoundError or a one-sentence ValueError if it cannot be read."""
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if path.suffix.lower() in (".pt", ".pth"):
        from seqviz.core.torch_io import load_state_dict

        state = dict(load_state_dict(path))
    else:
        state = read_npz(path, "a weights file", "weights file")
    return refuse_non_finite(state, shown(path))


def split_prefix(state: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(prefix, its keys without it) of the one nn.RNN/LSTM/GRU in a state_dict, which may sit
    inside a bigger model ("lstm.weight_ih_l0", ...); ValueError if there is none or several."""
    found = sorted(k for k in state if k.endswith("weight_ih_l0"))
    if not found:
        raise ValueError(
            "the weights hold no weight_ih_l0: expected the state_dict of an nn.RNN, "
            "nn.LSTM or nn.GRU."
        )
    if len(found) > 1:
        raise ValueError(
            f"the weights hold several recurrent networks ({', '.join(found)}); "
            "save the state_dict of the one nn.RNN/nn.LSTM/nn.GRU to show."
        )
    prefix = found[0][: -len("weight_ih_l0")]
    return prefix, {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}


def is_stack(state: dict[str, Any]) -> bool:
    """Whether a state_dict holds more than layer 0 forward (weight_*_l1..., *_reverse)."""
    return (
        any(
            ("weight_" in k and "_l" in k and not k.endswith("_l0")) or k.endswith("_reverse")
            for k in state
        )
        or "num_layers" in state
    )


def _infer_cell(w_ih: np.ndarray, w_hh: np.ndarray) -> str:
    """The cell from G = weight_hh rows / weight_hh columns (1 rnn, 3 gru, 4 lstm)."""
    if np.ndim(w_hh) != 2 or np.shape(w_hh)[1] == 0:
        raise ValueError(f"weight_hh_l0 has shape {np.shape(w_hh)}, expected (G*d, d).")
    rows, d = np.shape(w_hh)
    by_gates = {1: "rnn", 3: "gru", 4: "lstm"}
    if rows % d or rows // d not in by_gates or np.shape(w_ih)[0] != rows:
        raise ValueError(
            f"weights of shapes {np.shape(w_ih)} and {np.shape(w_hh)} match no cell; "
            "expected G*d rows with G = 1 (rnn), 3 (gru) or 4 (lstm)."
        )
    return by_gates[rows // d]
