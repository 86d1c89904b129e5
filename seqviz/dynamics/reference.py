"""Plain-NumPy Lyapunov grid: the oracle for the Numba kernel and the baseline of its benchmark."""

from __future__ import annotations

import numpy as np

from seqviz.dynamics.lyapunov import network


def lyapunov_grid_reference(rhos, scales, hidden=64, steps=500, seed=0, burn=None, grad_steps=30):  # noqa: ANN001, ANN201
    """All R*S networks at once as one batch: (lyap (R, S), grad (R, S)), same as lyapunov_grid."""
    net = network(hidden, steps, seed)
    r = np.asarray(rhos, dtype=float)[:, None, None]  # (R, 1, 1)
    s = np.asarray(scales, dtype=float)[None, :, None]  # (1, S, 1)
    shape = (r.shape[0], s.shape[1], hidden)
    h = np.broadcast_to(net.h0, shape).copy()  # (R, S, d)
    v = np.broadcast_to(net.v0, shape).copy()
    b = steps // 5 if burn is None else burn
    acc = np.zeros(shape[:2])
    slopes = []
    for t in range(steps):
        h = np.tanh(r * (h @ net.w.T) + s * net.x[t])
        slope = 1.0 - h * h
        v = slope * (r * (v @ net.w.T))
        norm = np.linalg.norm(v, axis=2)
        if t >= b:
            acc += np.log(norm)
        v /= norm[..., None]
        if t >= steps - grad_steps:
            slopes.append(slope)
    g = np.full(shape, 1.0 / np.sqrt(hidden))
    for slope in reversed(slopes):
        g = r * ((slope * g) @ net.w)
    return acc / (steps - b), np.linalg.norm(g, axis=2)
