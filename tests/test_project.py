"""Project hygiene: the README's commands, CI and pyproject agree with each other."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block, "README.md must open with a bash block of commands"
    assert text.index(block.group(0)) < 200, "the commands block must be at the top of README.md"
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_readme_opens_with_install_launch_and_install_test():
    launch, test = _readme_commands()[:2]
    assert launch.startswith("pip install") and launch.endswith("seqviz")
    assert test.startswith("pip install") and "pytest" in test


def test_ci_runs_the_readme_test_command_after_installing_torch():
    ci = (ROOT / ".ci" / "run").read_text()
    test = _readme_commands()[1]
    # CI runs inside its own venv, where `pip` is `python -m pip`.
    assert test.replace("pip install", "python -m pip install", 1) in ci
    assert "torch==2.13.0" in ci


def test_torch_is_not_a_required_dependency():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    deps = meta["dependencies"] + [d for ds in meta["optional-dependencies"].values() for d in ds]
    assert not any(re.match(r"torch\b", d) for d in deps)
    assert any(re.match(r"plotext\b.*<\s*6", d) for d in meta["dependencies"])


def test_building_the_cli_parser_imports_nothing_heavy():
    # `seqviz --help` and every sub-command's parsing must not pay for numpy/numba/textual.
    import subprocess

    code = (
        "import sys, seqviz.cli as c; c.build_parser(); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'numpy', 'numba', 'scipy', 'textual', 'rich', 'plotext', 'torch'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
