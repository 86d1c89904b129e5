"""Plain-NumPy forward pass and BPTT for every cell: test oracle and benchmark baseline."""

from __future__ import annotations

import numpy as np

from seqviz.core.params import Params
from seqviz.core.trace import row_norms

# An RNN's activation, and its derivative written in terms of the activation's output h.
_ACTIVATIONS = {"tanh": np.tanh, "relu": lambda v: np.maximum(v, 0.0), "linear": lambda v: v}
_DERIVATIVES = {
    "tanh": lambda h: 1 - h**2, "relu": lambda h: (h > 0) * 1.0, "linear": lambda h: 1.0,
}  # fmt: skip


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # equal to 1/(1+exp(-z)), without overflow warnings


def reference_trace(
    p: Params,
    x: np.ndarray,
    h0: np.ndarray | None = None,
    c0: np.ndarray | None = None,
    grad_hT: np.ndarray | None = None,
    grad_out: np.ndarray | None = None,
) -> dict[str, np.ndarray | None]:
    """Same quantities as seqviz.trace, as a dict keyed like Trace's fields (no validation)."""
    with np.errstate(all="ignore"):
        return _run(p, np.asarray(x, float), h0, c0, grad_hT, grad_out)


def _run(p, x, h0, c0, grad_hT, grad_out):
    T, d = x.shape[0], p.hidden_size
    h0 = np.zeros(d) if h0 is None else np.asarray(h0, float)
    c0 = np.zeros(d) if c0 is None else np.asarray(c0, float)
    if grad_hT is None and grad_out is None:
        grad_hT = np.ones(d) / np.sqrt(d)
    grad_hT = np.zeros(d) if grad_hT is None else grad_hT
    grad_out = np.zeros((T, d)) if grad_out is None else grad_out
    hs, cs, gates, aux = forward_steps(p, x, h0, c0)
    return backward_steps(p, x, hs, cs, gates, aux, grad_hT, grad_out)


def rnn_grad_norms(p: Params, x: np.ndarray) -> np.ndarray:
    """(T,) ||dL/dh|| k steps back, k = 0..T-1, of an RNN from h0 = 0 with trace()'s default loss
    L = sum(h_T)/sqrt(d): what ``trace(p, x).grad_norms()`` gives, from backward_steps' dL/dh
    recursion alone (no parameter or input gradients), a fraction of a whole trace's work. A
    linear RNN's recursion does not depend on its states (the derivative is 1): no forward pass."""
    if p.cell != "rnn":
        raise ValueError(f"rnn_grad_norms takes an rnn cell, not {p.cell}.")
    T, d = x.shape[0], p.hidden_size
    derivative, w_hh = _DERIVATIVES[p.nonlinearity], p.weight_hh
    linear = p.nonlinearity == "linear"
    grad_h = np.empty((T, d))
    with np.errstate(all="ignore"):
        hs = {} if linear else forward_steps(p, np.asarray(x, float), np.zeros(d), np.zeros(d))[0]
        dh = np.full(d, 1.0 / np.sqrt(d))
        for t in reversed(range(T)):
            grad_h[t] = dh
            dh = w_hh.T @ (dh if linear else dh * derivative(hs[t]))
    return row_norms(grad_h[::-1])


def forward_steps(p, x, h0, c0):
    """The forward pass alone: dicts step -> h_t, c_t (LSTM), gates_t, aux_t (GRU), with
    h_{-1} = h0 and c_{-1} = c0 under key -1. Everything the backward pass needs."""
    T = x.shape[0]
    d = p.hidden_size
    Wih, Whh, bih, bhh = p.weight_ih, p.weight_hh, p.bias_ih, p.bias_hh
    hs, cs, gates, aux = {-1: h0}, {-1: c0}, {}, {}
    for t in range(T):
        a_x = Wih @ x[t] + bih  # (Gd,)
        hp = hs[t - 1]
        if p.cell == "rnn":
            a = a_x + Whh @ hp + bhh
            hs[t] = _ACTIVATIONS[p.nonlinearity](a)
        elif p.cell == "lstm":
            a = a_x + Whh @ hp + bhh
            i, f, o = sigmoid(a[:d]), sigmoid(a[d : 2 * d]), sigmoid(a[3 * d :])
            g = np.tanh(a[2 * d : 3 * d])
            cs[t] = f * cs[t - 1] + i * g
            hs[t] = o * np.tanh(cs[t])
            gates[t] = np.stack([i, f, g, o])
        elif p.variant == "pytorch":
            a_h = Whh @ hp + bhh
            r, z = sigmoid(a_x[:d] + a_h[:d]), sigmoid(a_x[d : 2 * d] + a_h[d : 2 * d])
            n = np.tanh(a_x[2 * d :] + r * a_h[2 * d :])
            hs[t] = (1 - z) * n + z * hp
            gates[t], aux[t] = np.stack([r, z, n]), a_h[2 * d :]
        else:
            a_h = Whh[: 2 * d] @ hp + bhh[: 2 * d]
            r, z = sigmoid(a_x[:d] + a_h[:d]), sigmoid(a_x[d : 2 * d] + a_h[d:])
            n = np.tanh(a_x[2 * d :] + Whh[2 * d :] @ (r * hp) + bhh[2 * d :])
            hs[t] = (1 - z) * hp + z * n
            gates[t], aux[t] = np.stack([r, z, n]), r * hp
    return hs, cs, gates, aux


