"""Demo scripts: the TOML format, its loader, and validation with file:line error messages.

A demo is a title, a one-line description and a list of steps::

    title = "Vanishing and exploding gradients"
    description = "Spectral radius 0.8, 1.0, 1.2: the gradient k steps back"

    [[step]]
    scene = "vanishing"                  # required on the first step; later steps inherit it
    set = { rho = 0.8, draw = 1 }        # parameter values, validated against the scene
    actions = ["home", "play"]           # run in order once the step's result is on screen
    caption = "Your own words, shown on screen while this step is up."
    expect = ["59 3.5e-13"]              # optional: text the screen must show (tests, --check)

    [[step.claim]]                       # optional, repeatable: a published result it checks
    says = "8 stable fixed points"       # the verdict (✓/✗) is computed, see lecture/claims.py
    measure = "stable fixed points"
    published = 8
    tolerance = 0                        # compare = "within" (default), "at least", "at most"
    source = "Sussillo & Barak 2013"

    [step.question]                      # optional: asked first, answered on the next key
    ask = "How many stable points?"
    choices = ["2", "8", "9"]
    answer = "8"

Values accumulate per scene from the scene's defaults, so a step only names what it changes;
every step still has one full, fixed set of values, so going back re-creates it exactly.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MAX_CAPTION = 220  # three banner lines at 80 columns
TOP_KEYS = ("title", "description", "step")
STEP_KEYS = ("scene", "set", "actions", "caption", "expect", "claim", "question")
SPEED_RANGE = (1.0, 60.0)


class DemoError(ValueError):
    """A malformed demo; the message is one sentence starting with ``file:line:``."""


@dataclass(frozen=True)
class Action:
    """One thing to do once a step is on screen, e.g. ``play`` or ``step 5``."""

    name: str
    arg: Any = None

    def __str__(self) -> str:
        return self.name if self.arg is None else f"{self.name} {self.arg}"


def _no_arg(name: str, text: str, scene: Any) -> Any:
    if text:
        raise ValueError(f"{name} takes no argument")
    return None


def _int_arg(low: int | None) -> Callable[[str, str, Any], int]:
    def parse(name: str, text: str, scene: Any) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{name} needs a whole number, as in '{name} 5'") from None
        if low is not None and value < low:
            raise ValueError(f"{name} needs a number of at least {low}")
        return value

    return parse


def _speed_arg(name: str, text: str, scene: Any) -> float:
    low, high = SPEED_RANGE
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not low <= value <= high:
        raise ValueError(f"speed needs frames per second from {low:g} to {high:g}")
    return value


def _param_arg(name: str, text: str, scene: Any) -> str:
    if text not in scene.param_names:
        raise ValueError(
            f"{name} needs a parameter of {scene.name}: {', '.join(scene.param_names)}"
        )
    return text


def _select_arg(name: str, text: str, scene: Any) -> Any:
    if scene.select is not None:
        return scene.select.parse(text)
    from seqviz.scenes import scenes

    where = " and ".join(
        f"the {s.name} scene ({s.select.what})" for s in scenes().values() if s.select
    )
    raise ValueError(f"select works in {where}, not in {scene.name}")


# name -> (argument parser, how it is written); the runner maps each name to an app method.
ACTIONS: dict[str, tuple[Callable[[str, str, Any], Any], str]] = {
    "play": (_no_arg, "play"),
    "pause": (_no_arg, "pause"),
    "home": (_no_arg, "home"),
    "end": (_no_arg, "end"),
    "step": (_int_arg(None), "step N"),
    "seek": (_int_arg(0), "seek N"),
    "speed": (_speed_arg, "speed N"),
    "focus": (_param_arg, "focus PARAM"),
    "select": (_select_arg, "select UNIT|WORDS"),
}
ALLOWED_ACTIONS = ", ".join(form for _, form in ACTIONS.values())


@dataclass(frozen=True)
class Step:
    """One slide: the scene, its full parameter values, the actions and the caption."""

    number: int  # 1-based
    line: int  # where the step starts in the file
    scene: str
    values: Mapping[str, Any]  # every parameter of the scene, validated
    changes: Mapping[str, Any]  # what this step itself set
    actions: tuple[Action, ...]
    caption: str
    expect: tuple[str, ...]
    claims: tuple[Any, ...] = ()  # lecture.claims.Claim
    question: Any = None  # lecture.claims.Question


@dataclass(frozen=True)
class Demo:
    name: str
    path: str
    title: str
    description: str
    steps: tuple[Step, ...]

    def __len__(self) -> int:
        return len(self.steps)


# --- finding the line of an offending key ---------------------------------------------------------
_HEADER = re.compile(r"^\s*\[")
_STEP_HEADER = re.compile(r"^\s*\[\[\s*step\s*\]\]")


def _step_regions(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) 0-based line indexes of each [[step]] table, in order."""
    starts = [i for i, line in enumerate(lines) if _STEP_HEADER.match(line)]
    regions = []
    for s in starts:
        end = next((j for j in range(s + 1, len(lines)) if _HEADER.match(lines[j])
                    and not re.match(r"^\s*\[\[?\s*step\.", lines[j])), len(lines))  # fmt: skip
        regions.append((s, end - 1))
    return regions


