"""Batched training kernels: a whole batch per step through BLAS, in float32 or float64.

Arrays are time-major: x (T, B, d_in), states (T, B, d), gate values (T, B, G*d) with the gates
side by side in PyTorch's order. The input projection of every step is one matrix product
before the recurrence; each step multiplies the whole batch's states by W_hh in one product;
the gate nonlinearities run fused over the batch; the weight gradients are one product over
all steps at the end. Numba compiles one version per dtype; np.dot calls BLAS (sgemm, dgemm).

float64 uses libm's exp and tanh. float32 uses a rational tanh (and sigmoid(z) = (1 +
tanh(z/2)) / 2) written in plain arithmetic, which LLVM vectorises: within a few float32
rounding errors of tanh, far below what float32 training notices. The kernels that call each
other live in this one module (cache=True freezes the globals they see).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from seqviz.core.codes import LSTM, PYTORCH, RELU, RNN, TANH, TEXTBOOK

# Rational tanh for float32 (the minimax form Eigen and XLA use), exact to a few ulp on
# [-7.9, 7.9] and clamped outside, where tanh is +-1 in float32.
_CLAMP = np.float32(7.90531110763549805)
_A1 = np.float32(4.89352455891786e-03)
_A3 = np.float32(6.37261928875436e-04)
_A5 = np.float32(1.48572235717979e-05)
_A7 = np.float32(5.12229709037114e-08)
_A9 = np.float32(-8.60467152213735e-11)
_A11 = np.float32(2.00018790482477e-13)
_A13 = np.float32(-2.76076847742355e-16)
_B0 = np.float32(4.89352518554385e-03)
_B2 = np.float32(2.26843463243900e-03)
_B4 = np.float32(1.18534705686654e-04)
_B6 = np.float32(1.19825839466702e-06)
_HALF = np.float32(0.5)
_ONE = np.float32(1.0)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _tanh32(x):
    # Selects, not min/max (whose nan handling keeps LLVM from vectorising); nan stays nan.
    x = _CLAMP if x > _CLAMP else x
    x = -_CLAMP if x < -_CLAMP else x
    x2 = x * x
    p = x2 * _A13 + _A11
    p = x2 * p + _A9
    p = x2 * p + _A7
    p = x2 * p + _A5
    p = x2 * p + _A3
    p = x2 * p + _A1
    q = x2 * _B6 + _B4
    q = x2 * q + _B2
    q = x2 * q + _B0
    return x * p / q


@njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def _tanh_rows(a, fast):
    """a = tanh(a) in place for a 2-D C array (every row, every column)."""
    n, m = a.shape
    if fast:
        for i in range(n):
            for j in range(m):
                a[i, j] = _tanh32(a[i, j])
    else:
        for i in range(n):
            for j in range(m):
                a[i, j] = math.tanh(a[i, j])


@njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def _sigmoid_cols(a, j0, j1, fast):
    """a[:, j0:j1] = sigmoid(a[:, j0:j1]) in place."""
    n = a.shape[0]
    if fast:
        for i in range(n):
            for j in range(j0, j1):
                a[i, j] = _HALF + _HALF * _tanh32(_HALF * a[i, j])
    else:
        for i in range(n):
            for j in range(j0, j1):
                a[i, j] = 1.0 / (1.0 + math.exp(-a[i, j]))


@njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def _tanh_cols(a, j0, j1, fast):
    """a[:, j0:j1] = tanh(a[:, j0:j1]) in place."""
    n = a.shape[0]
    if fast:
        for i in range(n):
            for j in range(j0, j1):
                a[i, j] = _tanh32(a[i, j])
    else:
        for i in range(n):
            for j in range(j0, j1):
                a[i, j] = math.tanh(a[i, j])


@njit(cache=True, nogil=True, error_model="numpy")
def blas_forward(cell, nl, variant, fast, w_ih, w_hh, b_ih, b_hh, x, h0, c0, h, c, gates, aux):
    """Forward pass of a batch: x (T,B,d_in), h0, c0 (B,d) -> h, c, aux (T,B,d), gates (T,B,Gd).

    gates holds the gate values (i f g o; r z n; the RNN's input projections); aux what
    the backward pass needs besides them: tanh(c_t) (LSTM), r*h_{t-1} (textbook GRU),
    W_hn h_{t-1} + b_hn (PyTorch GRU)."""
    T, B, d_in = x.shape
    d = h0.shape[1]
    gd = w_hh.shape[0]
    # Every step's input projection in one product, straight into `gates` (each step then
    # turns its rows into gate values in place); the biases are added per step, both of them
    # except b_hn of the PyTorch GRU, which r multiplies.
    np.dot(x.reshape((T * B, d_in)), w_ih.T, gates.reshape((T * B, gd)))
    pre = gates
    bias = b_ih + b_hh
    if cell != LSTM and cell != RNN and variant == PYTORCH:
        bias[2 * d :] = b_ih[2 * d :]
    hh = np.empty((B, gd), dtype=x.dtype)
    hn = np.empty((B, d), dtype=x.dtype)
    hrz = np.empty((B, 2 * d), dtype=x.dtype)
    for t in range(T):
        hprev = h0 if t == 0 else h[t - 1]
        g = gates[t]
        p = pre[t]
        if cell == RNN:
            np.dot(hprev, w_hh.T, hh)
            ht = h[t]
            for b in range(B):
                for j in range(d):
                    ht[b, j] = p[b, j] + hh[b, j] + bias[j]
            if nl == TANH:
                _tanh_rows(ht, fast)
            elif nl == RELU:
                for b in range(B):
                    for j in range(d):
                        if not ht[b, j] > 0.0:
                            ht[b, j] = 0.0
        elif cell == LSTM:
            np.dot(hprev, w_hh.T, hh)
            for b in range(B):
                for j in range(gd):
                    g[b, j] = p[b, j] + hh[b, j] + bias[j]
            _sigmoid_cols(g, 0, 2 * d, fast)
            _tanh_cols(g, 2 * d, 3 * d, fast)
            _sigmoid_cols(g, 3 * d, 4 * d, fast)
            cprev = c0 if t == 0 else c[t - 1]
            ct = c[t]
            at = aux[t]
            for b in range(B):
                for j in range(d):
                    v = g[b, d + j] * cprev[b, j] + g[b, j] * g[b, 2 * d + j]
                    ct[b, j] = v
                    at[b, j] = v
            _tanh_rows(at, fast)
            ht = h[t]
            for b in range(B):
                for j in range(d):
                    ht[b, j] = g[b, 3 * d + j] * at[b, j]
        elif variant == PYTORCH:
            np.dot(hprev, w_hh.T, hh)
            at = aux[t]
            for b in range(B):
                for j in range(2 * d):
                    g[b, j] = p[b, j] + hh[b, j] + bias[j]
            _sigmoid_cols(g, 0, 2 * d, fast)
            for b in range(B):
                for j in range(d):
                    v = hh[b, 2 * d + j] + b_hh[2 * d + j]
                    at[b, j] = v
                    g[b, 2 * d + j] = p[b, 2 * d + j] + bias[2 * d + j] + g[b, j] * v
            _tanh_cols(g, 2 * d, 3 * d, fast)
            ht = h[t]
            for b in range(B):
                for j in range(d):
                    z = g[b, d + j]
                    ht[b, j] = (_ONE - z) * g[b, 2 * d + j] + z * hprev[b, j]
        else:  # textbook GRU: n = tanh(W_in x + b_in + W_hn (r * h_{t-1}) + b_hn)
            np.dot(hprev, w_hh[: 2 * d].T, hrz)
            for b in range(B):
                for j in range(2 * d):
                    g[b, j] = p[b, j] + hrz[b, j] + bias[j]
            _sigmoid_cols(g, 0, 2 * d, fast)
            at = aux[t]
            for b in range(B):
                for j in range(d):
                    at[b, j] = g[b, j] * hprev[b, j]
            np.dot(at, w_hh[2 * d :].T, hn)
            for b in range(B):
                for j in range(d):
                    g[b, 2 * d + j] = p[b, 2 * d + j] + hn[b, j] + bias[2 * d + j]
            _tanh_cols(g, 2 * d, 3 * d, fast)
            ht = h[t]
            for b in range(B):
                for j in range(d):
                    z = g[b, d + j]
                    ht[b, j] = (_ONE - z) * hprev[b, j] + z * g[b, 2 * d + j]


@njit(cache=True, nogil=True, error_model="numpy")
def blas_backward(
    cell, nl, variant, w_ih, w_hh, x, h0, c0, h, c, gates, aux, grad_out, grad_hT, want_x,
    dpre, dpre_hh, grad_h, grad_c, g_w_ih, g_w_hh, g_b_ih, g_b_hh, g_x, g_h0, g_c0,
):  # fmt: skip
    """BPTT of a batch from blas_forward's h, c, gates, aux. grad_out (T,B,d) is dL/dh_t,
    grad_hT (B,d) an extra dL/dh at the last step. Writes grad_h, grad_c (T,B,d), the parameter
    gradients summed over the batch, g_h0, g_c0 (B,d) and, if want_x, g_x (T,B,d_in).
    dpre, dpre_hh (T,B,Gd) are work arrays for dL/d(pre-activations) of the input and the
    recurrent side: one array twice except for the PyTorch GRU."""
    T, B, d_in = x.shape
    d = h0.shape[1]
    gd = w_hh.shape[0]
    dt = x.dtype
    one = np.ones(1, dtype=dt)[0]  # 1 in the arrays' dtype: float32 stays float32
    zero = np.zeros(1, dtype=dt)[0]
    gru = cell != LSTM and cell != RNN
    textbook = gru and variant == TEXTBOOK
    pytorch = gru and variant == PYTORCH
    drz = np.empty((B, 2 * d), dtype=dt)
    dn_all = np.empty((T, B, d), dtype=dt) if textbook else np.empty((1, 1, 1), dtype=dt)
    carry_h = np.zeros((B, d), dtype=dt)
    carry_c = np.zeros((B, d), dtype=dt)
    tmp = np.empty((B, d), dtype=dt)
    for t in range(T - 1, -1, -1):
        hprev = h0 if t == 0 else h[t - 1]
        gh = grad_h[t]
        go = grad_out[t]
        for b in range(B):
            for j in range(d):
                gh[b, j] = go[b, j] + carry_h[b, j]
        if t == T - 1:
            for b in range(B):
                for j in range(d):
                    gh[b, j] += grad_hT[b, j]
        g = gates[t]
        dp = dpre[t]
        if cell == RNN:
            ht = h[t]
            for b in range(B):
                for j in range(d):
                    if nl == TANH:
                        dphi = one - ht[b, j] * ht[b, j]
                    elif nl == RELU:
                        dphi = one if ht[b, j] > 0.0 else zero
                    else:
                        dphi = one
                    dp[b, j] = gh[b, j] * dphi
            np.dot(dp, w_hh, carry_h)
        elif cell == LSTM:
            cprev = c0 if t == 0 else c[t - 1]
            at = aux[t]
            gc = grad_c[t]
            for b in range(B):
                for j in range(d):
                    ig = g[b, j]
                    fg = g[b, d + j]
                    gg = g[b, 2 * d + j]
                    og = g[b, 3 * d + j]
                    tc = at[b, j]
                    dc = carry_c[b, j] + gh[b, j] * og * (one - tc * tc)
                    gc[b, j] = dc
                    carry_c[b, j] = dc * fg
                    dp[b, j] = dc * gg * ig * (one - ig)
                    dp[b, d + j] = dc * cprev[b, j] * fg * (one - fg)
                    dp[b, 2 * d + j] = dc * ig * (one - gg * gg)
                    dp[b, 3 * d + j] = gh[b, j] * tc * og * (one - og)
            np.dot(dp, w_hh, carry_h)
        elif pytorch:
            dq = dpre_hh[t]
            at = aux[t]
            for b in range(B):
                for j in range(d):
                    r = g[b, j]
                    z = g[b, d + j]
                    n = g[b, 2 * d + j]
                    dan = gh[b, j] * (one - z) * (one - n * n)
                    dar = dan * at[b, j] * r * (one - r)
                    daz = gh[b, j] * (hprev[b, j] - n) * z * (one - z)
                    dp[b, j] = dar
                    dp[b, d + j] = daz
                    dp[b, 2 * d + j] = dan
                    dq[b, j] = dar
                    dq[b, d + j] = daz
                    dq[b, 2 * d + j] = dan * r
                    tmp[b, j] = gh[b, j] * z
            np.dot(dq, w_hh, carry_h)
            for b in range(B):
                for j in range(d):
                    carry_h[b, j] += tmp[b, j]
        else:
            dn = dn_all[t]
            for b in range(B):
                for j in range(d):
                    z = g[b, d + j]
                    n = g[b, 2 * d + j]
                    v = gh[b, j] * z * (one - n * n)
                    dn[b, j] = v
                    dp[b, 2 * d + j] = v
            np.dot(dn, w_hh[2 * d :], tmp)  # dL/d(r * h_{t-1})
            for b in range(B):
                for j in range(d):
                    r = g[b, j]
                    z = g[b, d + j]
                    n = g[b, 2 * d + j]
                    dar = tmp[b, j] * hprev[b, j] * r * (one - r)
                    daz = gh[b, j] * (n - hprev[b, j]) * z * (one - z)
                    dp[b, j] = dar
                    dp[b, d + j] = daz
                    drz[b, j] = dar
                    drz[b, d + j] = daz
                    tmp[b, j] = gh[b, j] * (one - z) + tmp[b, j] * r
            np.dot(drz, w_hh[: 2 * d], carry_h)
            for b in range(B):
                for j in range(d):
                    carry_h[b, j] += tmp[b, j]
    g_h0[:] = carry_h
    g_c0[:] = carry_c

    # The weight gradients: one product over all steps and sequences each.
    TB = T * B
    g_w_ih[:] = np.dot(dpre.reshape((TB, gd)).T, x.reshape((TB, d_in)))
    if textbook:
        drz_all = np.empty((T, B, 2 * d), dtype=dt)
        drz_all[:] = dpre[:, :, : 2 * d]
        g_w_hh[: 2 * d] = np.dot(drz_all[0].T, h0)
        g_w_hh[2 * d :] = np.dot(dn_all.reshape((TB, d)).T, aux.reshape((TB, d)))
        if T > 1:
            rest = drz_all[1:]
            g_w_hh[: 2 * d] += np.dot(rest.reshape(((T - 1) * B, 2 * d)).T,
                                      h[: T - 1].reshape(((T - 1) * B, d)))  # fmt: skip
    else:
        g_w_hh[:] = np.dot(dpre_hh[0].T, h0)
        if T > 1:
            rest = dpre_hh[1:]
            g_w_hh += np.dot(
                rest.reshape(((T - 1) * B, gd)).T, h[: T - 1].reshape(((T - 1) * B, d))
            )
    if want_x:
        g_x[:] = np.dot(dpre.reshape((TB, gd)), w_ih).reshape((T, B, d_in))
    g_b_ih[:] = 0.0
    g_b_hh[:] = 0.0
    for t in range(T):
        for b in range(B):
            for j in range(gd):
                g_b_ih[j] += dpre[t, b, j]
                g_b_hh[j] += dpre_hh[t, b, j]
