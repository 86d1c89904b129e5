"""Fixed points, Lyapunov exponents and the linear recurrence of seqviz.dynamics."""

from __future__ import annotations

import math
import os
import platform
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from seqviz.core import Params
from seqviz.dynamics import LinearRecurrence, find_fixed_points, lyapunov_grid, scan_levels
from seqviz.dynamics.fixedpoints import ROUNDOFF_Q, _rank, cell_map, q_text
from seqviz.dynamics.lyapunov import lyapunov_spectrum, network


def _root_of_tanh(w: float) -> float:
    """The positive solution of h = tanh(w h), by bisection (independent of the finder)."""
    lo, hi = 1e-9, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if math.tanh(w * mid) > mid else (lo, mid)
    return 0.5 * (lo + hi)


def test_two_unit_network_fixed_points_are_found_exactly():
    # Two decoupled units h = tanh(2h): each has 0 and +-h*, so the plane has nine fixed points:
    # four stable corners, four saddles on the axes, an unstable origin.
    p = Params.from_arrays("rnn", np.zeros((2, 1)), 2.0 * np.eye(2))
    star = _root_of_tanh(2.0)
    found = find_fixed_points(p, n_starts=400, seed=1)
    assert len(found.points) == 9
    expected = {(a, b) for a in (-star, 0.0, star) for b in (-star, 0.0, star)}
    for point in found.points:
        nearest = min(expected, key=lambda e: np.hypot(*(np.array(e) - point.h)))
        np.testing.assert_allclose(point.h, nearest, atol=1e-12)
        zeros = sum(abs(c) < 1e-9 for c in nearest)
        assert point.kind == {0: "stable", 1: "saddle", 2: "unstable"}[zeros]
        assert point.n_unstable == zeros
        assert point.q < 1e-24
    saddle = found.saddles[0]
    axis = int(np.argmin(np.abs(saddle.h)))  # the unstable direction leaves along the zero unit
    assert abs(saddle.unstable[0][axis]) == pytest.approx(1.0)
    assert abs(found.stable[0].top_eigenvalue) == pytest.approx(2 * (1 - star**2))


def test_fixed_points_are_ordered_the_same_whatever_their_round_off():
    # q below ROUNDOFF_Q is round-off, whose digits differ between CPUs and BLAS builds: the
    # order (and so the numbers the table and the demos cite) must not follow it.
    p = Params.from_arrays("rnn", np.zeros((2, 1)), 2.0 * np.eye(2))
    found = find_fixed_points(p, n_starts=400, seed=1)
    assert [pt.kind for pt in found.points] == ["stable"] * 4 + ["saddle"] * 4 + ["unstable"]
    rng = np.random.default_rng(3)
    for _ in range(5):
        noisy = [replace(pt, q=float(rng.uniform(0.0, ROUNDOFF_Q))) for pt in found.points]
        rng.shuffle(noisy)
        reordered = sorted(noisy, key=_rank)
        for a, b in zip(reordered, found.points, strict=True):
            assert np.array_equal(a.h, b.h)
    # Above round-off q still decides (a point that is less converged comes later).
    worse = replace(found.stable[0], q=1e-12)
    assert sorted([worse, *found.stable[1:]], key=_rank)[-1] is worse


def test_saddles_with_more_unstable_directions_come_first():
    from seqviz.commands.run_fixedpoints import find

    _, fixed = find("flipflop")
    directions = [p.n_unstable for p in fixed.saddles]
    assert directions == sorted(directions, reverse=True) and directions[0] > directions[-1]


def test_q_at_round_off_is_shown_as_a_bound():
    assert q_text(3.7e-35) == "<1e-30"
    assert q_text(0.0) == "<1e-30"
    assert q_text(2.5e-12) == "2.5e-12"
    assert q_text(ROUNDOFF_Q) == "1.0e-30"


@pytest.mark.parametrize("variant", ["textbook", "pytorch"])
def test_gru_jacobian_matches_finite_differences(variant):
    p = Params.random("gru", 3, 5, seed=2, variant=variant)
    fmap = cell_map(p, [0.3, -0.2, 0.5])
    h = np.random.default_rng(0).normal(size=(1, 5))
    _, jac = fmap(h)
    eps = 1e-6
    for j in range(5):
        e = np.zeros((1, 5))
        e[0, j] = eps
        numeric = (fmap(h + e)[0] - fmap(h - e)[0])[0] / (2 * eps)
        np.testing.assert_allclose(jac[0, :, j], numeric, atol=1e-8)


def test_rnn_map_matches_the_core_step():
    from seqviz.core import forward

    p = Params.random("rnn", 2, 4, seed=3)
    h0 = np.random.default_rng(1).normal(size=4)
    u = np.array([0.5, -1.0])
    f, _ = cell_map(p, u)(h0[None])
    h, _ = forward(p, u[None], h0=h0)
    np.testing.assert_allclose(f[0], h[0], atol=1e-12)


