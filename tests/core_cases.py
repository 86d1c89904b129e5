"""Shared cases for the core tests: every cell / nonlinearity / variant, seeded."""

from __future__ import annotations

import numpy as np

from seqviz.core import Params

CASES = [
    ("rnn", "tanh", "textbook"),
    ("rnn", "relu", "textbook"),
    ("rnn", "linear", "textbook"),
    ("lstm", "tanh", "textbook"),
    ("gru", "tanh", "textbook"),
    ("gru", "tanh", "pytorch"),
]
IDS = [f"{c}-{n}-{v}" for c, n, v in CASES]


def make_case(cell, nl, variant, d_in=3, d=4, T=6, seed=0):
    """Random params with random biases, random x, h0, c0 and a random per-step loss gradient."""
    rng = np.random.default_rng(seed)
    p = Params.random(cell, d_in, d, seed=seed, nonlinearity=nl, variant=variant, scale=0.8)
    g = p.n_gates * d
    p = p.replace(bias_ih=rng.normal(0, 0.3, g), bias_hh=rng.normal(0, 0.3, g))
    x = rng.normal(size=(T, d_in))
    h0 = rng.normal(0, 0.5, d)
    c0 = rng.normal(0, 0.5, d) if cell == "lstm" else None
    grad_out = rng.normal(size=(T, d))
    grad_hT = rng.normal(size=d)
    return p, x, h0, c0, grad_out, grad_hT
