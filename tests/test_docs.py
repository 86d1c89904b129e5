"""The README is a front door and docs/ the manual: both stay true to the code.

The README is short and lists every scene (with its key) and every demo; each scene has a guide
with a screenshot of that scene; every page is in mkdocs' nav; the generated parts (command
reference, scene tables) equal what tools/reference.py writes from the code; and every command
line the documentation shows parses with seqviz's own parser.
"""

from __future__ import annotations

import html
import importlib.util
import re
import shlex
from pathlib import Path

import pytest

from seqviz.cli import build_parser
from seqviz.commands import UsageError
from seqviz.scenes import scene_names, scene_titles

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def _reference():
    spec = importlib.util.spec_from_file_location("reference", ROOT / "tools" / "reference.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _table_rows(text: str, heading: str) -> list[list[str]]:
    """The cells of each body row of the first table under ``## heading``."""
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[c.strip() for c in row.strip("|").split("|")] for row in rows[2:]]


def test_the_readme_is_at_most_300_lines():
    assert len(README.read_text().splitlines()) <= 300


def test_the_readme_lists_every_scene_with_its_key_in_order():
    rows = _table_rows(README.read_text(), "Scenes")
    names = scene_names()
    assert len(rows) == len(names) == 10
    for i, (row, name) in enumerate(zip(rows, names, strict=True), 1):
        assert row[0] == str(i)
        assert row[1] == f"[`{name}`](docs/scenes/{name}.md)"
        assert row[2]  # what it shows


def test_the_readme_lists_every_shipped_demo():
    from seqviz.lecture import demo_names

    rows = _table_rows(README.read_text(), "Demos")
    assert [r[0] for r in rows] == [f"`{n}`" for n in demo_names()]


def test_readme_links_point_at_existing_files():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text()):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


@pytest.mark.parametrize("name", scene_names())
def test_every_scene_has_a_guide_with_its_own_screenshot(name):
    page = DOCS / "scenes" / f"{name}.md"
    assert page.exists(), f"docs/scenes/{name}.md: every scene has a guide"
    assert f"](../img/{name}.svg)" in page.read_text()
    svg = (DOCS / "img" / f"{name}.svg").read_text()
    # the window title of `seqviz screenshot` names the scene shown
    title = html.unescape(re.search(r'-title"[^>]*>([^<]*)<', svg).group(1)).replace("\xa0", " ")
    assert title == f"seqviz · {scene_titles()[name]}"


def _nav_pages() -> list[str]:
    return re.findall(r"^\s*-\s*(?:[^:\n]+:\s*)?([\w/.-]+\.md)\s*$",
                      (ROOT / "mkdocs.yml").read_text(), re.M)  # fmt: skip


def test_every_docs_page_is_in_the_nav_and_every_nav_entry_exists():
    nav = _nav_pages()
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(nav) == pages
    assert len(nav) == len(set(nav))


def test_the_generated_reference_is_current():
    stale = [
        str(page.relative_to(ROOT))
        for page, text in _reference().pages().items()
        if not page.exists() or page.read_text() != text
    ]
    assert stale == [], "out of date (run python tools/reference.py): " + ", ".join(stale)


def _parsers():
    def walk(parser):
        yield parser
        for action in parser._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                for sub in action.choices.values():
                    yield from walk(sub)

    return list(walk(build_parser()))


def test_every_commands_help_prints():
    parsers = _parsers()
    assert len(parsers) > 20
    for parser in parsers:
        assert parser.format_help().startswith("usage: seqviz")


def _documented_commands() -> list[str]:
    files = [README, *sorted(DOCS.rglob("*.md"))]
    found = []
    for path in files:
        for block in re.findall(r"```bash\n(.*?)```", path.read_text(), re.S):
            for line in block.replace("\\\n", " ").splitlines():
                line = line.split(" #")[0].strip()
                if line.startswith("seqviz"):
                    found.append(line)
    return found


def test_every_documented_command_line_parses():
    commands = _documented_commands()
    assert len(commands) > 40
    parser = build_parser()
    bad = []
    for line in commands:
        argv = shlex.split(re.sub(r"\[([^\]]*)\]", r"\1", line))[1:]  # [--json]: optional
        try:
            parser.parse_args(argv)
        except (UsageError, SystemExit) as exc:
            bad.append(f"{line}: {exc}")
    assert bad == []
