"""Largest Lyapunov exponents of random tanh RNNs (the edge of chaos) and their gradient norms."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seqviz.core.backend import numba_only, wait_until_ready

TANH, LINEAR = 0, 1
NONLINEARITIES = {"tanh": TANH, "linear": LINEAR}
GRAD_STEPS = 30  # the gradient norm beside the exponent: |dL/dh| this many steps back


@dataclass(frozen=True)
class Network:
    """A random network: W (d, d) of spectral radius 1, inputs x (T, d), start h0 and tangent v0."""

    w: np.ndarray
    x: np.ndarray
    h0: np.ndarray
    v0: np.ndarray
    radius: float = field(default=1.0)


def network(hidden: int, steps: int, seed: int = 0) -> Network:
    """W ~ N(0, 1) rescaled to spectral radius 1 (rho multiplies it), x ~ N(0, 1) (T, d),
    h0 ~ N(0, 0.5^2) so a zero input still starts away from the origin."""
    for name, value, low in (("hidden", hidden, 1), ("steps", steps, 2)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")
    rng = np.random.default_rng(seed)
    w = rng.normal(0.0, 1.0, (hidden, hidden))
    # The radius and the norm are the only steps whose last bits depend on the CPU: LAPACK's
    # eigenvalues and BLAS's dot product run the kernels OpenBLAS picks for it (the radius
    # differed by up to 30 units in the last place between its Haswell and SkylakeX kernels),
    # and the chaotic half of the grid grows such bits into other colours. The radius rounded
    # to 10 digits and the norm summed exactly are the same on any CPU (the grid's own loops
    # are: lyapunov_kernels).
    w /= float(f"{np.max(np.abs(np.linalg.eigvals(w))):.10g}")
    x = rng.normal(0.0, 1.0, (steps, hidden))
    h0 = rng.normal(0.0, 0.5, hidden)
    v0 = rng.normal(0.0, 1.0, hidden)
    v0 /= math.sqrt(math.fsum(v0 * v0))
    return Network(w, x, h0, v0)


def _numbers(values: Any, name: str, low: float) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr < low):
        raise ValueError(f"{name} must be one or more finite numbers >= {low:g}, got {values!r}.")
    return arr


def _burn(steps: int, burn: int | None) -> int:
    b = steps // 5 if burn is None else int(burn)
    if not 0 <= b < steps:
        raise ValueError(f"burn-in must be from 0 to {steps - 1} steps, got {burn!r}.")
    return b


@dataclass(frozen=True)
class LyapunovGrid:
    rhos: np.ndarray  # (R,)
    scales: np.ndarray  # (S,)
    lyap: np.ndarray  # (R, S) largest Lyapunov exponent per step
    grad: np.ndarray  # (R, S) |dL/dh| GRAD_STEPS steps back
    hidden: int
    steps: int
    grad_steps: int


def lyapunov_grid(
    rhos: Sequence[float] | np.ndarray,
    scales: Sequence[float] | np.ndarray,
    hidden: int = 64,
    steps: int = 500,
    seed: int = 0,
    nonlinearity: str = "tanh",
    burn: int | None = None,
    grad_steps: int = GRAD_STEPS,
) -> LyapunovGrid:
    """lambda_max (tangent vector renormalised every step) and the grad_steps-step gradient norm
    for every (spectral radius, input scale) pair, one network draw shared by all; the cells run
    in parallel (Numba prange)."""
    if nonlinearity not in NONLINEARITIES:
        raise ValueError(f"nonlinearity must be tanh or linear, not {nonlinearity!r}.")
    r = _numbers(rhos, "spectral radii", 0.0)
    s = _numbers(scales, "input scales", 0.0)
    net = network(hidden, steps, seed)
    b = _burn(steps, burn)
    k = int(grad_steps)
    if not 0 <= k <= steps:
        raise ValueError(f"gradient steps must be from 0 to {steps}, got {grad_steps!r}.")
    # On the app's first launch the reference (dynamics.reference) could stand in, but in the
    # chaotic half rounding differences grow until its exponents differ by up to 10% from the
    # kernel's: the grid waits for the compiled kernels instead (the status line says so).
    what = "the Lyapunov grid"
    if not wait_until_ready(what):
        raise ValueError(f"{what} needs the compiled kernels, which could not be loaded.")
    from seqviz.dynamics.lyapunov_kernels import _grid

    lyap = np.empty((r.size, s.size))
    grad = np.empty((r.size, s.size))
    _grid(net.w, net.x, net.h0, net.v0, r, s, b, k, NONLINEARITIES[nonlinearity], lyap, grad)
    return LyapunovGrid(r, s, lyap, grad, hidden, steps, k)


def warmup() -> None:
    """Compile (or load from the cache) the grid's kernel."""
    with numba_only():
        lyapunov_grid([1.0], [0.0], hidden=2, steps=GRAD_STEPS + 1)


