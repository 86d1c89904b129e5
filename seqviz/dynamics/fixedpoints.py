"""Fixed points of an autonomous cell: minimise q(h) = 1/2 |F(h, u) - h|^2, classify them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from seqviz.core import Params

MAX_HIDDEN = 128
# q below this is round-off: the solver stops there, and the value's digits then depend on the
# order of floating-point operations, i.e. on the CPU and BLAS build, not on the network.
ROUNDOFF_Q = 1e-30
STABLE, SADDLE, UNSTABLE = "stable", "saddle", "unstable"


def _check(params: Any, u: Any) -> tuple[Params, np.ndarray]:
    if not isinstance(params, Params):
        raise ValueError(f"params must be a seqviz Params, got {type(params).__name__}.")
    if params.cell not in ("rnn", "gru"):
        raise ValueError(f"fixed points are found for rnn and gru cells, not {params.cell}.")
    if params.hidden_size > MAX_HIDDEN:
        raise ValueError(
            f"hidden size {params.hidden_size} is too large; the finder takes d <= {MAX_HIDDEN}."
        )
    x = np.zeros(params.input_size) if u is None else np.asarray(u, dtype=float)
    if x.shape != (params.input_size,) or not np.all(np.isfinite(x)):
        raise ValueError(f"input u must be {params.input_size} finite numbers, got {x.shape}.")
    return params, x


CellMap = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def cell_map(params: Params, u: Any = None) -> CellMap:
    """F and its Jacobian for constant input u: h (N, d) -> (F(h) (N, d), dF/dh (N, d, d))."""
    params, x = _check(params, u)
    d = params.hidden_size
    w, const = params.weight_hh, params.weight_ih @ x + params.bias_ih  # (G*d, d), (G*d,)
    b_hh = params.bias_hh
    if params.cell == "rnn":
        nl = params.nonlinearity

        def rnn(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            a = h @ w.T + const + b_hh  # (N, d)
            if nl == "tanh":
                f = np.tanh(a)
                slope = 1.0 - f * f
            elif nl == "relu":
                f = np.maximum(a, 0.0)
                slope = (a > 0).astype(float)
            else:
                f, slope = a, np.ones_like(a)
            return f, slope[:, :, None] * w[None]

        return rnn
    wr, wz, wn = w[:d], w[d : 2 * d], w[2 * d :]
    cr, cz, cn = const[:d], const[d : 2 * d], const[2 * d :]
    br, bz, bn = b_hh[:d], b_hh[d : 2 * d], b_hh[2 * d :]
    textbook = params.variant == "textbook"

    def gru(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r = 1.0 / (1.0 + np.exp(-(h @ wr.T + cr + br)))  # (N, d)
        z = 1.0 / (1.0 + np.exp(-(h @ wz.T + cz + bz)))
        dr = (r * (1 - r))[:, :, None] * wr[None]  # (N, d, d) dr/dh
        dz = (z * (1 - z))[:, :, None] * wz[None]
        if textbook:  # n = tanh(cn + Wn (r*h) + bn)
            n = np.tanh(cn + (r * h) @ wn.T + bn)
            inner = wn[None] * r[:, None, :] + np.einsum("ij,njk->nik", wn, h[:, :, None] * dr)
        else:  # PyTorch: n = tanh(cn + r * (Wn h + bn))
            hn = h @ wn.T + bn
            n = np.tanh(cn + r * hn)
            inner = r[:, :, None] * wn[None] + hn[:, :, None] * dr
        dn = (1 - n * n)[:, :, None] * inner
        f = (1 - z) * n + z * h
        eye = np.eye(d)[None]
        jac = (1 - z)[:, :, None] * dn + (h - n)[:, :, None] * dz + z[:, :, None] * eye
        return f, jac

    return gru


@dataclass(frozen=True)
class FixedPoint:
    h: np.ndarray  # (d,)
    q: float  # 1/2 |F(h) - h|^2 at the point
    eigenvalues: np.ndarray  # (d,) complex, of dF/dh, sorted by decreasing modulus
    unstable: np.ndarray  # (n_unstable, d) real unit vectors along the unstable directions

    @property
    def kind(self) -> str:
        n = self.n_unstable
        if n == 0:
            return STABLE
        return UNSTABLE if n == self.eigenvalues.size else SADDLE

    @property
    def n_unstable(self) -> int:
        return int(np.sum(np.abs(self.eigenvalues) > 1.0))

    @property
    def top_eigenvalue(self) -> complex:
        return complex(self.eigenvalues[0])

    def to_dict(self) -> dict[str, Any]:
        top = self.top_eigenvalue
        return {
            "kind": self.kind,
            "q": self.q,
            "unstable_directions": self.n_unstable,
            "top_eigenvalue": [top.real, top.imag],
            "top_modulus": abs(top),
            "h": [float(v) for v in self.h],
        }


@dataclass(frozen=True)
class FixedPoints:
    points: tuple[FixedPoint, ...]  # stable, saddles, unstable; see find_fixed_points
    starts: int
    tolerance: float

    def of_kind(self, kind: str) -> tuple[FixedPoint, ...]:
        return tuple(p for p in self.points if p.kind == kind)

    @property
    def stable(self) -> tuple[FixedPoint, ...]:
        return self.of_kind(STABLE)

    @property
    def saddles(self) -> tuple[FixedPoint, ...]:
        return self.of_kind(SADDLE)


def _solve(fmap: CellMap, h: np.ndarray, iters: int) -> np.ndarray:
    """Levenberg-Marquardt on r(h) = F(h) - h: Gauss-Newton steps, damped where q does not fall."""
    n, d = h.shape
    mu = np.full(n, 1e-3)
    eye = np.eye(d)
    f, jac = fmap(h)
    r = f - h
    q = 0.5 * np.sum(r * r, axis=1)
    for _ in range(iters):
        jr = jac - eye  # (N, d, d) dr/dh
        jt = np.transpose(jr, (0, 2, 1))
        lhs = jt @ jr + mu[:, None, None] * eye
        rhs = -(jt @ r[:, :, None])[:, :, 0]
        try:
            step = np.linalg.solve(lhs, rhs[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:
            step = rhs / (mu[:, None] + 1.0)
        trial = h + step
        f2, jac2 = fmap(trial)
        r2 = f2 - trial
        q2 = 0.5 * np.sum(r2 * r2, axis=1)
        better = np.isfinite(q2) & (q2 <= q)
        h = np.where(better[:, None], trial, h)
        f = np.where(better[:, None], f2, f)
        jac = np.where(better[:, None, None], jac2, jac)
        r = np.where(better[:, None], r2, r)
        q = np.where(better, q2, q)
        # A step that lowers q earns trust (towards pure Gauss-Newton); one that fails, damping.
        mu = np.clip(np.where(better, mu * 0.1, mu * 10.0), 1e-15, 1e8)
        if np.all(q < ROUNDOFF_Q):
            break
    return h


def find_fixed_points(
    params: Params,
    u: Any = None,
    starts: Any = None,
    *,
    n_starts: int = 256,
    noise: float = 0.05,
    tolerance: float = 1e-16,
    iters: int = 100,
    seed: int = 0,
    merge: float = 1e-4,
) -> FixedPoints:
    """Fixed points of h -> F(h, u) for constant input u (default zeros).

    starts (M, d): states to start from, e.g. hidden states of real trajectories; n_starts of
    them are drawn (with replacement) and moved by Gaussian noise of std `noise`. Without
    starts, uniform draws in [-1, 1]^d are used. Points with q <= tolerance are kept, merged
    when closer than `merge` (relative; a point with an eigenvalue on the unit circle is only
    approached slowly, so its copies spread), classified by the eigenvalues of dF/dh, and
    ordered by ``_rank``.
    """
    fmap = cell_map(params, u)
    d = params.hidden_size
    if not (isinstance(n_starts, int) and n_starts >= 1):
        raise ValueError(f"n_starts must be an integer >= 1, got {n_starts!r}.")
    rng = np.random.default_rng(seed)
    if starts is None:
        h0 = rng.uniform(-1.0, 1.0, (n_starts, d))
    else:
        pool = np.asarray(starts, dtype=float).reshape(-1, d) if np.size(starts) else None
        if pool is None or not np.all(np.isfinite(pool)):
            raise ValueError(f"starts must be finite states of shape (M, {d}) with M >= 1.")
        h0 = pool[rng.integers(0, len(pool), n_starts)] + rng.normal(0, noise, (n_starts, d))
    h = _solve(fmap, h0, iters)
    f, jac = fmap(h)
    q = 0.5 * np.sum((f - h) ** 2, axis=1)
    keep = np.flatnonzero(np.isfinite(q) & (q <= tolerance))
    found: list[FixedPoint] = []
    for i in keep[np.argsort(q[keep])]:
        scale = max(1.0, float(np.linalg.norm(h[i])))
        if any(np.linalg.norm(p.h - h[i]) < merge * scale for p in found):
            continue
        found.append(_classify(h[i], float(q[i]), jac[i]))
    found.sort(key=_rank)
    return FixedPoints(tuple(found), n_starts, tolerance)


def _rank(p: FixedPoint) -> tuple[Any, ...]:
    """Stable points first, then saddles with the most unstable directions, then sources; within
    those by q, where q is above round-off, then by the largest |eigenvalue|, then by the state.
    Rounded so that the order is the same on every machine: below ROUNDOFF_Q, q is noise."""
    order = {STABLE: 0, SADDLE: 1, UNSTABLE: 2}
    return (order[p.kind], -p.n_unstable, max(p.q, ROUNDOFF_Q),
            -round(abs(p.top_eigenvalue), 9), tuple(np.round(p.h, 9)))  # fmt: skip


def q_text(q: float) -> str:
    """q as shown (6.5e-12); at round-off, "<1e-30" rather than digits no machine agrees on."""
    if q < ROUNDOFF_Q:
        return f"<{ROUNDOFF_Q:.0e}"
    return f"{q:.1e}"


def _classify(h: np.ndarray, q: float, jac: np.ndarray) -> FixedPoint:
    vals, vecs = np.linalg.eig(jac)
    order = np.argsort(-np.abs(vals), kind="stable")
    vals, vecs = vals[order], vecs[:, order]
    dirs = []
    for j in np.flatnonzero(np.abs(vals) > 1.0):
        v = np.real(vecs[:, j])
        if np.linalg.norm(v) < 1e-12:
            v = np.imag(vecs[:, j])
        dirs.append(v / np.linalg.norm(v))
    unstable = np.array(dirs).reshape(-1, h.size)
    return FixedPoint(h.copy(), q, vals, unstable)
