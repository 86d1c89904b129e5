"""The export keys: `s` saves an SVG screenshot, `e` the scene's traces as .npz; palette; folder."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from waiting import palette_search, until

from seqviz.core import Trace
from seqviz.ui.export import set_shots_folder, shots_folder

STAMP = r"\d{8}-\d{6}(-\d+)?"


async def press_and_wait(app, pilot, *keys):
    await pilot.press(*keys)
    await app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.slow
async def test_s_saves_an_svg_named_by_scene_and_time(make_app, ready, tmp_path):
    app = make_app("memory")
    set_shots_folder(app, tmp_path / "shots")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await press_and_wait(app, pilot, "s")
        await press_and_wait(app, pilot, "s")  # same second: a second file, not an overwrite
    files = sorted((tmp_path / "shots").iterdir())
    assert len(files) == 2
    for f in files:
        assert re.fullmatch(rf"memory-{STAMP}\.svg", f.name)
        root = ET.parse(f).getroot()
        text = "".join(root.itertext()).replace("\xa0", " ")
        assert "seqviz · Memory" in text


async def test_the_folder_comes_from_the_environment(make_app, ready, tmp_path, monkeypatch):
    monkeypatch.setenv("SEQVIZ_SHOTS", str(tmp_path / "env"))
    app = make_app("vanishing")
    assert shots_folder(app) == tmp_path / "env"
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await press_and_wait(app, pilot, "s")
    assert [p.suffix for p in (tmp_path / "env").iterdir()] == [".svg"]
    with pytest.raises(ValueError, match="must be a directory"):
        set_shots_folder(app, next((tmp_path / "env").iterdir()))


def _check_vanishing(app, traces):
    assert set(traces) == {"tanh", "linear"}
    np.testing.assert_array_equal(traces["tanh"].h, app.result.h)
    np.testing.assert_array_equal(traces["tanh"].grad_norms(), app.result.norms_tanh)
    np.testing.assert_array_equal(traces["linear"].grad_norms(), app.result.norms_linear)


def _check_memory(app, traces):
    assert set(traces) == {"rnn", "lstm"}
    np.testing.assert_allclose(traces["rnn"].h[:, 0], app.result.rnn_h, rtol=1e-12)
    np.testing.assert_allclose(traces["lstm"].c[:, 0], app.result.lstm_c, rtol=1e-12)


def _check_gates(app, traces):
    assert set(traces) == {app.values.cell}
    tr = traces[app.values.cell]
    np.testing.assert_array_equal(tr.h, app.result.h)
    np.testing.assert_array_equal(tr.gates, app.result.gates)


def _check_gradflow(app, traces):
    assert set(traces) == {"rnn", "lstm", "gru"}
    for cell, tr in traces.items():
        np.testing.assert_array_equal(tr.grad_norms(), app.result.norms[cell])


def _check_decoding(app, traces):
    assert set(traces) == {"lm"}
    best = app.result.final.best
    # <s>, the prompt words, then the best hypothesis without its </s>
    assert traces["lm"].T == 1 + len(app.result.prompt_ids) + best.depth - 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "scene, values, check",
    [
        ("vanishing", {"rho": 1.2, "steps": 30}, _check_vanishing),
        ("memory", {"forget_bias": 5.0}, _check_memory),
        ("gates", {"model": "random", "cell": "gru"}, _check_gates),
        ("gradflow", {"steps": 40}, _check_gradflow),
        ("decoding", {"model": "lstm", "prompt": "the keys", "max_len": 5}, _check_decoding),
    ],
)
async def test_e_saves_the_traces_the_scene_shows(make_app, ready, tmp_path, scene, values, check):
    app = make_app(scene, values)
    set_shots_folder(app, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await press_and_wait(app, pilot, "e")
        files = sorted(tmp_path.iterdir())
        assert files and all(re.fullmatch(rf"{scene}-[a-z]+-{STAMP}\.npz", f.name) for f in files)
        traces = {f.name.split("-")[1]: Trace.load(f) for f in files}
        check(app, traces)


@pytest.mark.slow
async def test_e_on_the_toy_bigram_says_there_is_no_trace(make_app, ready, tmp_path):
    app = make_app("decoding")
    set_shots_folder(app, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await press_and_wait(app, pilot, "e")
        assert list(tmp_path.iterdir()) == []
        notes = [n.message for n in app._notifications]
        assert any("toy bigram model has no recurrent state" in m for m in notes)


@pytest.mark.slow
async def test_palette_commands(make_app, ready, tmp_path):
    app = make_app("memory")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        folder = tmp_path / "from-palette"
        for query, first, done in (
            (f"shots {folder}", f"save screenshots and traces in {folder}",
             lambda: app.shots_dir == folder),
            ("save SVG screenshot", "save SVG screenshot",
             lambda: folder.is_dir() and any(p.suffix == ".svg" for p in folder.iterdir())),
            ("save trace .npz", "save trace .npz",
             lambda: folder.is_dir() and any(p.suffix == ".npz" for p in folder.iterdir())),
        ):  # fmt: skip
            await palette_search(app, pilot, query, first)
            await pilot.press("enter")
            await until(done, pilot, what=query)
            await app.workers.wait_for_complete()
            await pilot.pause()
        assert app.shots_dir == folder
        names = sorted(p.name for p in folder.iterdir())
        assert [n.split("-")[1] for n in names if n.endswith(".npz")] == ["lstm", "rnn"]
        assert sum(n.endswith(".svg") for n in names) == 1
