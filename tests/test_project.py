"""Project hygiene: the README's commands, CI and pyproject agree with each other."""

from __future__ import annotations

import ast
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


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_version_is_written_once_in_the_package():
    data = _pyproject()
    assert "version" not in data["project"] and "version" in data["project"]["dynamic"]
    assert data["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "seqviz.__version__"}
    import seqviz

    assert re.fullmatch(r"\d+\.\d+\.\d+", seqviz.__version__)


def test_textual_serve_is_the_serve_extra_not_a_requirement():
    meta = _pyproject()["project"]
    assert not any(re.match(r"textual-serve\b", d) for d in meta["dependencies"])
    assert any(re.match(r"textual-serve\b", d) for d in meta["optional-dependencies"]["serve"])


def test_libraries_whose_private_parts_are_used_have_an_upper_bound():
    deps = {re.match(r"[\w-]+", d).group(0): d for d in _pyproject()["project"]["dependencies"]}
    for name in ("textual", "rich", "numba", "plotext"):
        assert "<" in deps[name], f"{name} needs an upper bound: {deps[name]}"


def _jitted_functions() -> list[tuple[Path, ast.FunctionDef]]:
    found = []
    for path in (ROOT / "seqviz").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef):
                for dec in node.decorator_list:
                    target = dec.func if isinstance(dec, ast.Call) else dec
                    if ast.unparse(target).split(".")[-1] in {"njit", "jit", "vectorize"}:
                        found.append((path, node))
    return found


def test_a_jitted_kernel_that_needs_scipy_has_it_at_run_time():
    """Numba implements np.dot, @ and np.linalg through SciPy's BLAS/LAPACK bindings: a kernel
    using them fails on a plain install unless SciPy is a run-time dependency, not a test one."""
    kernels = _jitted_functions()
    assert len(kernels) > 10  # the finder sees the kernels
    needs_scipy = []
    for path, fn in kernels:
        for node in ast.walk(fn):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                needs_scipy.append(f"{path.name}:{fn.name} uses @")
            if isinstance(node, ast.Attribute) and ast.unparse(node) in {
                "np.dot", "np.vdot", "np.matmul", "np.linalg", "numpy.dot", "numpy.linalg",
            }:  # fmt: skip
                needs_scipy.append(f"{path.name}:{fn.name} uses {ast.unparse(node)}")
    meta = _pyproject()["project"]
    if not any(re.match(r"scipy\b", d) for d in meta["dependencies"]):
        assert needs_scipy == []
