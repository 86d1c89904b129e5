"""Numba kernels of the Lyapunov grid (imported on first use: numba is not needed to start)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from seqviz.dynamics.lyapunov import TANH


# No fast-math flags: in the chaotic half of the grid any rounding difference grows until the
# exponents differ in their second digit, so the sums must not depend on the CPU. With
# "reassoc"/"contract", LLVM summed W h in vector lanes as wide as the CPU's (AVX2: 4,
# AVX-512: 8) and fused multiply-adds where it could, and the chaos map's colours differed
# between two machines. Here every sum runs in index order, one rounding per operation, so the
# result is the same on any x86-64; the loops are arranged so that the vectorised direction is
# across independent sums (each lane one output element), which needs no reassociation.
@njit(cache=True, nogil=True)
def _run(w, wt, x, h0, v0, rho, scale, burn, k_grad, nl, slopes):
    """One network W = rho * w (wt: w.T, C-contiguous): (lambda_max, |dL/dh_{T-1-k_grad}|);
    slopes (k_grad, d) scratch."""
    T, d = x.shape
    h = h0.copy()
    v = v0.copy()
    s = np.empty(d)
    sv = np.empty(d)
    acc = 0.0
    for t in range(T):
        s[:] = 0.0
        sv[:] = 0.0
        for j in range(d):  # s[i] = sum_j w[i, j] h[j], each in order of j
            hj = h[j]
            vj = v[j]
            for i in range(d):
                s[i] += wt[j, i] * hj
                sv[i] += wt[j, i] * vj
        norm = 0.0
        for i in range(d):
            a = rho * s[i] + scale * x[t, i]
            if nl == TANH:
                h[i] = math.tanh(a)
                slope = 1.0 - h[i] * h[i]
            else:
                h[i] = a
                slope = 1.0
            v[i] = slope * (rho * sv[i])
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
        g[:] = 0.0
        for i in range(d):  # g[j] = sum_i w[i, j] gs[i], each in order of i
            gi = gs[i]
            for j in range(d):
                g[j] += w[i, j] * gi
        for j in range(d):
            g[j] *= rho
    gn = 0.0
    for j in range(d):
        gn += g[j] * g[j]
    return acc / (T - burn), math.sqrt(gn)


@njit(cache=True, nogil=True, parallel=True)
def _grid(w, x, h0, v0, rhos, scales, burn, k_grad, nl, lyap, grad):
    nr, ns = rhos.size, scales.size
    d = w.shape[0]
    wt = np.ascontiguousarray(w.T)
    for idx in prange(nr * ns):
        i = idx // ns
        j = idx - i * ns
        slopes = np.empty((max(k_grad, 1), d))
        lam, gn = _run(w, wt, x, h0, v0, rhos[i], scales[j], burn, k_grad, nl, slopes)
        lyap[i, j] = lam
        grad[i, j] = gn
