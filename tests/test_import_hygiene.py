"""The headless core imports no UI library (checked in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys

from seqviz.scenes import scene_names

UI = ("textual", "rich", "plotext", "textual_plotext")


def test_core_and_experiments_import_no_ui_library():
    code = (
        "import json, sys\n"
        "import seqviz.core, seqviz.experiments, seqviz.core.reference\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = json.loads(out.stdout)
    leaked = [m for m in modules if m.split(".")[0] in UI]
    assert not leaked, leaked
    assert "seqviz.core.api" in modules  # the check really imported the core
    assert "numba" not in modules  # imported when a kernel is first called (not at start-up)


def test_the_apps_first_frame_needs_no_numba_scipy_or_torch():
    # What `seqviz` runs before its first frame: the app, the first scene's view and its result
    # on the NumPy reference (the kernels load afterwards, in the background).
    code = (
        "import json, sys\n"
        "from seqviz.core import backend\n"
        "backend.use_reference_until_ready()\n"
        "import seqviz.ui.app, seqviz.ui.views.vanishing\n"
        "from seqviz.scenes import get_scene\n"
        "scene = get_scene('vanishing')\n"
        "scene.compute(scene.defaults())\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imported = set(json.loads(out.stdout))
    modules = {m.split(".")[0] for m in imported}
    assert not modules & {"numba", "llvmlite", "scipy", "torch"}
    assert "seqviz" in modules and "textual" in modules
    # nor the stacks of cells, nor the memory experiment (imported when first asked for)
    lazy = {"seqviz.core.stack", "seqviz.core.stack_params", "seqviz.experiments.memory_pulse"}
    assert not imported & lazy
    assert "seqviz.core.api" in imported


def test_decoding_engine_and_scene_computations_import_no_ui_library():
    code = (
        "import json, sys\n"
        "import seqviz.decoding, seqviz.models.lm, seqviz.scenes, seqviz.training, seqviz.tasks\n"
        "from seqviz.scenes import scenes\n"
        "scenes()\n"  # imports every scene module
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = json.loads(out.stdout)
    leaked = [m for m in modules if m.split(".")[0] in UI]
    assert not leaked, leaked
    assert "seqviz.scenes.decoding" in modules and "seqviz.scenes.gates" in modules


def test_seqviz_imports_only_what_its_first_frame_needs():
    # `seqviz` (no command) up to its first frame, as the launch runs it: the app in a headless
    # terminal until the first scene's first result is drawn. Each module below was imported
    # eagerly once and cost launch time; this fails if one of them comes back.
    code = (
        "import asyncio, json, sys\n"
        "from seqviz.commands import terminal\n"
        "terminal.check_terminal = lambda: None\n"
        "drawn = []\n"
        "def run_app(app):\n"
        "    async def first_frame():\n"
        "        async with app.run_test(size=(160, 50)):\n"
        "            await app.until_ready()\n"
        "            drawn.append(app.result is not None)\n"
        "    asyncio.run(first_frame())\n"
        "    return 0\n"
        "terminal.run_app = run_app\n"
        "from seqviz.cli import main\n"
        "main([])\n"
        "print(json.dumps({'drawn': drawn, 'modules': sorted(sys.modules)}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout.splitlines()[-1])
    modules = set(report["modules"])
    assert report["drawn"] == [True]  # the check really reached the first frame
    assert "seqviz.ui.views.vanishing" in modules
    commands = {m for m in modules if m.startswith("seqviz.commands.")}
    assert commands == {"seqviz.commands.app", "seqviz.commands.terminal"}  # not every command
    lazy = {
        "seqviz.dynamics.fixedpoints",  # seqviz.dynamics imports its parts on first use
        "seqviz.dynamics.lyapunov",
        "zipfile",  # seqviz.files reads archives on first use
        # the scene bar's titles come from the registry; a scene's module loads when first shown
        *(f"seqviz.scenes.{name}" for name in scene_names() if name != "vanishing"),
        "textual.drivers.web_driver",  # only `seqviz serve` uses it
        "argparse",  # a bare `seqviz` has nothing to parse
        "seqviz.ui.help",  # the help screen, the palette's providers and the export keys load
        "seqviz.ui.palette",  # when first used
        "seqviz.ui.export",
        "plotext",  # the first scene draws no plotext figure: other scenes' plots load it
        "textual_plotext",
        "seqviz.ui.widgets.plots",
        "numba",
        "scipy",
        "torch",
    }
    assert not modules & lazy, sorted(modules & lazy)
