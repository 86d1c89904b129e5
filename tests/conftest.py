"""Shared test fixtures: a deterministic app factory (no animation timer, no cursor blink)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Property tests check values, not speed: on a loaded CI machine a slow example must not fail
# a test through Hypothesis' deadline or its too-slow health check.
settings.register_profile("seqviz", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("seqviz")

# User models (`seqviz models add`) live under XDG_DATA_HOME: tests see none of the tester's own.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="seqviz-test-data-")


def pytest_configure(config: pytest.Config) -> None:
    """Run across processes (pytest-xdist), compile every kernel into Numba's on-disk cache once,
    before the workers start: each worker then loads them instead of compiling the same kernels
    side by side."""
    if getattr(config, "workerinput", None) is None and config.getoption("numprocesses", None):
        subprocess.run([sys.executable, "-m", "seqviz.scenes.warm"], check=True)


@pytest.fixture
def make_app() -> Callable[..., Any]:
    """Build a SeqvizApp that never animates on its own, so screens are deterministic."""

    def factory(scene: str = "vanishing", values: Mapping[str, Any] | None = None, **kw: Any):
        from seqviz.ui.app import SeqvizApp

        kw.setdefault("animate", False)
        return SeqvizApp(scene=scene, values=values, **kw)

    return factory


async def settle(app: Any, pilot: Any) -> None:
    """Wait until the app's current parameters are computed and painted."""
    await app.until_ready()
    await pilot.pause()
    await pilot.pause()


@pytest.fixture
def ready() -> Callable[[Any, Any], Any]:
    return settle


@pytest.fixture(autouse=True)
def _shots_in_tmp(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stray `s` or `e` key in a test writes its screenshot or trace here, not into the repo."""
    monkeypatch.setenv("SEQVIZ_SHOTS", str(tmp_path_factory.mktemp("shots")))


async def _wait_until_drawn(pilot: Any) -> None:
    app = pilot.app
    await app.until_ready()
    for field in app.query("Input"):
        field.cursor_blink = False
    await pilot.pause()
    await pilot.pause()


@pytest.fixture
def until_drawn() -> Callable[[Any], Any]:
    """A snap_compare `run_before`: wait until computed and painted, with no cursor blink."""
    return _wait_until_drawn


@pytest.fixture
def app_from_cli(make_app: Callable[..., Any]) -> Callable[[list[str]], Any]:
    """Build the app the way `seqviz ARGS` would: parse, resolve scene and values, construct."""

    def factory(argv: list[str]) -> Any:
        from dataclasses import asdict

        from seqviz.cli import build_parser
        from seqviz.commands.app import resolve

        name, values = resolve(build_parser().parse_args(argv))
        return make_app(name, asdict(values))

    return factory


@pytest.fixture(autouse=True)
def _numba_kernels_by_default() -> None:
    """Each test starts on the compiled kernels. An app switches the process to the NumPy
    reference until its kernels are loaded; an app test that ends first would otherwise leave
    later kernel tests comparing the reference with itself."""
    from seqviz.core import backend

    if backend.using_reference():
        backend.reset()
    assert not backend.using_reference()
