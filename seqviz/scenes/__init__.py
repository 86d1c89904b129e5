"""Scene registry: name -> Scene, in the order of the number keys 1..N.

To add a scene, append its name and title to ``SCENES`` (its module is ``seqviz.scenes.<name>``;
see ``seqviz.scenes.base`` for the rest). The titles live here only: the scene bar shows them
without importing any scene module, and a module's ``Scene`` takes its title from
``title_of``. Scene modules are imported on first use so ``import seqviz.scenes`` stays cheap.
"""

from __future__ import annotations

import importlib

from seqviz.scenes.base import ParamSpec, Scene

__all__ = [
    "SCENES", "SCENE_MODULES", "ParamSpec", "Scene", "get_scene", "scene_names", "scene_titles",
    "scenes", "title_of",
]  # fmt: skip

SCENES: tuple[tuple[str, str], ...] = (  # (name, title); the module is seqviz.scenes.<name>
    ("vanishing", "Vanishing gradients"),
    ("memory", "Memory"),
    ("gates", "Gates"),
    ("gradflow", "Gradient flow"),
    ("decoding", "Decoding tree"),
    ("tagging", "Tagging"),
    ("dynamics", "Dynamics"),
    ("inside", "Inside"),
    ("training", "Training"),
    ("seq2seq", "Sequence to sequence"),
)
SCENE_MODULES: tuple[str, ...] = tuple(f"seqviz.scenes.{name}" for name, _ in SCENES)

_cache: dict[str, Scene] = {}


def title_of(name: str) -> str:
    """The registered title of scene ``name`` (what its module's ``Scene`` is given)."""
    return dict(SCENES)[name]


def scene_names() -> tuple[str, ...]:
    """The registered names, ordered as the number keys 1..N (imports no scene module)."""
    return tuple(name for name, _ in SCENES)


def scene_titles() -> dict[str, str]:
    """{name: title} in number-key order, without importing any scene module."""
    return dict(SCENES)


def _load(name: str) -> Scene:
    if name not in _cache:
        _cache[name] = importlib.import_module(f"seqviz.scenes.{name}").SCENE
    return _cache[name]


def scenes() -> dict[str, Scene]:
    """All registered scenes, ordered as the number keys 1..N (imports every scene module)."""
    return {name: _load(name) for name in scene_names()}


def get_scene(name: str) -> Scene:
    """The scene called ``name`` (a name or its number key); ValueError listing them otherwise.
    Imports only that scene's module."""
    names = scene_names()
    if name.isdigit() and 1 <= int(name) <= len(names):
        return _load(names[int(name) - 1])
    if name in names:
        return _load(name)
    from seqviz.limits import shorten

    raise ValueError(f"unknown scene {shorten(name)}; scenes are {', '.join(names)}")
