"""Scene protocol: parameter specs, frozen parameter values, and the Scene record.

A scene is one lesson topic the app can show. It is pure Python (no Textual): it declares its
parameters and computes an immutable result from them; the app draws that result with a view.
Everything about a scene lives in its own files; nothing in ui/ or lecture/ names a scene.

Checklist for adding a scene (for example ``training``):

1. ``seqviz/scenes/<name>.py``: a tuple of :class:`ParamSpec`, a ``compute(values)`` function
   returning an immutable result (a frozen dataclass holding read-only arrays, with a ``values``
   field), ``frames(result)`` (frame 0 is "nothing shown yet", the last one "everything shown")
   and a module-level ``SCENE = Scene(...)``. Optional hooks on the record:
   - ``traces(result) -> {part: core Trace}``: what the ``e`` key saves as .npz (without it the
     key says the scene has no trace to export);
   - ``select=SelectHook(parse, apply, what)``: what a lecture script's ``select ARG`` points at;
   - ``stream(values)``: a generator of successive results (live training); the app's worker
     shows each one as it comes and stops iterating when the parameters or the scene change.
2. Its view, ``seqviz/ui/views/<name>.py``: a subclass of ``seqviz.ui.views.base.SceneView``
   with ``compose()``, ``show_result(result)`` and ``show_frame(frame)`` (see that module), named
   in the record as ``view="seqviz.ui.views.<name>:<ClassName>"`` (imported lazily, so the scene
   module never imports Textual).
3. A lecture demo, ``seqviz/demos/<name>.toml`` (format: ``seqviz/lecture/script.py``); check it
   with ``seqviz demo <name> --check``. Its documentation: a line in ``seqviz/demos/README.md``
   (a test checks every demo is listed there), a guide ``docs/scenes/<name>.md`` with a
   screenshot ``docs/img/<name>.svg`` and its line in mkdocs.yml's nav, and a row in
   README.md's scene table (tests/test_docs.py checks all three; ``python tools/reference.py``
   writes the guide's parameter table).
4. A snapshot test, ``tests/test_snapshots_<name>.py`` (``snap_compare`` at 80x24 and 160x50),
   and its SVGs from ``--snapshot-update`` (look at them).
5. One ``(name, title)`` line in ``SCENES`` in ``seqviz/scenes/__init__.py`` (the module's
   ``Scene`` takes ``title=title_of("<name>")``): number keys 1..N follow that order;
   ``--scene``/``--set``, the command palette, the help screen and ``seqviz bench --ui`` pick
   the scene up from there.
``tests/test_scene_contract.py`` fails while a registered scene lacks its demo or snapshot, and
when ui/ or lecture/ branch on a scene name or list scene names by hand.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from seqviz.limits import shorten

KINDS = ("float", "int", "choice", "text")


@dataclass(frozen=True)
class ParamSpec:
    """One adjustable scalar: its name, kind, default and the values it allows."""

    name: str
    label: str
    kind: str
    default: Any
    min: float | None = None
    max: float | None = None
    step: float | None = None
    choices: tuple[str, ...] = ()
    help: str = ""
    max_length: int = 200
    min_length: int = 1
    recompute: bool = True
    """False for view-only values (a cursor): changing them redraws without recomputing."""
    live: bool = True
    """Text only: apply while typing (True) or when Enter is pressed (False, e.g. file paths)."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"parameter kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.kind == "choice" and self.default not in self.choices:
            raise ValueError(f"default {self.default!r} of {self.name} is not among its choices")
        if self.kind in ("float", "int") and (self.min is None or self.max is None):
            raise ValueError(f"numeric parameter {self.name} needs min and max")
        self.validate(self.default)

    def allowed(self) -> str:
        """What values are allowed, as a phrase for error messages and help."""
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "text":
            return f"text of {self.min_length} to {self.max_length} characters"
        kind = "an integer" if self.kind == "int" else "a number"
        return f"{kind} from {self.format(self.min)} to {self.format(self.max)}"

    def format(self, value: Any) -> str:
        """The value as shown in the controls and status line."""
        if self.kind == "float":
            step = self.step or 0.01
            decimals = max(0, min(6, -math.floor(math.log10(step)) if step < 1 else 0))
            return f"{float(value):.{decimals}f}"
        if self.kind == "int":
            return str(int(value))
        return str(value)

    def validate(self, value: Any) -> Any:
        """``value`` converted to this spec's type; ValueError saying what is allowed if not."""
        bad = f"{self.name} must be {self.allowed()}, not {shorten(value)}"
        if self.kind == "choice":
            if value not in self.choices:
                raise ValueError(bad)
            return value
        if self.kind == "text":
            if not isinstance(value, str) or not self.min_length <= len(value) <= self.max_length:
                raise ValueError(bad)
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(bad)
        if not math.isfinite(value):
            raise ValueError(bad)
        if self.kind == "int":
            if float(value) != int(value):
                raise ValueError(bad)
            value = int(value)
        else:
            value = float(value)
        if not math.isfinite(value) or not (self.min <= value <= self.max):  # type: ignore[operator]
            raise ValueError(bad)
        return value

    def parse(self, text: str) -> Any:
        """Parse a typed value ("1.2", "tanh", "the cat") and validate it."""
        text = text.strip() if self.kind != "text" else text
        if self.kind in ("float", "int"):
            try:
                number = float(text)
                if not math.isfinite(number):
                    raise ValueError(text)  # "1e400" overflows to inf: name what was typed
            except ValueError:
                raise ValueError(
                    f"{self.name} must be {self.allowed()}, not {shorten(text)}"
                ) from None
            if self.kind == "int" and number.is_integer():
                return self.validate(int(number))
            return self.validate(number)
        if self.kind == "choice":
            matches = [c for c in self.choices if c.lower() == text.lower()]
            return self.validate(matches[0] if matches else text)
        return self.validate(text)

    def nudge(self, value: Any, direction: int) -> Any:
        """The next value up (+1) or down (-1): one step, clamped; choices cycle."""
        if self.kind == "choice":
            i = self.choices.index(value) if value in self.choices else 0
            return self.choices[(i + direction) % len(self.choices)]
        if self.kind == "text":
            return value
        step = self.step or (1 if self.kind == "int" else 0.1)
        new = value + direction * step
        # Snap to the step grid so repeated nudges never drift (0.1 + 0.2 != 0.3).
        new = round(round(new / step) * step, 10)
        new = min(max(new, self.min), self.max)  # type: ignore[type-var]
        return int(round(new)) if self.kind == "int" else float(new)


