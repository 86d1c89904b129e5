"""Numba kernels of the Lyapunov grid (imported on first use: numba is not needed to start)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from seqviz.dynamics.lyapunov import TANH


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _run(w, x, h0, v0, rho, scale, burn, k_grad, nl, slopes):
    """One network W = rho * w: (lambda_max, |dL/dh_{T-1-k_grad}|); slopes (k_grad, d) scratch."""
    T, d = x.shape
    h = h0.copy()
    v = v0.copy()
    a = np.empty(d)
    wv = np.empty(d)
    acc = 0.0
    for t in range(T):
        for i in range(d):
            s = 0.0
            sv = 0.0
            for j in range(d):
                s += w[i, j] * h[j]
                sv += w[i, j] * v[j]
            a[i] = rho * s + scale * x[t, i]
            wv[i] = rho * sv
        norm = 0.0
        for i in range(d):
            if nl == TANH:
                h[i] = math.tanh(a[i])
                slope = 1.0 - h[i] * h[i]
            else:
                h[i] = a[i]
                slope = 1.0
            v[i] = slope * wv[i]
            norm += v[i] * v[i]
            if t >= T - k_grad:
                slopes[t - (T - k_grad), i] = slope
        norm = math.sqrt(norm)
        if not norm > 0.0:  # the tangent vector died (rho 0): no growth at all
            return -math.inf, 0.0
        if t >= burn:
            acc += math.log(norm)
        for i in range(d):
            v[i] /= norm
    # L = sum(h_T)/sqrt(d), as the traces use: dL/dh_{t-1} = W^T (slope_t * dL/dh_t).
    g = np.full(d, 1.0 / math.sqrt(d))
    gs = np.empty(d)
    for k in range(k_grad - 1, -1, -1):
        for i in range(d):
            gs[i] = slopes[k, i] * g[i]
        for j in range(d):
            s = 0.0
            for i in range(d):
                s += w[i, j] * gs[i]
            g[j] = rho * s
    gn = 0.0
    for j in range(d):
        gn += g[j] * g[j]
    return acc / (T - burn), math.sqrt(gn)


@njit(cache=True, nogil=True, parallel=True)
def _grid(w, x, h0, v0, rhos, scales, burn, k_grad, nl, lyap, grad):
    nr, ns = rhos.size, scales.size
    d = w.shape[0]
    for idx in prange(nr * ns):
        i = idx // ns
        j = idx - i * ns
        slopes = np.empty((max(k_grad, 1), d))
        lam, gn = _run(w, x, h0, v0, rhos[i], scales[j], burn, k_grad, nl, slopes)
        lyap[i, j] = lam
        grad[i, j] = gn