def test_finder_rejects_bad_input():
    with pytest.raises(ValueError, match="rnn and gru"):
        find_fixed_points(Params.random("lstm", 1, 2))
    with pytest.raises(ValueError, match="d <= 128"):
        find_fixed_points(Params.random("rnn", 1, 130))
    with pytest.raises(ValueError, match="input u"):
        find_fixed_points(Params.random("rnn", 2, 3), u=[1.0])


def test_lyapunov_edge_of_chaos_at_input_zero():
    grid = lyapunov_grid([0.8, 2.0], [0.0], hidden=128, steps=500)
    assert grid.lyap[0, 0] < 0 < grid.lyap[1, 0]
    # Chaos goes with exploding gradients, order with vanishing ones.
    assert grid.grad[0, 0] < 1e-2 < 1.0 < grid.grad[1, 0]


def test_linear_rnn_exponent_is_log_spectral_radius():
    rhos = np.array([0.5, 0.9, 1.3])
    grid = lyapunov_grid(rhos, [1.0], hidden=16, steps=4000, nonlinearity="linear", burn=500)
    np.testing.assert_allclose(grid.lyap[:, 0], np.log(rhos), atol=5e-3)


def test_qr_top_exponent_agrees_with_the_renormalised_vector():
    net = network(32, 1500, seed=4)
    grid = lyapunov_grid([1.5], [0.5], hidden=32, steps=1500, seed=4, burn=300)
    spec = lyapunov_spectrum(1.5 * net.w, 0.5 * net.x, net.h0, top=3, burn=300)
    assert spec[0] == pytest.approx(grid.lyap[0, 0], abs=0.02)
    assert spec[0] >= spec[1] >= spec[2]


def test_lyapunov_rejects_bad_grids():
    with pytest.raises(ValueError, match="spectral radii"):
        lyapunov_grid([], [0.0])
    with pytest.raises(ValueError, match="input scales"):
        lyapunov_grid([1.0], [float("nan")])


@pytest.mark.parametrize("steps", [1, 2, 7, 64, 1000])
def test_scan_equals_loop(steps):
    rec = LinearRecurrence.ring(16, 3, r_min=0.4, r_max=0.99, max_phase=2 * math.pi, seed=5)
    x = np.random.default_rng(steps).normal(size=(steps, 3))
    loop, scan = rec.loop(x), rec.scan(x)
    assert np.max(np.abs(loop - scan)) <= 1e-12 * max(1.0, float(np.max(np.abs(loop))))
    assert scan_levels(steps) == (0 if steps == 1 else math.ceil(math.log2(steps)))


def test_ring_init_and_gradient():
    rec = LinearRecurrence.ring(500, 2, r_min=0.5, r_max=0.8, max_phase=1.0, seed=0)
    assert np.all((np.abs(rec.lam) >= 0.5) & (np.abs(rec.lam) <= 0.8))
    assert np.all((np.angle(rec.lam) >= 0) & (np.angle(rec.lam) <= 1.0))
    norms = rec.grad_norms(20)
    assert norms[0] == pytest.approx(1.0)
    assert np.all(np.diff(norms) < 0)
    with pytest.raises(ValueError, match="r_min"):
        LinearRecurrence.ring(4, 1, r_min=0.9, r_max=0.5)


