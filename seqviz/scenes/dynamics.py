"""Scene "Dynamics": fixed points and flow of a flip-flop RNN and a 2-unit RNN; edge of chaos."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from seqviz.scenes import title_of
from seqviz.scenes.base import ParamSpec, Scene

MODES = ("flipflop", "two-unit", "chaos")
AXES = ("PC1/PC2", "PC1/PC3", "PC2/PC3")
CHAOS_RHOS = tuple(round(0.15 * (i + 1), 2) for i in range(20))  # 0.15 .. 3.0
CHAOS_SCALES = tuple(round(0.1 * i, 1) for i in range(20))  # 0.0 .. 1.9
TWO_UNIT_RUNS, TWO_UNIT_STEPS = 16, 40  # two-unit mode: runs from starts on a ring
PULSE = {"flipflop": 1.0, "two-unit": 3.0}  # size of a key-fired input pulse

SPECS = (
    ParamSpec(
        "mode",
        "mode",
        "choice",
        "flipflop",
        choices=MODES,
        help="trained flip-flop RNN, a 2-unit RNN with live weights, or the chaos map",
    ),
    ParamSpec(
        "axes",
        "axes",
        "choice",
        "PC1/PC2",
        choices=AXES,
        help="flip-flop: which two principal components span the picture",
    ),
    ParamSpec("steps", "steps", "int", 300, 20, 2000, 20, help="flip-flop: length of the run"),
    ParamSpec("seed", "seed", "int", 0, 0, 9999, 1, help="pulses of the run; chaos: the network"),
    ParamSpec("w11", "w11", "float", 2.0, -4.0, 4.0, 0.1, help="two-unit: weight 1 <- 1"),
    ParamSpec("w12", "w12", "float", 0.0, -4.0, 4.0, 0.1, help="two-unit: weight 1 <- 2"),
    ParamSpec("w21", "w21", "float", 0.0, -4.0, 4.0, 0.1, help="two-unit: weight 2 <- 1"),
    ParamSpec("w22", "w22", "float", 2.0, -4.0, 4.0, 0.1, help="two-unit: weight 2 <- 2"),
    ParamSpec("b1", "b1", "float", 0.0, -2.0, 2.0, 0.1, help="two-unit: bias of unit 1"),
    ParamSpec("b2", "b2", "float", 0.0, -2.0, 2.0, 0.1, help="two-unit: bias of unit 2"),
    ParamSpec("hidden", "hidden size", "int", 64, 8, 128, 8, help="chaos: units d"),
    ParamSpec(
        "horizon", "chaos steps", "int", 500, 100, 2000, 100, help="chaos: steps T per network"
    ),
)


@dataclass(frozen=True)
class PhaseResult:
    """A phase portrait (flip-flop or two-unit mode) and what the view needs to run the cell."""

    values: Any
    portrait: Any  # seqviz.dynamics.portrait.Portrait
    fixed: Any  # FixedPoints
    params: Any  # core Params of the cell
    states: np.ndarray  # (T, d) the (first) drawn run
    pulses: np.ndarray  # (T, n_in) its inputs
    readout: tuple[np.ndarray, np.ndarray] | None  # flip-flop: (w_out (3, d), b_out (3,))
    shares: tuple[float, ...]  # variance shares of the shown axes (flip-flop)
    model: str = ""

    @property
    def mode(self) -> str:
        return str(self.values.mode)

    @property
    def T(self) -> int:
        return int(self.portrait.trajectory.shape[1])


@dataclass(frozen=True)
class ChaosResult:
    values: Any
    grid: Any  # seqviz.dynamics.lyapunov.LyapunovGrid
    seconds: float

    @property
    def mode(self) -> str:
        return "chaos"


@lru_cache(maxsize=2)
def _flipflop(seed: int) -> tuple[Any, Any, np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]:
    """The shipped network, its fixed points (from noisy states of 16 runs), PCA axes (cached)."""
    from seqviz import models
    from seqviz.dynamics import find_fixed_points
    from seqviz.dynamics.portrait import principal_axes
    from seqviz.tasks import flipflop as task

    entry = models.entries("flipflop")[0]
    model = models.load(entry.name)
    runs = task.dataset(10_000 + seed, 16, 200)
    states = np.concatenate([model.run(x) for x in runs.x])  # (16*200, d)
    fixed = find_fixed_points(model.params, starts=states, n_starts=512, seed=seed)
    mean, comps, share = principal_axes(states, 3)
    return model, fixed, states, mean, comps, share, entry.name


def _phase_flipflop(v: Any) -> PhaseResult:
    from seqviz.dynamics.portrait import Projection, portrait
    from seqviz.tasks import flipflop as task

    model, fixed, states, mean, comps, share, name = _flipflop(0)
    a, b = (int(c[-1]) - 1 for c in v.axes.split("/"))
    proj = Projection(mean, comps[[a, b]], (f"PC{a + 1}", f"PC{b + 1}"))
    x = task.dataset(v.seed, 1, v.steps).x[0]  # (T, 3)
    h = model.run(x)
    pic = portrait(model.params, proj, h, fixed, extra=[states])
    readout = (model.parameters()["w_out"].copy(), model.parameters()["b_out"].copy())
    return PhaseResult(
        v, pic, fixed, model.params, h, x, readout, (float(share[a]), float(share[b])), name
    )


def two_unit_params(v: Any) -> Any:
    from seqviz.core import Params

    w = np.array([[v.w11, v.w12], [v.w21, v.w22]])
    return Params.from_arrays("rnn", np.eye(2), w, np.array([v.b1, v.b2]))


def _phase_two_unit(v: Any) -> PhaseResult:
    from seqviz.core import forward
    from seqviz.dynamics import find_fixed_points
    from seqviz.dynamics.portrait import Projection, portrait

    params = two_unit_params(v)
    # Copies of a marginal point (an eigenvalue on the unit circle) converge slowly and spread
    # by up to ~1e-2 for this tolerance; closer than 0.02 they are one point in the picture.
    fixed = find_fixed_points(params, n_starts=300, tolerance=1e-14, seed=v.seed, merge=0.02)
    # Runs without input from starts around the edge of the square: where does each one go?
    rng = np.random.default_rng(v.seed)
    angles = np.linspace(0, 2 * np.pi, TWO_UNIT_RUNS, endpoint=False) + rng.uniform(0, 0.3)
    starts = 0.95 * np.stack([np.cos(angles), np.sin(angles)], axis=1)  # (runs, 2)
    x = np.zeros((TWO_UNIT_STEPS, 2))
    h = np.stack([forward(params, x, h0=s0)[0] for s0 in starts])  # (runs, T, 2)
    proj = Projection(np.zeros(2), np.eye(2), ("h1", "h2"))
    pic = portrait(params, proj, h, fixed, bounds=(-1.1, 1.1, -1.1, 1.1))
    return PhaseResult(v, pic, fixed, params, h[0], x, None, (1.0, 1.0))


def _chaos(v: Any) -> ChaosResult:
    import time

    from seqviz.dynamics import lyapunov_grid

    t0 = time.perf_counter()
    grid = lyapunov_grid(CHAOS_RHOS, CHAOS_SCALES, v.hidden, v.horizon, v.seed)
    return ChaosResult(v, grid, time.perf_counter() - t0)


def compute(v: Any) -> PhaseResult | ChaosResult:
    if v.mode == "chaos":
        return _chaos(v)
    if v.mode == "two-unit":
        return _phase_two_unit(v)
    return _phase_flipflop(v)


def frames(result: PhaseResult | ChaosResult) -> int:
    """Phase modes: the run drawn step by step; chaos: the map revealed one radius at a time."""
    if isinstance(result, ChaosResult):
        return int(result.grid.rhos.size)
    return result.T


def nearest_point(result: PhaseResult, h: np.ndarray) -> tuple[int, float]:
    """Index of the fixed point closest to state h and the distance (-1, inf without points)."""
    if not result.fixed.points:
        return -1, float("inf")
    dist = [float(np.linalg.norm(p.h - h)) for p in result.fixed.points]
    i = int(np.argmin(dist))
    return i, dist[i]


def edge(result: ChaosResult, column: int = 0) -> tuple[float, float] | None:
    """The two radii between which lambda_max changes sign in one input-scale column."""
    lam = result.grid.lyap[:, column]
    for i in range(len(lam) - 1):
        if lam[i] < 0 <= lam[i + 1]:
            return float(result.grid.rhos[i]), float(result.grid.rhos[i + 1])
    return None


SCENE = Scene(
    name="dynamics",
    title=title_of("dynamics"),
    summary="Fixed points and flow of a trained flip-flop RNN, a 2-unit RNN; the edge of chaos.",
    specs=SPECS,
    compute=compute,
    frames=frames,
    view="seqviz.ui.views.dynamics:DynamicsView",
)
