"""While Numba compiles (the app's first launch), the core runs on the NumPy reference: the same
numbers from every entry point and every scene, a status line that says so, and the switch."""

from __future__ import annotations

import dataclasses
import itertools
import math
import sys
import threading
import time

import numpy as np
import pytest
from core_cases import CASES, IDS, make_case

from seqviz.core import backend, batch_forward, batch_trace, forward, step, trace
from seqviz.dynamics.lyapunov import lyapunov_grid


@pytest.fixture
def reference_mode():
    backend.use_reference_until_ready()
    assert backend.using_reference()
    yield
    backend.reset()


def _clear_caches() -> None:
    """Forget the scenes' memoised results, so a second run really computes again."""
    for name, module in list(sys.modules.items()):
        if name.startswith("seqviz.") and module is not None:
            for obj in list(vars(module).values()):
                if callable(getattr(obj, "cache_clear", None)) and hasattr(obj, "cache_info"):
                    obj.cache_clear()


def assert_same(a, b, path="result", seen=None, depth=0):
    """a and b hold the same numbers (to 1e-9 relative) and everything else equal."""
    seen = set() if seen is None else seen
    if depth > 12 or (id(a), id(b)) in seen:
        return
    seen.add((id(a), id(b)))
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.shape == b.shape, path
        if a.dtype.kind in "fc":
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11, err_msg=path)
        elif a.dtype.kind != "O":
            np.testing.assert_array_equal(a, b, err_msg=path)
        else:
            for i, (x, y) in enumerate(zip(a.ravel(), b.ravel(), strict=True)):
                assert_same(x, y, f"{path}[{i}]", seen, depth + 1)
    elif isinstance(a, float | np.floating):
        same = math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-11)
        assert same or (math.isnan(a) and math.isnan(b)), (path, a, b)
    elif dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), path
        for f in dataclasses.fields(a):
            # timings differ by nature; a training result's run numbers the process's runs
            if f.name not in ("seconds", "elapsed", "run"):
                assert_same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}", seen,
                            depth + 1)  # fmt: skip
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            assert_same(a[k], b[k], f"{path}[{k!r}]", seen, depth + 1)
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{path}[{i}]", seen, depth + 1)
    elif isinstance(a, str | int | bool | type(None)):
        assert a == b, (path, a, b)
    elif hasattr(a, "__dict__") and type(a).__module__.startswith("seqviz"):
        assert type(a) is type(b), path
        assert_same(vars(a), vars(b), path, seen, depth + 1)


@pytest.mark.parametrize(("cell", "nl", "variant"), CASES, ids=IDS)
def test_every_entry_point_gives_the_kernels_numbers_on_the_reference(cell, nl, variant):
    p, x, h0, c0, grad_out, grad_hT = make_case(cell, nl, variant, d=5, T=7)
    rng = np.random.default_rng(1)
    xb, gb = rng.normal(size=(3, 7, 3)), rng.normal(size=(3, 7, 5))
    hs, cs = rng.normal(size=(4, 5)), (rng.normal(size=(4, 5)) if cell == "lstm" else None)

    def run():
        return {
            "trace": trace(p, x, h0, c0, grad_hT=grad_hT, grad_out=grad_out),
            "forward": forward(p, x, h0, c0),
            "step": step(p, x[:4], hs, cs),
            "batch_forward": batch_forward(p, xb),
            "batch_trace": batch_trace(p, xb, gb),
        }

    kernels = run()
    backend.use_reference_until_ready()
    try:
        assert backend.using_reference()
        reference = run()
    finally:
        backend.reset()
    assert_same(reference, kernels)


def test_overflow_is_found_the_same_way_on_the_reference(reference_mode):
    p, x, *_ = make_case("rnn", "linear", "textbook", d=4, T=40)
    p = p.replace(weight_hh=p.weight_hh * 1e40)
    tr = trace(p, x)
    backend.reset()
    assert tr.overflow is not None and tr.overflow == trace(p, x).overflow


def _canonical(result):
    """Fixed points in an order of their own. The finder lists them by residual q, which is at
    rounding level (1e-30) for all of them: their order is noise, in Numba runs too."""
    if not hasattr(result, "fixed"):
        return result
    pts = result.fixed.points
    order = sorted(range(len(pts)), key=lambda i: (pts[i].kind, tuple(np.round(pts[i].h, 6))))
    fixed = dataclasses.replace(
        result.fixed, points=tuple(dataclasses.replace(pts[i], q=0.0) for i in order)
    )
    pic = result.portrait
    pic = dataclasses.replace(
        pic, points=pic.points[order], directions=pic.directions[order],
        kinds=tuple(pic.kinds[i] for i in order),
    )  # fmt: skip
    return dataclasses.replace(result, fixed=fixed, portrait=pic)


def _scene_results(scene, values, n=2):
    if scene.steered:  # training: a result every ~0.1 s, so step exactly n updates instead
        from seqviz.scenes.stream import StreamControl

        control = StreamControl(values, running=False)
        stream = scene.results(values, control)
        result = next(stream)
        for _ in range(n):
            control.step(1)
            result = next(stream)
        stream.close()
        assert result.step == n
        return [result]
    return [_canonical(r) for r in itertools.islice(scene.results(values, None), n)]


SCENE_CASES = [(name, {}) for name in (
    "vanishing", "memory", "gates", "gradflow", "decoding", "tagging", "dynamics", "inside",
    "training", "seq2seq",
)] + [("dynamics", {"mode": "two-unit"}),
      ("gates", {"model": "random", "cell": "gru"})]  # fmt: skip


@pytest.mark.parametrize(("name", "values"), SCENE_CASES, ids=lambda c: str(c))
def test_every_scene_shows_the_same_result_on_the_reference(name, values):
    from seqviz.scenes import get_scene

    scene = get_scene(name)
    v = scene.make(values)
    _clear_caches()
    backend.use_reference_until_ready()
    try:
        reference = _scene_results(scene, v)
    finally:
        backend.reset()
    _clear_caches()
    kernels = _scene_results(scene, v)
    assert_same(reference, kernels, name)


def test_the_lyapunov_grid_waits_for_the_kernels_and_says_so(reference_mode):
    out: list = []
    worker = threading.Thread(target=lambda: out.append(
        lyapunov_grid([0.5], [0.0], hidden=4, steps=50)))  # fmt: skip
    worker.start()
    deadline = time.monotonic() + 10
    while not backend.waiting() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert backend.waiting() == ("the Lyapunov grid",) and not out
    backend.mark_ready("ready")
    worker.join(10)
    assert out and out[0].lyap.shape == (1, 1) and backend.waiting() == ()


def test_a_waiting_grid_fails_in_one_sentence_when_the_kernels_cannot_be_had(reference_mode):
    threading.Timer(0.2, backend.mark_failed, ("no compiler",)).start()
    with pytest.raises(ValueError, match="needs the compiled kernels"):
        lyapunov_grid([0.5], [0.0], hidden=4, steps=50)
