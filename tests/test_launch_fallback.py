"""The app's first launch does not wait for the compiler: NumPy reference first, the status line
says so, then the compiled kernels take over. Also the launch probe `seqviz bench --ui` reads."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap

import pytest
from test_kernel_fallback import _clear_caches, assert_same

from seqviz.core import backend
from seqviz.scenes import get_scene, warm
from seqviz.ui.app import SeqvizApp


@pytest.fixture
def fresh_warmer(monkeypatch):
    monkeypatch.setattr(warm, "_warmer", None)
    yield
    warm.stop()
    backend.reset()


def _status(app) -> str:
    return str(app.query_one("#status").render())


async def _until(pilot, condition, seconds=30.0):
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("condition not met in time")


def _held_compile(tmp_path, monkeypatch):
    """Pretend the cache is cold; the child that would compile waits instead until the test
    touches the returned path (the cache here is warm). Returns that path."""
    gate = tmp_path / "compiled"
    monkeypatch.setattr(warm, "cache_is_warm", lambda: False)
    child = f"import os, time\nwhile not os.path.exists({str(gate)!r}): time.sleep(0.02)"
    monkeypatch.setattr(warm.Warmer, "child_argv", lambda self: [sys.executable, "-c", child])
    return gate


async def test_a_cold_cache_shows_the_reference_says_so_and_switches(fresh_warmer, tmp_path,
                                                                     monkeypatch):  # fmt: skip
    gate = _held_compile(tmp_path, monkeypatch)
    app = SeqvizApp(warm_kernels=True)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_ready()
        assert backend.using_reference()
        await _until(pilot, lambda: "compiling kernels in the background" in _status(app))
        assert "NumPy reference meanwhile" in _status(app)
        shown = app.result  # computed on the reference
        app.action_nudge(1)  # keys work while it compiles
        await app.until_ready()
        assert app.values.rho > 1.0 and not backend.is_ready()
        gate.touch()
        await _until(pilot, backend.is_ready)
        await _until(pilot, lambda: "switched from the NumPy reference" in _status(app))
        assert not backend.using_reference()
        app.set_param("rho", 1.0)
        await app.until_ready()
    scene = get_scene("vanishing")
    _clear_caches()
    assert_same(shown, scene.compute(scene.defaults()))  # the kernels' numbers


async def test_a_warm_cache_loads_the_kernels_without_a_child(fresh_warmer, monkeypatch):
    monkeypatch.setattr(warm, "cache_is_warm", lambda: True)
    monkeypatch.setattr(warm.Warmer, "child_argv", lambda self: pytest.fail("no child on warm"))
    app = SeqvizApp(warm_kernels=True)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_ready()
        await _until(pilot, backend.is_ready)
        await _until(pilot, lambda: "switched" in _status(app))


async def test_without_warm_kernels_the_app_uses_numba_as_before():
    app = SeqvizApp()
    async with app.run_test(size=(120, 40)):
        await app.until_ready()
        assert backend.phase()[0] == "numba" and not backend.using_reference()


async def test_the_probe_reports_painted_results(monkeypatch):
    read_end, write_end = os.pipe()
    monkeypatch.setenv("SEQVIZ_LAUNCH_PROBE", str(write_end))
    try:
        app = SeqvizApp()
        async with app.run_test(size=(120, 40)) as pilot:
            await app.until_ready()
            await pilot.pause()
            await asyncio.sleep(0.1)
        lines = os.read(read_end, 4096).decode().split()
    finally:
        os.close(read_end)
        os.close(write_end)
    assert lines[:2] == ["painted", str(app._shown_generation)]


@pytest.mark.slow
def test_a_real_cold_cache_end_to_end(tmp_path):
    """A fresh process, an empty NUMBA_CACHE_DIR: the first result comes from the reference
    while the child compiles, and the app switches once it is done (compiles everything)."""
    script = textwrap.dedent("""
        import asyncio
        from seqviz.core import backend
        from seqviz.ui.app import SeqvizApp

        async def main():
            app = SeqvizApp(warm_kernels=True)
            async with app.run_test(size=(100, 30)) as pilot:
                await app.until_ready(120)
                print("first", backend.phase()[0], backend.using_reference(), flush=True)
                while not backend.is_ready():
                    assert backend.phase()[0] in ("checking", "compiling", "loading")
                    await pilot.pause(0.2)
                await pilot.pause(0.5)
                print("switched", "switched" in str(app.query_one("#status").render()))

        asyncio.run(main())
    """)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=1500)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    first, switched = proc.stdout.splitlines()[-2:]
    assert first.split()[2] == "True", first  # the first result came from the reference
    assert first.split()[1] in ("checking", "compiling"), first
    assert switched == "switched True"
    assert any((tmp_path / "numba").rglob("*.nbi"))  # the child filled the empty cache


async def test_the_chaos_map_says_it_waits_for_the_kernels_then_shows(fresh_warmer, tmp_path,
                                                                       monkeypatch):  # fmt: skip
    gate = _held_compile(tmp_path, monkeypatch)
    app = SeqvizApp(scene="dynamics", values={"mode": "two-unit"}, warm_kernels=True)
    async with app.run_test(size=(160, 50)) as pilot:
        try:  # a blocked worker would keep a failed test from closing the app
            await app.until_ready()
            app.set_params({"mode": "chaos", "horizon": 100, "hidden": 8})
            await _until(pilot, lambda: "the Lyapunov grid waits for the compiled kernels "
                         "(compiling in the background)" in _status(app))  # fmt: skip
            gate.touch()
            await app.until_ready()
            assert app.result.grid.lyap.shape == (20, 20) and backend.is_ready()
        finally:
            warm.stop()


async def test_an_app_opened_on_the_chaos_map_starts_the_warm_up(fresh_warmer, tmp_path,
                                                                 monkeypatch):  # fmt: skip
    """`seqviz --scene dynamics --set mode=chaos`: the first result is the Lyapunov grid, which
    waits for the compiled kernels, and the warm-up started only after a first result was on
    screen: "waits for the compiled kernels (looking for them)" for ever. It starts at once."""
    gate = _held_compile(tmp_path, monkeypatch)
    app = SeqvizApp(scene="dynamics", values={"mode": "chaos", "horizon": 100, "hidden": 8},
                    warm_kernels=True)  # fmt: skip
    async with app.run_test(size=(100, 30)) as pilot:
        try:
            await _until(pilot, lambda: "the Lyapunov grid waits for the compiled kernels "
                         "(compiling in the background)" in str(app._notice_text()))  # fmt: skip
            assert app.result is None
            gate.touch()
            await app.until_ready(timeout=120)
            assert app.result.grid.lyap.shape == (20, 20) and backend.is_ready()
            await pilot.pause()
            assert not app._notice or not app._notice.display
        finally:
            warm.stop()
            backend.release_waiters()  # without a warm-up the grid's worker waits for ever