def backward_steps(p, x, hs, cs, gates, aux, grad_hT, grad_out):
    """Backpropagation through time over the steps forward_steps recorded."""
    T, d = x.shape[0], p.hidden_size
    Wih, Whh, bih, bhh = p.weight_ih, p.weight_hh, p.bias_ih, p.bias_hh
    dWih, dWhh = np.zeros_like(Wih), np.zeros_like(Whh)
    dbih, dbhh = np.zeros_like(bih), np.zeros_like(bhh)
    dx = np.zeros_like(x)
    grad_h, grad_c = np.zeros((T, d)), np.zeros((T, d))
    dh_next, dc_next = np.zeros(d), np.zeros(d)
    for t in reversed(range(T)):
        dh = dh_next + grad_out[t] + (grad_hT if t == T - 1 else 0.0)
        grad_h[t] = dh
        hp = hs[t - 1]
        if p.cell == "rnn":
            da = dh * _DERIVATIVES[p.nonlinearity](hs[t])
            da_ih = da_hh = da
            dh_next = Whh.T @ da
        elif p.cell == "lstm":
            i, f, g, o = gates[t]
            tc = np.tanh(cs[t])
            dc = dc_next + dh * o * (1 - tc**2)
            grad_c[t] = dc
            da = np.concatenate(
                [dc * g * i * (1 - i), dc * cs[t - 1] * f * (1 - f), dc * i * (1 - g**2),
                 dh * tc * o * (1 - o)]
            )  # fmt: skip
            dc_next = dc * f
            da_ih = da_hh = da
            dh_next = Whh.T @ da
        elif p.variant == "pytorch":
            r, z, n = gates[t]
            dan = dh * (1 - z) * (1 - n**2)
            dar = dan * aux[t] * r * (1 - r)
            daz = dh * (hp - n) * z * (1 - z)
            da_ih = np.concatenate([dar, daz, dan])
            da_hh = np.concatenate([dar, daz, dan * r])
            dh_next = Whh.T @ da_hh + dh * z
        else:
            r, z, n = gates[t]
            dan = dh * z * (1 - n**2)
            drh = Whh[2 * d :].T @ dan
            dar = drh * hp * r * (1 - r)
            daz = dh * (n - hp) * z * (1 - z)
            da_ih = da_hh = np.concatenate([dar, daz, dan])
            dh_next = Whh[: 2 * d].T @ da_hh[: 2 * d] + drh * r + dh * (1 - z)
        dWih += np.outer(da_ih, x[t])
        dbih += da_ih
        dbhh += da_hh
        dx[t] = Wih.T @ da_ih
        if p.cell == "gru" and p.variant == "textbook":
            dWhh[: 2 * d] += np.outer(da_hh[: 2 * d], hp)
            dWhh[2 * d :] += np.outer(da_hh[2 * d :], aux[t])
        else:
            dWhh += np.outer(da_hh, hp)
    h = np.array([hs[t] for t in range(T)])
    lstm = p.cell == "lstm"
    return {
        "h": h,
        "c": np.array([cs[t] for t in range(T)]) if lstm else None,
        "gates": np.array([gates[t] for t in range(T)]) if p.cell != "rnn" else None,
        "grad_h": grad_h,
        "grad_c": grad_c if lstm else None,
        "grad_weight_ih": dWih,
        "grad_weight_hh": dWhh,
        "grad_bias_ih": dbih,
        "grad_bias_hh": dbhh,
        "grad_x": dx,
        "grad_h0": dh_next,
        "grad_c0": dc_next,
    }
