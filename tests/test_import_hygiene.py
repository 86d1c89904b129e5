"""The headless core imports no UI library (checked in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys

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
    assert "seqviz.core.kernels" in modules  # the check really imported the core


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
