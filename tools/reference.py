"""Write the generated parts of the documentation from the code itself.

- docs/commands.md, the command reference, from seqviz's argparse parser;
- the parameter table of each scene's guide (docs/scenes/NAME.md, between the
  ``<!-- parameters: NAME -->`` markers) from the scene's ParamSpecs;
- the scene table of docs/scenes/index.md (between ``<!-- scene table -->`` markers) from the
  scene registry.

    python tools/reference.py          # rewrite them
    python tools/reference.py --check  # exit 1 if any is out of date

tests/test_docs.py fails while a page differs from what this writes, so a new option, command,
scene or parameter reaches the documentation by running this script. The command page is
built from the parser's actions (not from ``format_help``), so it reads the same on every
Python version.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "commands.md"
SCENE_DOCS = ROOT / "docs" / "scenes"

HEADER = """# Command reference

Every command of `seqviz`, with every option, its value, default and meaning. This page is
generated from the parser by `python tools/reference.py`; `tests/test_docs.py` fails
while it is out of date. `seqviz COMMAND --help` prints the same in the terminal.

A bad value ends in one sentence naming the option and what it allows, never a traceback, and
every size has a maximum (see [Limits](limits.md)).
"""


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _help(action: argparse.Action, prog: str) -> str:
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    params = dict(vars(action), prog=prog)
    if action.choices is not None:
        params["choices"] = ", ".join(map(str, action.choices))
    return _cell(action.help % params)


def _value(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        return " \\| ".join(f"`{c}`" for c in action.choices)
    metavar = action.metavar or (action.dest.upper() if action.option_strings else action.dest)
    if isinstance(metavar, tuple):
        metavar = " ".join(metavar)
    more = {"*": " ...", "+": " [...]", "?": " (optional)"}.get(str(action.nargs), "")
    return f"`{metavar}`{more}"


def _default(action: argparse.Action) -> str:
    d = action.default
    if d is None or d is False or d == [] or d == argparse.SUPPRESS or action.nargs == 0:
        return ""
    if isinstance(d, (list, tuple)):
        d = " ".join(map(str, d))
    return f"`{d}`"


def _options(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        name = ", ".join(f"`{s}`" for s in action.option_strings) or f"`{action.dest}`"
        rows.append(f"| {name} | {_value(action)} | {_default(action)} | "
                    f"{_help(action, parser.prog)} |")  # fmt: skip
    if not rows:
        return []
    return ["| option | value | default | meaning |", "|---|---|---|---|", *rows, ""]


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of each sub-command, in the order `--help` lists them."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            return [(name, helps.get(name, ""), p) for name, p in action.choices.items()]
    return []


def _section(parser: argparse.ArgumentParser, level: int, summary: str) -> list[str]:
    lines = [f"{'#' * level} `{parser.prog}`", ""]
    if summary:
        text = _cell(summary.replace("%%", "%"))
        lines += [text[0].upper() + text[1:] + ("" if text[-1] in ".?!" else "."), ""]
    if parser.description and _cell(parser.description) != _cell(summary):
        lines += [_cell(parser.description), ""]
    lines += _options(parser)
    subs = _subcommands(parser)
    if subs:  # nested commands (seqviz run NAME): a list, then a section each
        lines += ["| command | what it does |", "|---|---|"]
        lines += [f"| `{p.prog}` | {_cell(h.replace('%%', '%'))} |" for _, h, p in subs]
        lines += [""]
    for _, sub_help, sub in subs:
        lines += _section(sub, min(level + 1, 4), sub_help)
    return lines


def render() -> str:
    """The whole page, from the current parser."""
    sys.path.insert(0, str(ROOT))
    from seqviz.cli import build_parser

    parser = build_parser()
    lines = [HEADER, "## `seqviz` (the app)", ""]
    lines += [_cell(parser.description or ""), ""]
    lines += _options(parser)
    subs = _subcommands(parser)
    lines += ["| command | what it does |", "|---|---|"]
    lines += [f"| [`{p.prog}`](#{p.prog.replace(' ', '-')}) | {_cell(h)} |" for _, h, p in subs]
    lines += [""]
    for _, sub_help, sub in subs:
        lines += _section(sub, 2, sub_help)
    return "\n".join(lines).rstrip() + "\n"


def _scene_params(name: str) -> str:
    from seqviz.scenes import get_scene

    scene = get_scene(name)
    rows = ["| parameter | allowed | default | meaning |", "|---|---|---|---|"]
    for spec in scene.specs:
        default = f"`{spec.default}`" if spec.default not in ("", None) else ""
        rows.append(f"| `{spec.name}` | {_cell(spec.allowed())} | {_cell(default)} | "
                    f"{_cell(spec.help)} |")  # fmt: skip
    return "\n".join(rows)


def _scene_table() -> str:
    from seqviz.scenes import get_scene, scene_names

    rows = ["| key | scene | title | what it shows |", "|---|---|---|---|"]
    for i, name in enumerate(scene_names(), 1):
        scene = get_scene(name)
        key = str(i % 10) if i <= 10 else ""
        summary = scene.summary.split(". Keys")[0].rstrip(".") + "."
        rows.append(
            f"| `{key}` | [`{name}`]({name}.md) | {_cell(scene.title)} | {_cell(summary)} |"
        )
    return "\n".join(rows)


def _fill(text: str, marker: str, body: str) -> str:
    """``text`` with the part between ``<!-- marker -->`` and ``<!-- /...-->`` set to body."""
    start = f"<!-- {marker} -->"
    end = f"<!-- /{marker.split(':')[0]} -->"
    pattern = re.compile(re.escape(start) + r"\n.*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"no {start} ... {end} markers")
    return pattern.sub(lambda _: f"{start}\n{body}\n{end}", text, count=1)


def pages() -> dict[Path, str]:
    """{page: its text with every generated part current}."""
    sys.path.insert(0, str(ROOT))
    from seqviz.scenes import scene_names

    out = {PAGE: render()}
    index = SCENE_DOCS / "index.md"
    out[index] = _fill(index.read_text(), "scene table", _scene_table())
    for name in scene_names():
        page = SCENE_DOCS / f"{name}.md"
        if not page.exists():
            raise SystemExit(f"{page} is missing: every scene has a guide (see its siblings)")
        out[page] = _fill(page.read_text(), f"parameters: {name}", _scene_params(name))
    return out


def main(argv: list[str] | None = None) -> int:
    check = "--check" in (sys.argv[1:] if argv is None else argv)
    stale = []
    for page, text in pages().items():
        current = page.read_text() if page.exists() else ""
        if current == text:
            continue
        stale.append(page)
        if not check:
            page.write_text(text)
            print(f"wrote {page.relative_to(ROOT)}")
    if check and stale:
        names = ", ".join(str(p.relative_to(ROOT)) for p in stale)
        print(f"out of date: {names}; run python tools/reference.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
