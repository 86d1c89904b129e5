"""Numba kernels: forward pass and backpropagation through time for RNN, LSTM and GRU cells."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from seqviz.core.codes import GRU, LSTM, PYTORCH, RELU, RNN, TANH, TEXTBOOK


@njit(cache=True, nogil=True, inline="always")
def _sigmoid(z):
    # No branch: exp(-z) = inf for very negative z gives exactly 0 (Numba does not raise), and a
    # branch on the sign mispredicts on mixed-sign inputs and costs more than the exp.
    return 1.0 / (1.0 + math.exp(-z))


@njit(cache=True, nogil=True, inline="always")
def _phi(a, nl):
    if nl == TANH:
        return math.tanh(a)
    if nl == RELU:
        return a if a > 0.0 else 0.0
    return a


# Matrix-vector products are written out rather than np.dot: a BLAS call per step pays call
# overhead and, with a threaded BLAS on a busy machine, thread hand-offs that cost far more than
# the arithmetic. "reassoc" lets LLVM vectorise the sums; no flag assumes finite
# values, so inf/nan still propagate.
@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _matvec(w, v, out):
    """out = w @ v for w (n, m) C-contiguous."""
    n, m = w.shape
    for i in range(n):
        s = 0.0
        for k in range(m):
            s += w[i, k] * v[k]
        out[i] = s


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _matvec_t(w, v, out):
    """out = w.T @ v for w (n, m) C-contiguous, walking w row by row."""
    n, m = w.shape
    for k in range(m):
        out[k] = 0.0
    n4 = n - n % 4
    # Four rows per pass over out: a quarter of the loads and stores of out.
    for i in range(0, n4, 4):
        v0, v1, v2, v3 = v[i], v[i + 1], v[i + 2], v[i + 3]
        for k in range(m):
            out[k] += w[i, k] * v0 + w[i + 1, k] * v1 + w[i + 2, k] * v2 + w[i + 3, k] * v3
    for i in range(n4, n):
        vi = v[i]
        for k in range(m):
            out[k] += w[i, k] * vi


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _outer_sum(a, b, out):
    """out += a.T @ b for a (tb, n), b (tb, m): a sum of tb outer products.

    Row i of out stays in cache while the tb steps are added; callers pass blocks of ~32 steps
    so that b stays in cache too.
    """
    tb, n = a.shape
    m = b.shape[1]
    t4 = tb - tb % 4
    for i in range(n):
        for t in range(0, t4, 4):
            a0, a1, a2, a3 = a[t, i], a[t + 1, i], a[t + 2, i], a[t + 3, i]
            for k in range(m):
                out[i, k] += a0 * b[t, k] + a1 * b[t + 1, k] + a2 * b[t + 2, k] + a3 * b[t + 3, k]
        for t in range(t4, tb):
            ai = a[t, i]
            for k in range(m):
                out[i, k] += ai * b[t, k]


@njit(cache=True, nogil=True)
def _forward_loop(cell, nl, variant, w_ih, w_hh, b_ih, b_hh, x, h0, c0, h, c, gates, aux, pre, hh):
    """Fill h (T,d), c (T,d), gates (T,G,d), aux (T,d) from x (T,d_in); pre (T,Gd), hh (Gd,) work.

    aux holds what the backward pass would otherwise recompute: tanh(c_t) (LSTM), r*h_{t-1}
    (textbook GRU) or W_hn h_{t-1} + b_hn (pytorch GRU).
    """
    T = x.shape[0]
    d = h0.shape[0]
    gd = w_hh.shape[0]
    # The input projections do not depend on h: all of them first, out of the recurrence.
    for t in range(T):
        _matvec(w_ih, x[t], pre[t])  # (Gd,)
        for j in range(gd):
            pre[t, j] += b_ih[j]
    for t in range(T):
        hprev = h0 if t == 0 else h[t - 1]
        if cell == RNN:
            _matvec(w_hh, hprev, hh)
            for j in range(d):
                h[t, j] = _phi(pre[t, j] + hh[j] + b_hh[j], nl)
        elif cell == LSTM:
            _matvec(w_hh, hprev, hh)
            cprev = c0 if t == 0 else c[t - 1]
            for j in range(d):
                ig = _sigmoid(pre[t, j] + hh[j] + b_hh[j])
                fg = _sigmoid(pre[t, d + j] + hh[d + j] + b_hh[d + j])
                gg = math.tanh(pre[t, 2 * d + j] + hh[2 * d + j] + b_hh[2 * d + j])
                og = _sigmoid(pre[t, 3 * d + j] + hh[3 * d + j] + b_hh[3 * d + j])
                ct = fg * cprev[j] + ig * gg
                c[t, j] = ct
                tc = math.tanh(ct)
                aux[t, j] = tc
                h[t, j] = og * tc
                gates[t, 0, j] = ig
                gates[t, 1, j] = fg
                gates[t, 2, j] = gg
                gates[t, 3, j] = og
        elif variant == PYTORCH:
            _matvec(w_hh, hprev, hh)
            for j in range(d):
                r = _sigmoid(pre[t, j] + hh[j] + b_hh[j])
                z = _sigmoid(pre[t, d + j] + hh[d + j] + b_hh[d + j])
                hn = hh[2 * d + j] + b_hh[2 * d + j]
                n = math.tanh(pre[t, 2 * d + j] + r * hn)
                aux[t, j] = hn
                h[t, j] = (1.0 - z) * n + z * hprev[j]
                gates[t, 0, j] = r
                gates[t, 1, j] = z
                gates[t, 2, j] = n
        else:
            _matvec(w_hh[: 2 * d], hprev, hh[: 2 * d])
            for j in range(d):
                r = _sigmoid(pre[t, j] + hh[j] + b_hh[j])
                gates[t, 0, j] = r
                gates[t, 1, j] = _sigmoid(pre[t, d + j] + hh[d + j] + b_hh[d + j])
                aux[t, j] = r * hprev[j]
            _matvec(w_hh[2 * d :], aux[t], hh[2 * d :])
            for j in range(d):
                z = gates[t, 1, j]
                n = math.tanh(pre[t, 2 * d + j] + hh[2 * d + j] + b_hh[2 * d + j])
                gates[t, 2, j] = n
                h[t, j] = (1.0 - z) * hprev[j] + z * n


@njit(cache=True, nogil=True)
def forward_kernel(cell, nl, variant, w_ih, w_hh, b_ih, b_hh, x, h0, c0, h, c, gates, aux):
    """Forward pass only, into caller-allocated h, c, gates, aux."""
    pre = np.empty((x.shape[0], w_hh.shape[0]))
    hh = np.empty(w_hh.shape[0])
    _forward_loop(cell, nl, variant, w_ih, w_hh, b_ih, b_hh, x, h0, c0, h, c, gates, aux, pre, hh)


@njit(cache=True, nogil=True)
def step_kernel(cell, nl, variant, w_ih, w_hh, b_ih, b_hh, x, h, c, h_out, c_out):
    """One step for a batch: x (B,d_in), h (B,d), c (B,d) -> h_out, c_out (B,d)."""
    B = x.shape[0]
    d = h.shape[1]
    gd = w_hh.shape[0]
    pre = np.empty((B, gd))
    for b in range(B):
        _matvec(w_ih, x[b], pre[b])
    if cell == GRU and variant == TEXTBOOK:
        rh = np.empty((B, d))
        hn = np.empty((B, d))
        hrz = np.empty((B, 2 * d))
        for b in range(B):
            _matvec(w_hh[: 2 * d], h[b], hrz[b])
            for j in range(d):
                r = _sigmoid(pre[b, j] + b_ih[j] + hrz[b, j] + b_hh[j])
                rh[b, j] = r * h[b, j]
        for b in range(B):
            _matvec(w_hh[2 * d :], rh[b], hn[b])
            for j in range(d):
                z = _sigmoid(pre[b, d + j] + b_ih[d + j] + hrz[b, d + j] + b_hh[d + j])
                n = math.tanh(pre[b, 2 * d + j] + b_ih[2 * d + j] + hn[b, j] + b_hh[2 * d + j])
                h_out[b, j] = (1.0 - z) * h[b, j] + z * n
        return
    hh = np.empty((B, gd))
    for b in range(B):
        _matvec(w_hh, h[b], hh[b])
        for j in range(gd):
            pre[b, j] += b_ih[j]
            hh[b, j] += b_hh[j]
        for j in range(d):
            if cell == RNN:
                h_out[b, j] = _phi(pre[b, j] + hh[b, j], nl)
            elif cell == LSTM:
                ig = _sigmoid(pre[b, j] + hh[b, j])
                fg = _sigmoid(pre[b, d + j] + hh[b, d + j])
                gg = math.tanh(pre[b, 2 * d + j] + hh[b, 2 * d + j])
                og = _sigmoid(pre[b, 3 * d + j] + hh[b, 3 * d + j])
                ct = fg * c[b, j] + ig * gg
                c_out[b, j] = ct
                h_out[b, j] = og * math.tanh(ct)
            else:
                r = _sigmoid(pre[b, j] + hh[b, j])
                z = _sigmoid(pre[b, d + j] + hh[b, d + j])
                n = math.tanh(pre[b, 2 * d + j] + r * hh[b, 2 * d + j])
                h_out[b, j] = (1.0 - z) * n + z * h[b, j]


@njit(cache=True, nogil=True)
def trace_kernel(
    cell, nl, variant, w_ih, w_hh, b_ih, b_hh, x, h0, c0, grad_out, grad_hT,
    h, c, gates, grad_h, grad_c, g_w_ih, g_w_hh, g_b_ih, g_b_hh, g_x, g_h0, g_c0,
):  # fmt: skip
    """Forward pass recording everything, then full BPTT; every output is caller-allocated."""
    T = x.shape[0]
    d = h0.shape[0]
    gd = w_hh.shape[0]
    aux = np.empty((T, d))
    pre = np.empty((T, gd))
    hh = np.empty(gd)
    _forward_loop(cell, nl, variant, w_ih, w_hh, b_ih, b_hh, x, h0, c0, h, c, gates, aux, pre, hh)
    dpre_ih = pre  # reuse: the forward no longer needs it
    dpre_hh = np.empty((T, gd)) if cell == GRU else pre
    _backward_loop(
        cell, nl, variant, w_ih, w_hh, x, h0, c0, grad_out, grad_hT, h, c, gates, aux, dpre_ih,
        dpre_hh, grad_h, grad_c, g_w_ih, g_w_hh, g_b_ih, g_b_hh, g_x, g_h0, g_c0,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def _backward_loop(
    cell, nl, variant, w_ih, w_hh, x, h0, c0, grad_out, grad_hT, h, c, gates, aux, dpre_ih,
    dpre_hh, grad_h, grad_c, g_w_ih, g_w_hh, g_b_ih, g_b_hh, g_x, g_h0, g_c0,
):  # fmt: skip
    """BPTT from a forward's h, c, gates, aux (_forward_loop's); dpre_ih, dpre_hh (T,Gd) work
    (one array twice except for the GRU). Every output is caller-allocated."""
    T = x.shape[0]
    d = h0.shape[0]
    gd = w_hh.shape[0]
    # Gradients w.r.t. the pre-activations, stored per step so that the parameter gradients are
    # summed after the loop in cache-friendly blocks. ih and hh sides differ only for the GRU.
    carry_h = np.zeros(d)  # dL/dh_t arriving from step t+1
    carry_c = np.zeros(d)
    direct = np.empty(d)
    tmp = np.empty(d)
    for t in range(T - 1, -1, -1):
        hprev = h0 if t == 0 else h[t - 1]
        for j in range(d):
            grad_h[t, j] = grad_out[t, j] + carry_h[j]
        if t == T - 1:
            for j in range(d):
                grad_h[t, j] += grad_hT[j]
        gh = grad_h[t]
        if cell == RNN:
            for j in range(d):
                if nl == TANH:
                    dphi = 1.0 - h[t, j] * h[t, j]
                elif nl == RELU:
                    dphi = 1.0 if h[t, j] > 0.0 else 0.0
                else:
                    dphi = 1.0
                dpre_ih[t, j] = gh[j] * dphi
            _matvec_t(w_hh, dpre_ih[t], carry_h)
        elif cell == LSTM:
            cprev = c0 if t == 0 else c[t - 1]
            for j in range(d):
                ig = gates[t, 0, j]
                fg = gates[t, 1, j]
                gg = gates[t, 2, j]
                og = gates[t, 3, j]
                tc = aux[t, j]
                dc = carry_c[j] + gh[j] * og * (1.0 - tc * tc)
                grad_c[t, j] = dc
                carry_c[j] = dc * fg
                dpre_ih[t, j] = dc * gg * ig * (1.0 - ig)
                dpre_ih[t, d + j] = dc * cprev[j] * fg * (1.0 - fg)
                dpre_ih[t, 2 * d + j] = dc * ig * (1.0 - gg * gg)
                dpre_ih[t, 3 * d + j] = gh[j] * tc * og * (1.0 - og)
            _matvec_t(w_hh, dpre_ih[t], carry_h)
        elif variant == PYTORCH:
            for j in range(d):
                r = gates[t, 0, j]
                z = gates[t, 1, j]
                n = gates[t, 2, j]
                dan = gh[j] * (1.0 - z) * (1.0 - n * n)
                dar = dan * aux[t, j] * r * (1.0 - r)
                daz = gh[j] * (hprev[j] - n) * z * (1.0 - z)
                dpre_ih[t, j] = dar
                dpre_ih[t, d + j] = daz
                dpre_ih[t, 2 * d + j] = dan
                dpre_hh[t, j] = dar
                dpre_hh[t, d + j] = daz
                dpre_hh[t, 2 * d + j] = dan * r
                direct[j] = gh[j] * z
            _matvec_t(w_hh, dpre_hh[t], carry_h)
            for j in range(d):
                carry_h[j] += direct[j]
        else:
            for j in range(d):
                z = gates[t, 1, j]
                n = gates[t, 2, j]
                dan = gh[j] * z * (1.0 - n * n)
                dpre_ih[t, 2 * d + j] = dan
                dpre_hh[t, 2 * d + j] = dan
            _matvec_t(w_hh[2 * d :], dpre_hh[t, 2 * d :], tmp)  # dL/d(r*h_{t-1})
            for j in range(d):
                r = gates[t, 0, j]
                z = gates[t, 1, j]
                n = gates[t, 2, j]
                dar = tmp[j] * hprev[j] * r * (1.0 - r)
                daz = gh[j] * (n - hprev[j]) * z * (1.0 - z)
                dpre_ih[t, j] = dar
                dpre_ih[t, d + j] = daz
                dpre_hh[t, j] = dar
                dpre_hh[t, d + j] = daz
                direct[j] = gh[j] * (1.0 - z) + tmp[j] * r
            _matvec_t(w_hh[: 2 * d], dpre_hh[t, : 2 * d], carry_h)
            for j in range(d):
                carry_h[j] += direct[j]
    for j in range(d):
        g_h0[j] = carry_h[j]
        g_c0[j] = carry_c[j]

    hp = np.empty((T, d))  # h_{t-1} for every step
    hp[0] = h0
    hp[1:] = h[: T - 1]
    g_w_ih[:] = 0.0
    g_w_hh[:] = 0.0
    for t0 in range(0, T, 32):
        t1 = min(T, t0 + 32)
        _outer_sum(dpre_ih[t0:t1], x[t0:t1], g_w_ih)  # (Gd, d_in)
        if cell == GRU and variant == TEXTBOOK:
            # The r, z rows multiply h_{t-1}; the n rows multiply r*h_{t-1}, which aux holds.
            _outer_sum(dpre_hh[t0:t1, : 2 * d], hp[t0:t1], g_w_hh[: 2 * d])
            _outer_sum(dpre_hh[t0:t1, 2 * d :], aux[t0:t1], g_w_hh[2 * d :])
        else:
            _outer_sum(dpre_hh[t0:t1], hp[t0:t1], g_w_hh)
    for t in range(T):
        _matvec_t(w_ih, dpre_ih[t], g_x[t])  # (d_in,)
    for j in range(gd):
        g_b_ih[j] = 0.0
        g_b_hh[j] = 0.0
    for t in range(T):
        for j in range(gd):
            g_b_ih[j] += dpre_ih[t, j]
            g_b_hh[j] += dpre_hh[t, j]


# Batched kernels for training: B sequences of equal length through the same per-sequence math
# (the functions above), with the parameter gradients summed over the batch. One call per update
# keeps Python out of the loop over sequences.
@njit(cache=True, nogil=True)
def batch_forward_kernel(cell, nl, variant, w_ih, w_hh, b_ih, b_hh, x, h, c, gates, aux):
    """Forward from zero states for x (B,T,d_in) into h, c, aux (B,T,d), gates (B,T,G,d);
    aux is what batch_backward_kernel needs besides them (see _forward_loop)."""
    B, T = x.shape[0], x.shape[1]
    d = w_hh.shape[1]
    gd = w_hh.shape[0]
    h0 = np.zeros(d)
    pre = np.empty((T, gd))
    hh = np.empty(gd)
    for b in range(B):
        _forward_loop(
            cell, nl, variant, w_ih, w_hh, b_ih, b_hh, x[b], h0, h0, h[b], c[b], gates[b], aux[b],
            pre, hh,
        )  # fmt: skip


@njit(cache=True, nogil=True)
def batch_backward_kernel(
    cell, nl, variant, w_ih, w_hh, x, grad_out, h, c, gates, aux,
    grad_h, grad_c, g_w_ih, g_w_hh, g_b_ih, g_b_hh,
):  # fmt: skip
    """BPTT only, from batch_forward_kernel's h, c, gates, aux (zero initial states): the
    forward is not run again. grad_out (B,T,d) -> grad_h, grad_c (B,T,d) and the parameter
    gradients summed over the batch: g_w_ih (Gd,d_in), g_w_hh (Gd,d), g_b_ih, g_b_hh (Gd,)."""
    B, T, d_in = x.shape[0], x.shape[1], x.shape[2]
    d = w_hh.shape[1]
    gd = w_hh.shape[0]
    zero = np.zeros(d)
    dpre_ih = np.empty((T, gd))
    dpre_hh = np.empty((T, gd)) if cell == GRU else dpre_ih
    s_w_ih = np.empty((gd, d_in))
    s_w_hh = np.empty((gd, d))
    s_b_ih = np.empty(gd)
    s_b_hh = np.empty(gd)
    s_x = np.empty((T, d_in))
    s_h0 = np.empty(d)
    s_c0 = np.empty(d)
    g_w_ih[:] = 0.0
    g_w_hh[:] = 0.0
    g_b_ih[:] = 0.0
    g_b_hh[:] = 0.0
    for b in range(B):
        _backward_loop(
            cell, nl, variant, w_ih, w_hh, x[b], zero, zero, grad_out[b], zero, h[b], c[b],
            gates[b], aux[b], dpre_ih, dpre_hh, grad_h[b], grad_c[b], s_w_ih, s_w_hh, s_b_ih,
            s_b_hh, s_x, s_h0, s_c0,
        )  # fmt: skip
        g_w_ih += s_w_ih
        g_w_hh += s_w_hh
        g_b_ih += s_b_ih
        g_b_hh += s_b_hh
