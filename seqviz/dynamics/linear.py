"""A diagonal complex linear recurrence (LRU-style ring init), by loop and by associative scan."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LinearRecurrence:
    """h_t = lam * h_{t-1} + B x_t with complex diagonal lam (d,) and B (d, d_in)."""

    lam: np.ndarray  # (d,) complex, |lam| < 1
    B: np.ndarray  # (d, d_in) complex

    @classmethod
    def ring(
        cls,
        hidden: int,
        input_size: int,
        r_min: float = 0.9,
        r_max: float = 0.999,
        max_phase: float = math.pi / 10,
        seed: int = 0,
    ) -> LinearRecurrence:
        """Eigenvalues uniform on the ring r_min <= |lam| <= r_max (by area) with phases in
        [0, max_phase], as the LRU initialises them; B is complex Gaussian / sqrt(2 d_in),
        each row scaled by sqrt(1 - |lam|^2) so states keep unit size."""
        if isinstance(hidden, bool) or not isinstance(hidden, int) or hidden < 1:
            raise ValueError(f"hidden must be an integer >= 1, got {hidden!r}.")
        if isinstance(input_size, bool) or not isinstance(input_size, int) or input_size < 1:
            raise ValueError(f"input_size must be an integer >= 1, got {input_size!r}.")
        if not (0.0 <= r_min <= r_max < 1.0):
            raise ValueError(f"need 0 <= r_min <= r_max < 1, got r_min={r_min}, r_max={r_max}.")
        if not (math.isfinite(max_phase) and 0.0 <= max_phase <= 2 * math.pi):
            raise ValueError(f"max phase must be from 0 to 2*pi, got {max_phase!r}.")
        rng = np.random.default_rng(seed)
        u1, u2 = rng.uniform(size=hidden), rng.uniform(size=hidden)
        radius = np.sqrt(u1 * (r_max**2 - r_min**2) + r_min**2)
        lam = radius * np.exp(1j * u2 * max_phase)
        b = rng.normal(size=(hidden, input_size)) + 1j * rng.normal(size=(hidden, input_size))
        b *= np.sqrt(1.0 - radius**2)[:, None] / math.sqrt(2 * input_size)
        return cls(lam, b)

    def inputs(self, x: np.ndarray) -> np.ndarray:
        """B x_t for every step: x (T, d_in) -> (T, d) complex."""
        x = np.asarray(x, dtype=float)
        if x.ndim != 2 or x.shape[1] != self.B.shape[1] or len(x) < 1:
            raise ValueError(f"x has shape {x.shape}; expected (T, {self.B.shape[1]}), T >= 1.")
        return x @ self.B.T

    def loop(self, x: np.ndarray) -> np.ndarray:
        """The states (T, d), one step after the other (T sequential steps)."""
        bx = self.inputs(x)
        h = np.zeros_like(bx)
        prev = np.zeros(self.lam.shape, dtype=complex)
        for t in range(len(bx)):
            prev = self.lam * prev + bx[t]
            h[t] = prev
        return h

    def scan(self, x: np.ndarray) -> np.ndarray:
        """The same states by a parallel prefix scan over (a, b) pairs, in scan_levels(T) rounds.

        Composing h -> a1 h + b1 then h -> a2 h + b2 gives h -> a1 a2 h + (a2 b1 + b2): an
        associative operator, so every prefix is found in ceil(log2 T) rounds of elementwise
        work (Hillis-Steele), each round one vectorised step over all T positions."""
        b = self.inputs(x).copy()  # (T, d)
        a = np.broadcast_to(self.lam, b.shape).copy()  # (T, d)
        shift = 1
        while shift < len(b):
            # Position t absorbs the prefix ending at t - shift (it comes first in time).
            b[shift:] = a[shift:] * b[:-shift] + b[shift:]
            a[shift:] = a[shift:] * a[:-shift]
            shift *= 2
        return b

    def grad_norms(self, steps: int) -> np.ndarray:
        """|dL/dh_{T-1-k}| for k = 0..steps-1 with L = sum(Re h_T)/sqrt(d): sqrt(mean |lam|^2k)."""
        k = np.arange(steps)[:, None]
        with np.errstate(under="ignore"):
            return np.sqrt(np.mean(np.abs(self.lam)[None, :] ** (2 * k), axis=1))


def scan_levels(steps: int) -> int:
    """Rounds of the parallel scan for `steps` steps: ceil(log2 T) (0 for one step)."""
    return max(0, math.ceil(math.log2(steps))) if steps >= 1 else 0