def _locate(source: str, step: int | None, *needles: str) -> int:
    """1-based line of the first needle found inside step ``step`` (0-based) or the top level."""
    lines = source.splitlines()
    regions = _step_regions(lines)
    if step is None:
        first = regions[0][0] if regions else len(lines)
        region = (0, first - 1)
    elif step < len(regions):
        region = regions[step]
    else:
        region = (0, len(lines) - 1)
    for needle in needles:
        pattern = re.compile(needle)
        for i in range(region[0], region[1] + 1):
            if pattern.search(lines[i].split("#", 1)[0] if "#" not in needle else lines[i]):
                return i + 1
    return region[0] + 1


def _key(name: str) -> str:
    return rf"(^|[{{,\s.]){re.escape(name)}\s*="


def _literal(text: str) -> str:
    return rf"[\"']{re.escape(text)}[\"']"


# --- parsing --------------------------------------------------------------------------------------
def parse_demo(source: str, path: str = "<demo>", name: str | None = None) -> Demo:
    """Validate a demo's TOML text and return it; DemoError ("file:line: ...") if malformed."""
    from seqviz.scenes import get_scene, scene_names

    def fail(line: int, message: str) -> DemoError:
        return DemoError(f"{path}:{line}: {message}")

    try:
        data = tomllib.loads(source)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        line = int(match.group(1)) if match else 1
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        message = f"not valid TOML ({reason}); see the format in seqviz/lecture/script.py"
        raise fail(line, message) from None
    except RecursionError:
        raise fail(1, "nested too deeply to be a demo (tables and lists go two levels)") from None

    for key in data:
        if key not in TOP_KEYS:
            line = _locate(source, None, _key(key), re.escape(key))
            raise fail(line, f"unknown key {key!r}; a demo has {', '.join(TOP_KEYS)}")
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        raise fail(_locate(source, None, _key("title")), 'a demo needs title = "..." (text)')
    description = data.get("description", "")
    if not isinstance(description, str) or "\n" in description.strip():
        line = _locate(source, None, _key("description"))
        raise fail(line, "description must be one line of text")
    raw_steps = data.get("step")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise fail(1, "a demo needs at least one [[step]] table with scene, caption and actions")

    lines = source.splitlines()
    regions = _step_regions(lines)
    values: dict[str, dict[str, Any]] = {}
    steps: list[Step] = []
    scene_name: str | None = None
    for i, raw in enumerate(raw_steps):
        number = i + 1
        start = regions[i][0] + 1 if i < len(regions) else 1

        def at(*needles: str, _i: int = i) -> int:
            return _locate(source, _i, *needles)

        if not isinstance(raw, dict):
            raise fail(start, f"step {number} must be a table ([[step]])")
        for key in raw:
            if key not in STEP_KEYS:
                raise fail(at(_key(key)),
                           f"step {number} has unknown key {key!r}; a step has "
                           f"{', '.join(STEP_KEYS)}")  # fmt: skip
        if "scene" in raw:
            if not isinstance(raw["scene"], str):
                raise fail(at(_key("scene")), f"step {number}: scene must be text")
            try:
                scene = get_scene(raw["scene"])
            except ValueError:
                raise fail(at(_key("scene")),
                           f"step {number} names unknown scene {raw['scene']!r}; scenes are "
                           f"{', '.join(scene_names())}") from None  # fmt: skip
            scene_name = scene.name
        elif scene_name is None:
            raise fail(start, f"step {number} needs scene = one of {', '.join(scene_names())}")
        scene = get_scene(scene_name)

        changes = raw.get("set", {})
        if not isinstance(changes, dict):
            raise fail(at(_key("set")), f"step {number}: set must be a table like {{ rho = 1.2 }}")
        current = values.setdefault(scene.name, asdict(scene.defaults()))
        for param, value in changes.items():
            line = at(_key(param), _key("set"))
            if param not in scene.param_names:
                raise fail(line, f"step {number}: scene {scene.name} has no parameter {param!r}; "
                                 f"its parameters are {', '.join(scene.param_names)}")  # fmt: skip
            spec = scene.spec(param)
            try:
                current[param] = spec.validate(value)
            except ValueError:
                raise fail(line, f"step {number}: {param} must be {spec.allowed()}, "
                                 f"not {value!r}") from None  # fmt: skip

        raw_actions = raw.get("actions", [])
        if isinstance(raw_actions, str):
            raw_actions = [raw_actions]
        if not isinstance(raw_actions, list):
            raise fail(
                at(_key("actions")), f'step {number}: actions must be a list like ["home", "play"]'
            )
        actions = []
        for item in raw_actions:
            if not isinstance(item, str) or not item.strip():
                raise fail(
                    at(_key("actions")),
                    f"step {number}: each action is text; actions are {ALLOWED_ACTIONS}",
                )
            verb, _, arg = item.strip().partition(" ")
            line = at(_literal(item), _key("actions"))
            if verb not in ACTIONS:
                raise fail(line, f"step {number} has unknown action {item!r}; "
                                 f"actions are {ALLOWED_ACTIONS}")  # fmt: skip
            try:
                actions.append(Action(verb, ACTIONS[verb][0](verb, arg.strip(), scene)))
            except ValueError as exc:
                raise fail(line, f"step {number}: action {item!r}: {exc}") from None

        caption = raw.get("caption")
        if not isinstance(caption, str) or not caption.strip():
            raise fail(at(_key("caption")), f'step {number} needs caption = "..." (text)')
        caption = " ".join(caption.split())
        if len(caption) > MAX_CAPTION:
            raise fail(at(_key("caption")),
                       f"step {number}: the caption has {len(caption)} characters; at most "
                       f"{MAX_CAPTION} fit on screen")  # fmt: skip

        expect = raw.get("expect", [])
        if isinstance(expect, str):
            expect = [expect]
        if not isinstance(expect, list) or not all(isinstance(e, str) and e for e in expect):
            raise fail(at(_key("expect")), f"step {number}: expect must be a list of texts")

        claims, question = _checks(raw, scene.name, number, at, fail)
        steps.append(Step(number=number, line=start, scene=scene.name, values=dict(current),
                          changes=dict(changes), actions=tuple(actions), caption=caption,
                          expect=tuple(expect), claims=claims, question=question))  # fmt: skip
    return Demo(name=name or Path(path).stem, path=path, title=title.strip(),
                description=description.strip(), steps=tuple(steps))  # fmt: skip


