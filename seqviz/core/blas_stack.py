"""Stacked and bidirectional networks on the batched BLAS kernels, for training.

Weights are a dict under PyTorch's keys (weight_ih_l0, bias_hh_l1_reverse, ...) in float32 or
float64. x is (T, B, d_in) time-major, every sequence of the batch T steps long (a trainer
groups its sequences by length). Layer l > 0 reads the concatenated outputs (T, B, D*d) of
layer l-1; a reverse cell reads its input from the last step to the first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from seqviz.core.blas import BlasRecord, blas_backward, blas_record
from seqviz.core.stack_params import key

NAMES = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")


def group_by_length(lengths: Sequence[int]) -> list[np.ndarray]:
    """Indices of equal-length sequences, one array per length (longest first)."""
    lengths = np.asarray(lengths)
    return [np.flatnonzero(lengths == n) for n in sorted(set(lengths.tolist()), reverse=True)]


@dataclass(frozen=True, eq=False)
class StackRecord:
    """A stack's forward pass kept for stack_backward."""

    records: tuple[BlasRecord, ...]  # cell l*D + k, in its reading order
    num_layers: int
    num_directions: int
    out: np.ndarray  # (T, B, D*d) the top layer's output in time order


def _cell_weights(weights: dict[str, np.ndarray], layer: int, k: int) -> tuple:
    return tuple(weights[key(n, layer, k)] for n in NAMES)


def stack_record(
    cell: str,
    weights: dict[str, np.ndarray],
    num_layers: int,
    bidirectional: bool,
    x: np.ndarray,
    *,
    variant: str = "textbook",
    nonlinearity: str = "tanh",
) -> StackRecord:
    """Forward through every layer and direction from zero states."""
    D = 2 if bidirectional else 1
    records: list[BlasRecord] = []
    inp = x
    for layer in range(num_layers):
        outs = []
        for k in range(D):
            rec = blas_record(cell, _cell_weights(weights, layer, k), inp[::-1] if k else inp,
                              variant=variant, nonlinearity=nonlinearity)  # fmt: skip
            records.append(rec)
            outs.append(rec.h[::-1] if k else rec.h)
        inp = np.concatenate(outs, axis=2) if D > 1 else outs[0]
    return StackRecord(tuple(records), num_layers, D, inp)


def stack_backward(
    rec: StackRecord, grad_out: np.ndarray
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """BPTT from dL/d(top output) (T, B, D*d): the weights' gradients under PyTorch's keys and
    dL/dx (T, B, d_in)."""
    D = rec.num_directions
    grads: dict[str, np.ndarray] = {}
    g_top = grad_out
    for layer in range(rec.num_layers - 1, -1, -1):
        g_in = None
        for k in range(D):
            r = rec.records[layer * D + k]
            d = r.hidden
            g = g_top[:, :, k * d : (k + 1) * d]
            out = blas_backward(r, g[::-1] if k else g, want_x=True)
            for name, value in out.weights().items():
                grads[key(name, layer, k)] = value
            gx = out.x[::-1] if k else out.x  # type: ignore[index]
            g_in = gx if g_in is None else g_in + gx
        g_top = g_in
    return grads, g_top  # type: ignore[return-value]