def test_numba_grid_equals_the_numpy_reference():
    from seqviz.dynamics.reference import lyapunov_grid_reference

    rhos, scales = [0.5, 1.1, 2.0], [0.0, 0.7]
    grid = lyapunov_grid(rhos, scales, hidden=12, steps=200, seed=3)
    lyap, grad = lyapunov_grid_reference(rhos, scales, hidden=12, steps=200, seed=3)
    np.testing.assert_allclose(grid.lyap, lyap, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(grid.grad, grad, rtol=1e-8)


def test_lyapunov_kernel_sums_in_order_so_no_cpu_changes_the_chaos_map() -> None:
    """In the chaotic half of the grid a last-bit difference grows to the second digit of
    lambda_max, so the kernel must not depend on the CPU's vector width or fused multiply-adds:
    its numbers equal, bit for bit, the same loops run by the Python interpreter (every sum in
    index order, one rounding per operation). With fast-math reassociation or contraction the
    compiled sums are reordered or fused and differ in the last bits, which chaos amplifies."""
    from seqviz.dynamics.lyapunov import TANH
    from seqviz.dynamics.lyapunov_kernels import _run

    net = network(32, 150, seed=2)
    wt = np.ascontiguousarray(net.w.T)
    for rho, scale in ((2.5, 1.0), (3.0, 0.0), (1.5, 1.0)):  # two chaotic, one ordered
        args = (net.w, wt, net.x, net.h0, net.v0, rho, scale, 20, 10, TANH)
        jitted = _run(*args, np.empty((10, 32)))
        plain = _run.py_func(*args, np.empty((10, 32)))
        assert jitted == plain, (rho, scale)
    # the chaotic cells really are chaotic (there a rounding difference grows), and the grid
    # runs the same kernel
    grid = lyapunov_grid([2.5, 3.0, 1.5], [1.0, 0.0], hidden=32, steps=150, seed=2, burn=20,
                         grad_steps=10)  # fmt: skip
    assert grid.lyap[0, 0] > 0.02 and grid.lyap[1, 1] > 0.1 and grid.lyap[2, 0] < -0.1
    assert grid.lyap[0, 0] == _run(net.w, wt, net.x, net.h0, net.v0, 2.5, 1.0, 20, 10, TANH,
                                   np.empty((10, 32)))[0]  # fmt: skip


@pytest.mark.slow
@pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64"), reason="OpenBLAS kernel families of x86-64"
)
@pytest.mark.parametrize("kernels", ["Sandybridge", "Haswell"])
def test_the_chaos_maps_network_is_the_same_whatever_blas_kernels_the_cpu_gets(kernels) -> None:
    """OpenBLAS picks its kernels for the CPU; they round LAPACK's eigenvalues and BLAS's dot
    products differently in the last bits (the spectral radius by up to 30 units in the last
    place between Haswell's and SkylakeX's), and the chaotic half of the map grows such bits
    into other colours. A process that forces another family (OPENBLAS_CORETYPE, read when
    NumPy loads OpenBLAS) draws the same network and the same grid, bit for bit."""
    script = (
        "import hashlib, numpy as np\n"
        "from seqviz.dynamics.lyapunov import lyapunov_grid, network\n"
        "n = network(48, 300, seed=5)\n"
        "g = lyapunov_grid([1.5, 3.0], [0.0, 1.0], hidden=48, steps=300, seed=5)\n"
        "parts = (n.w, n.v0, g.lyap, g.grad)\n"
        "print(hashlib.sha256(b''.join(np.ascontiguousarray(a).tobytes() for a in parts))"
        ".hexdigest())\n"
    )

    def digest(family: str | None) -> str:
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
        if family is not None:
            env["OPENBLAS_CORETYPE"] = family
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, check=True)  # fmt: skip
        return done.stdout.strip()

    here = digest(None)  # the family OpenBLAS picks for this CPU
    assert len(here) == 64 and digest(kernels) == here


def _log_growths(w, x, h0, v0):
    """log |v_t| of the tangent vector renormalised every step, written out from the definition
    (h_t = tanh(W h_{t-1} + x_t), v_t = diag(1 - h_t^2) W v_{t-1} / |...|)."""
    h, v, out = np.array(h0, dtype=float), np.array(v0, dtype=float), []
    for xt in x:
        h = np.tanh(w @ h + xt)
        v = (1.0 - h * h) * (w @ v)
        n = np.linalg.norm(v)
        out.append(math.log(n))
        v = v / n
    return np.array(out)


def test_lyapunov_burn_in_leaves_out_exactly_the_first_burn_steps():
    """lambda_max averages log growth over the steps from `burn` on, exactly: each step's
    growth differs here by far more than the tolerance, so leaving out one step more or
    less, or dividing by one step more or less, fails."""
    T, d, rho, scale = 20, 4, 1.7, 2.0  # default burn-in: T // 5 = 4 steps
    net = network(d, T, seed=1)
    logs = _log_growths(rho * net.w, scale * net.x, net.h0, net.v0)
    assert np.min(np.abs(np.diff(logs))) > 1e-3 and np.ptp(logs) > 0.1
    for burn in range(T):
        lam = lyapunov_grid([rho], [scale], hidden=d, steps=T, seed=1, burn=burn, grad_steps=2)
        assert lam.lyap[0, 0] == pytest.approx(logs[burn:].mean(), rel=1e-12, abs=1e-14), burn
        assert abs(logs[burn:].mean() - logs[burn + 1 :].sum() / (T - burn)) > 1e-4
    default = lyapunov_grid([rho], [scale], hidden=d, steps=T, seed=1, grad_steps=2)
    assert default.lyap[0, 0] == pytest.approx(logs[T // 5 :].mean(), rel=1e-12)
    for bad in (-1, T):
        with pytest.raises(ValueError, match=rf"burn-in must be from 0 to {T - 1} steps"):
            lyapunov_grid([rho], [scale], hidden=d, steps=T, seed=1, burn=bad)
    # the QR spectrum's top exponent (one tangent vector: |R_11| is its growth) burns in the same
    q0 = np.random.default_rng(3).normal(size=d)
    logs_q = _log_growths(rho * net.w, scale * net.x, net.h0, q0 / np.linalg.norm(q0))
    for burn in range(T):
        spec = lyapunov_spectrum(rho * net.w, scale * net.x, net.h0, top=1, burn=burn, seed=3)
        assert spec[0] == pytest.approx(logs_q[burn:].mean(), rel=1e-12, abs=1e-14), burn