def make_values_class(name: str, specs: Sequence[ParamSpec]) -> type:
    """A frozen dataclass with one scalar field per spec, defaulting to the spec's default."""
    fields = [(s.name, type(s.default), field(default=s.default)) for s in specs]
    return dataclasses.make_dataclass(name, fields, frozen=True)


@dataclass(frozen=True)
class SelectHook:
    """How a lecture script's ``select ARG`` points this scene's cursor."""

    parse: Callable[[str], Any]
    """The script's text -> the argument; ValueError saying what is allowed (checked on load)."""
    apply: Callable[[Any, Any], Mapping[str, Any]]
    """(result on screen, argument) -> parameter changes; LookupError if nothing matches."""
    what: str
    """What select takes here, for messages: "a unit", "a node's words"."""


@dataclass(frozen=True)
class Scene:
    """A registered scene: its name, title, parameters, computation and view."""

    name: str
    title: str
    summary: str
    specs: tuple[ParamSpec, ...]
    compute: Callable[[Any], Any]
    """Pure function: values -> immutable result. Runs in a worker thread."""
    frames: Callable[[Any], int]
    """Number of animation frames a result has (the cursor runs 0..frames)."""
    view: str
    """Dotted path "module:Class" of the Textual view that draws this scene's results."""
    inactive: Callable[[Any], Mapping[str, str]] | None = None
    """Optional: values -> {parameter: why it does nothing now} (the panel marks those rows)."""
    traces: Callable[[Any], Mapping[str, Any]] | None = None
    """result -> {part name: core Trace}: the recurrent traces behind it, for the .npz export."""
    select: SelectHook | None = None
    """What a lecture script's ``select`` points at in this scene."""
    stream: Callable[..., Iterator[Any]] | None = None
    """values -> generator of successive results (a live computation); None: ``compute``.
    With ``steered=True`` it is called as ``stream(values, control)``: the app pauses it, runs it
    one step at a time and hands it new view-only values through a ``StreamControl``
    (``seqviz.scenes.stream``); its results then say ``done=True`` on the last one."""
    steered: bool = False
    hidden: Callable[[Any], frozenset[str]] | None = None
    """Optional: values -> parameters that do not exist for them (the panel hides those rows),
    e.g. the random network's knobs while a trained model is shown."""
    info: Callable[[Any], str] | None = None
    """Optional: values -> a line shown under the parameters (e.g. the loaded model's sizes)."""
    speed: float | None = None
    """Optional: frames per second this scene plays at until the user picks a speed (None: the
    app's default), for scenes whose frames each carry a lot to read."""
    opening_frame: Callable[[Any], int | None] | None = None
    """Optional: result -> the frame a new result opens on while the cursor follows the end
    (None: the last frame), e.g. the inside scene's verb, where the model's choice is visible."""
    values_class: type = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = [s.name for s in self.specs]
        if len(set(names)) != len(names):
            raise ValueError(f"scene {self.name} has duplicate parameter names")
        cls = make_values_class(f"{self.name.title().replace('_', '')}Values", self.specs)
        object.__setattr__(self, "values_class", cls)

    def results(self, values: Any, control: Any = None) -> Generator[Any, None, None]:
        """The results to show for ``values``: the stream's, or the one ``compute`` returns.
        A steered stream gets ``control`` (a free-running StreamControl when None)."""
        if self.stream is not None and self.steered:
            from seqviz.scenes.stream import StreamControl

            yield from self.stream(values, StreamControl(values) if control is None else control)
        elif self.stream is not None:
            yield from self.stream(values)
        else:
            yield self.compute(values)

    def export_traces(self, result: Any) -> dict[str, Any]:
        """{part: core Trace} for the result on screen; ValueError if the scene has none."""
        if self.traces is None:
            raise ValueError(f"the {self.name} scene has no trace to export")
        if result is None:
            raise ValueError(f"the {self.name} scene has no result to export yet")
        return dict(self.traces(result))

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.specs)

    def spec(self, name: str) -> ParamSpec:
        """The spec called ``name``; ValueError listing the scene's parameters otherwise."""
        for s in self.specs:
            if s.name == name:
                return s
        raise ValueError(
            f"scene {self.name} has no parameter {shorten(name)}; "
            f"its parameters are {', '.join(self.param_names)}"
        )

    def defaults(self) -> Any:
        return self.values_class()

    def inactive_params(self, values: Any) -> Mapping[str, str]:
        """Parameters that have no effect at ``values``, each with a short reason."""
        return dict(self.inactive(values)) if self.inactive is not None else {}

    def make(self, overrides: Mapping[str, Any] | None = None, base: Any = None) -> Any:
        """Values from ``base`` (or defaults) with validated ``overrides`` applied."""
        values = self.defaults() if base is None else base
        changes = {name: self.spec(name).validate(v) for name, v in (overrides or {}).items()}
        return dataclasses.replace(values, **changes)

    def parse_settings(self, settings: Iterable[str], base: Any = None) -> Any:
        """Apply "name=value" strings (from ``--set``); one-line ValueError on any bad one."""
        changes: dict[str, Any] = {}
        for item in settings:
            name, sep, text = item.partition("=")
            name = name.strip()
            if not sep or not name:
                raise ValueError(
                    f"--set expects NAME=VALUE, not {shorten(item)}; "
                    f"parameters of {self.name}: {', '.join(self.param_names)}"
                )
            changes[name] = self.spec(name).parse(text)
        return self.make(changes, base)

    def describe(self) -> str:
        """One line per parameter: name, allowed values, help (for errors and the help screen)."""
        return "\n".join(f"{s.name:<12} {s.allowed():<34} {s.help}" for s in self.specs)