def lyapunov_spectrum(
    w: np.ndarray,
    x: np.ndarray,
    h0: np.ndarray,
    top: int = 3,
    nonlinearity: str = "tanh",
    burn: int = 0,
    seed: int = 0,
) -> np.ndarray:
    """The top Lyapunov exponents of h_t = phi(W h_{t-1} + x_t): `top` tangent vectors pushed
    through the Jacobians and re-orthonormalised by QR every step (sum of log |R_ii|)."""
    w = np.asarray(w, dtype=float)
    d = w.shape[0]
    if w.shape != (d, d) or np.shape(x)[1:] != (d,) or np.shape(h0) != (d,):
        raise ValueError(f"W must be (d, d), x (T, d) and h0 (d,); got {w.shape}, "
                         f"{np.shape(x)}, {np.shape(h0)}.")  # fmt: skip
    if not 1 <= top <= d:
        raise ValueError(f"top must be from 1 to the hidden size {d}, got {top!r}.")
    T = len(x)
    q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(d, top)))  # (d, top)
    h = np.asarray(h0, dtype=float).copy()
    acc = np.zeros(top)
    for t in range(T):
        a = w @ h + x[t]
        if nonlinearity == "tanh":
            h = np.tanh(a)
            q = (1.0 - h * h)[:, None] * (w @ q)
        else:
            h = a
            q = w @ q
        q, r = np.linalg.qr(q)
        if t >= burn:
            with np.errstate(divide="ignore"):
                acc += np.log(np.abs(np.diag(r)))
    # Each |R_ii| tracks one exponent; over a finite run two close ones can swap places.
    return np.sort(acc / (T - burn))[::-1]


@dataclass(frozen=True)
class LyapunovRow:
    rho: float
    exponents: tuple[float, ...]  # the top few, largest first (QR)
    grad_norm: float  # |dL/dh| GRAD_STEPS steps back

    def to_dict(self) -> dict[str, Any]:
        return {"rho": self.rho, "exponents": list(self.exponents), "grad_norm": self.grad_norm}


def lyapunov_table(
    rhos: Sequence[float],
    hidden: int = 128,
    steps: int = 500,
    input_scale: float = 0.0,
    top: int = 3,
    seed: int = 0,
) -> tuple[LyapunovRow, ...]:
    """For each spectral radius: the top exponents by QR and the 30-step gradient norm."""
    r = _numbers(rhos, "spectral radii", 0.0)
    s = float(_numbers([input_scale], "input scale", 0.0)[0])
    net = network(hidden, steps, seed)
    grid = lyapunov_grid(r, [s], hidden, steps, seed)
    b = _burn(steps, None)
    rows = []
    for i, rho in enumerate(r):
        spec = lyapunov_spectrum(rho * net.w, s * net.x, net.h0, top, burn=b, seed=seed)
        rows.append(LyapunovRow(float(rho), tuple(float(v) for v in spec), float(grid.grad[i, 0])))
    return tuple(rows)
