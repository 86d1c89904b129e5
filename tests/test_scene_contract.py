"""Every registered scene is complete (demo, snapshot, view), and scenes own their hooks."""

from __future__ import annotations

import importlib
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from waiting import until

from seqviz.lecture.script import demo_names, find_demo
from seqviz.scenes import base, scene_names, scenes

SNAPSHOTS = Path(__file__).parent / "__snapshots__"


def _mentions(path: str, name: str) -> bool:
    return re.search(rf"(^|[^a-z]){re.escape(name)}([^a-z]|$)", path) is not None


@pytest.mark.parametrize("name", scene_names())
def test_registered_scene_has_a_snapshot(name):
    svgs = [str(p.relative_to(SNAPSHOTS)) for p in SNAPSHOTS.rglob("*.svg")]
    assert any(_mentions(p, name) for p in svgs), (
        f"scene {name!r} has no SVG snapshot under tests/__snapshots__ (add "
        f"tests/test_snapshots_{name}.py and run it with --snapshot-update)"
    )


@pytest.mark.parametrize("name", scene_names())
def test_registered_scene_has_a_demo_that_shows_it(name):
    assert name in demo_names(), f"scene {name!r} has no demo seqviz/demos/{name}.toml"
    assert name in {step.scene for step in find_demo(name).steps}


@pytest.mark.parametrize("name", scene_names())
def test_registered_scene_names_an_importable_view(name):
    from seqviz.ui.views.base import SceneView

    module, _, cls = scenes()[name].view.partition(":")
    assert issubclass(getattr(importlib.import_module(module), cls), SceneView)


def test_the_contract_notices_a_missing_snapshot():
    svgs = [str(p.relative_to(SNAPSHOTS)) for p in SNAPSHOTS.rglob("*.svg")]
    assert not any(_mentions(p, "no_such_scene") for p in svgs)
    assert _mentions("test_snapshots/test_scene_at_defaults[gates-80x24].svg", "gates")
    assert not _mentions("test_snapshots/test_x[gatesy-80x24].svg", "gates")


def test_ui_and_lecture_hold_no_scene_branches():
    root = Path(__file__).parent.parent / "seqviz"
    for folder in ("ui", "lecture"):
        for path in (root / folder).rglob("*.py"):
            if path.parent.name == "views":
                continue  # each view is its scene's own file
            text = path.read_text()
            for name in scene_names():
                assert f'== "{name}"' not in text and f'"{name}":' not in text, (path, name)


def test_ui_and_lecture_hold_no_scene_tables():
    """A tuple, list or set literal of three or more scene names in ui/ or lecture/ would be a
    hand-made table that a new scene has to be added to (the UI bench lists the registry's; a
    pair to alternate between, as its scene-switch fallback, is not such a table)."""
    import ast

    names = set(scene_names())
    root = Path(__file__).parent.parent / "seqviz"
    for folder in ("ui", "lecture"):
        for path in (root / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                    listed = {e.value for e in node.elts if isinstance(e, ast.Constant)} & names
                    assert len(listed) < 3, (str(path), node.lineno, sorted(listed))


def test_traces_hooks_give_core_traces():
    from seqviz.core import Trace

    for scene in scenes().values():
        if scene.traces is None or scene.name == "decoding":
            continue
        values = scene.make({"steps": 12} if "steps" in scene.param_names else {})
        out = scene.export_traces(scene.compute(values))
        assert out and all(isinstance(t, Trace) for t in out.values()), scene.name
    with pytest.raises(ValueError, match="no result to export yet"):
        scenes()["memory"].export_traces(None)


# --- a streaming scene ---------------------------------------------------------------------


@dataclass(frozen=True)
class Counted:
    values: Any
    n: int


FREE = -1  # a key of the gates: once there, no stream waits


def _stream_scene(gates: dict[int, threading.Event], seen: list[int]) -> base.Scene:
    """Each stream waits on the gate of its own k: a gate opened for the old stream (so that it
    reaches its next result and learns it is stale) must not let the new one run ahead too."""

    def stream(values):
        gate = gates.setdefault(values.k, threading.Event())
        try:
            for n in range(1, 1000):
                seen.append(n)
                yield Counted(values, n)
                if FREE not in gates:  # the test lets one more result through at a time
                    gate.wait(60)
                    gate.clear()
        finally:
            seen.append(-1)  # closed

    return base.Scene(
        name="streamtest",
        title="Stream test",
        summary="counts",
        specs=(base.ParamSpec("k", "k", "int", 0, 0, 9, 1),),
        compute=lambda values: Counted(values, 0),
        frames=lambda result: result.n,
        view="tests.test_scene_contract:CountView",
        stream=stream,
    )


def _count_view():
    from seqviz.ui.views.base import SceneView

    class CountView(SceneView):
        SCOPED_CSS = False

        def __init__(self, **kw):
            super().__init__(**kw)
            self.shown: list[int] = []

        def show_result(self, result):
            self.shown.append(result.n)

    return CountView


def __getattr__(name: str) -> Any:  # the app imports the view lazily by "module:Class"
    if name == "CountView":
        globals()["CountView"] = view = _count_view()
        return view
    raise AttributeError(name)


@pytest.mark.slow
async def test_a_streaming_scene_shows_each_result_and_stops_on_change(monkeypatch):
    from seqviz import scenes as registry
    from seqviz.ui.app import SeqvizApp

    gates: dict[int, threading.Event] = {}
    seen: list[int] = []
    scene = _stream_scene(gates, seen)

    def gate(k: int) -> threading.Event:
        return gates.setdefault(k, threading.Event())

    monkeypatch.setattr(registry, "SCENES", (*registry.SCENES, (scene.name, scene.title)))
    monkeypatch.setattr(registry, "_cache", {**registry._cache, scene.name: scene})
    app = SeqvizApp(scene="streamtest", animate=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await app.until_ready()
        assert app.result.n == 1
        for want in (2, 3):
            gate(0).set()
            await until(lambda w=want: app.result.n == w, pilot, what=f"result {want}")
            assert app.result.n == want and app.n_frames == want
        app.set_param("k", 4)  # new parameters: the old stream stops at its next result
        gate(0).set()
        await until(lambda: app.result.values.k == 4, pilot, what="the k=4 stream")
        assert app.result.values.k == 4 and app.result.n == 1
        assert -1 in seen  # the first generator was closed
        assert app._view.shown == [1, 2, 3, 1]  # each result drawn once, in order
        app.set_param("k", 5)
        gate(4).set()
        await until(lambda: seen.count(-1) == 2, pilot, what="the second stream closed")
        assert seen.count(-1) == 2  # the second one too
        await until(lambda: app.result.values.k == 5, pilot, what="the k=5 stream")
        gates[FREE] = threading.Event()  # from now on the streams run free ...
        for event in list(gates.values()):  # ... so the last one ends with the app
            event.set()
