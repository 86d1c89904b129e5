"""The house drawn from the code: no import circle between seqviz's packages, layers point down."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parent.parent / "seqviz"
# lower layers first; a package may import only packages of its own layer or below
LAYERS = (
    {"limits", "lazy"},
    {"files"},
    {"core"},
    {"decoding", "experiments", "tasks", "dynamics"},
    # the trainer itself is model-agnostic, but training/ also holds races of model kinds (the
    # training scene's): one layer, kept apart from circles by the test above
    {"models", "training"},
    {"inside"},  # the agreement study of the trained LMs (the inside scene's numbers)
    {"scenes"},
    {"ui"},
    {"lecture"},
    {"bench"},  # `seqviz bench` only: times the kernels, decoding and the app (see below)
    {"commands"},
    {"cli"},  # the entry point lists and dispatches the commands; no command imports it
    {"__main__", "__init__"},
)


def _unit(module: str) -> str | None:
    """The package (or top-level module) of seqviz that a dotted module name belongs to.

    cli.py is a unit of its own, above the commands it dispatches: a command that imports
    seqviz.cli closes a circle and points up, and both tests below see it."""
    parts = module.split(".")
    if parts[0] != "seqviz":
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path) -> list[str]:
    """Every module ``path`` imports (also inside functions; ``from seqviz import x`` as
    ``seqviz.x``)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "seqviz":  # from seqviz import models
                names += [f"seqviz.{a.name}" for a in node.names]
            else:
                names.append(node.module)
    return names


def import_graph() -> dict[str, set[str]]:
    """unit -> units it imports (every import statement, also those inside functions)."""
    graph: dict[str, set[str]] = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        me = _unit(".".join(rel.parts))
        assert me is not None
        deps = graph.setdefault(me, set())
        for name in _imports(path):
            unit = _unit(name)
            if unit is not None and unit != me:
                deps.add(unit)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                found.append([*path[path.index(nxt) :], nxt])
            elif len(path) < len(graph):
                visit(nxt, [*path, nxt])

    for start in sorted(graph):
        visit(start, [start])
    return found


def test_no_import_circle_between_packages():
    graph = import_graph()
    assert {"core", "models", "training", "scenes", "ui", "lecture", "commands", "cli"} <= set(
        graph
    )
    assert cycles(graph) == []


def test_every_import_points_down_the_layers():
    rank = {u: i for i, layer in enumerate(LAYERS) for u in layer}
    graph = import_graph()
    unplaced = set(graph) - set(rank)
    assert not unplaced, f"place {sorted(unplaced)} in LAYERS (a new package needs its layer)"
    upward = [
        (a, b) for a, deps in graph.items() for b in deps
        if a in rank and b in rank and rank[b] > rank[a]
    ]  # fmt: skip
    assert upward == []


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b", "a"], ["b", "a", "b"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_a_command_importing_the_cli_is_a_circle():
    """The entry point is its own unit: seqviz.commands.X importing seqviz.cli is seen."""
    graph = import_graph()
    assert "commands" in graph["cli"]
    graph["commands"] = graph["commands"] | {"cli"}
    assert ["cli", "commands", "cli"] in cycles(graph)


def test_only_the_bench_command_imports_the_benchmarks():
    """The benchmark code ships in seqviz.bench, which nothing at run time imports: only
    `seqviz bench` (seqviz/commands/bench.py) does."""
    allowed = {ROOT / "commands" / "bench.py"}
    found = []
    for path in ROOT.rglob("*.py"):
        if (ROOT / "bench") in path.parents:
            continue
        if any(n == "seqviz.bench" or n.startswith("seqviz.bench.") for n in _imports(path)):
            found.append(path)
    assert found == sorted(allowed), "seqviz.bench is imported by " + ", ".join(map(str, found))
