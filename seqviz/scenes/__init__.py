"""Scene registry: name -> Scene, in the order of the number keys 1..N.

To add a scene, append its module to ``SCENE_MODULES`` (see ``seqviz.scenes.base`` for the rest).
Scene modules are imported on first use so ``import seqviz.scenes`` stays cheap.
"""

from __future__ import annotations

import importlib

from seqviz.scenes.base import ParamSpec, Scene

__all__ = ["SCENE_MODULES", "ParamSpec", "Scene", "get_scene", "scene_names", "scenes"]

SCENE_MODULES: tuple[str, ...] = (
    "seqviz.scenes.vanishing",
    "seqviz.scenes.memory",
    "seqviz.scenes.gates",
    "seqviz.scenes.gradflow",
    "seqviz.scenes.decoding",
    "seqviz.scenes.tagging",
    "seqviz.scenes.dynamics",
    "seqviz.scenes.inside",
    "seqviz.scenes.training",
    "seqviz.scenes.seq2seq",
)

_cache: dict[str, Scene] = {}


def scenes() -> dict[str, Scene]:
    """All registered scenes, ordered as the number keys 1..N."""
    if not _cache:
        for module in SCENE_MODULES:
            scene = importlib.import_module(module).SCENE
            _cache[scene.name] = scene
    return dict(_cache)


def scene_names() -> tuple[str, ...]:
    return tuple(scenes())


def get_scene(name: str) -> Scene:
    """The scene called ``name`` (a name or its number key); ValueError listing them otherwise."""
    table = scenes()
    names = list(table)
    if name.isdigit() and 1 <= int(name) <= len(names):
        return table[names[int(name) - 1]]
    if name in table:
        return table[name]
    from seqviz.limits import shorten

    raise ValueError(f"unknown scene {shorten(name)}; scenes are {', '.join(names)}")