def _checks(raw: dict[str, Any], scene: str, number: int, at: Callable[..., int],
            fail: Callable[[int, str], DemoError]) -> tuple[tuple[Any, ...], Any]:  # fmt: skip
    """A step's claims and question (lecture.claims), validated; DemoError at their line."""
    from seqviz.lecture.claims import parse_claim, parse_question

    raw_claims = raw.get("claim", [])
    raw_claims = [raw_claims] if isinstance(raw_claims, dict) else raw_claims
    if not isinstance(raw_claims, list):
        raise fail(at(_key("claim"), r"\[\[?\s*step\.claim"),
                   f"step {number}: claim must be a table ([[step.claim]])")  # fmt: skip
    claims = []
    for j, item in enumerate(raw_claims):
        try:
            claims.append(parse_claim(item, scene, f"step {number}: claim {j + 1}"))
        except ValueError as exc:
            line = at(r"\[\[?\s*step\.claim", _key("claim"))
            raise fail(line, str(exc)) from None
    question = None
    if "question" in raw:
        try:
            question = parse_question(raw["question"], f"step {number}: question")
        except ValueError as exc:
            raise fail(at(r"\[\s*step\.question", _key("question")), str(exc)) from None
    return tuple(claims), question


def load_demo(path: str | Path) -> Demo:
    """Read and validate a demo file."""
    from seqviz.limits import read_text

    path = Path(path)
    if not path.exists():
        raise DemoError(f"{path}: no such demo file")
    try:
        source = read_text(path, "demo file", "toml")
    except ValueError as exc:
        raise DemoError(str(exc).rstrip(".")) from None
    return parse_demo(source, str(path))


# --- the demos shipped with the package -----------------------------------------------------------
def _shipped() -> dict[str, Any]:
    """Shipped demos: the scenes' own in the order of the number keys, then any other file
    alphabetically."""
    from seqviz.scenes import scene_names

    folder = resources.files("seqviz") / "demos"
    found = {e.name[: -len(".toml")]: e for e in folder.iterdir() if e.name.endswith(".toml")}
    rank = {name: i for i, name in enumerate(scene_names())}
    return {n: found[n] for n in sorted(found, key=lambda n: (rank.get(n, len(rank)), n))}


def demo_names() -> tuple[str, ...]:
    """Names of the shipped demos, in the order of the lesson."""
    return tuple(_shipped())


def find_demo(name_or_path: str) -> Demo:
    """A shipped demo by name, or a demo file by path; DemoError listing the names otherwise."""
    shipped = _shipped()
    if name_or_path in shipped:
        entry = shipped[name_or_path]
        return parse_demo(entry.read_text(encoding="utf-8"), str(entry), name_or_path)
    from seqviz.limits import shorten

    path = Path(name_or_path)
    try:
        exists = path.exists()
    except OSError:  # a name too long for the file system is no file
        exists = False
    if path.suffix == ".toml" or exists:
        return load_demo(path)
    raise DemoError(
        f"{shorten(name_or_path)}: no shipped demo or file by that name; shipped demos are "
        f"{', '.join(shipped)} (or give a path to a .toml file)"
    )
