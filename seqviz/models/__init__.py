"""Model kinds, their one file format, and the registry of shipped models.

Every scene and command lists shipped models with `entries(kind)` and loads by name or path with
`load(name_or_path)`; the file's kind tag picks the loader. Adding a kind is its module (which
calls `register_kind`) plus one line in KIND_MODULES; adding a shipped model is one `register`
line in seqviz/models/shipped.py. Importing this package is light (NumPy only): the kind modules,
which pull in the Numba core, are imported on the first load.
"""

from __future__ import annotations

# modules that register a model kind when imported (imported by the first load)
KIND_MODULES = (
    "seqviz.models.lm",
    "seqviz.models.tagger",
    "seqviz.models.flipflop",
    "seqviz.models.lagged",
    "seqviz.models.seq2seq",
)

from seqviz.models import shipped  # noqa: E402, F401  (registers the shipped models)
from seqviz.models.format import load_file, register_kind, save_model  # noqa: E402
from seqviz.models.registry import (  # noqa: E402
    DATA_DIR,
    ModelEntry,
    entries,
    get,
    load,
    load_params,
    register,
    resolve,
    user_entries,
)

__all__ = [
    "DATA_DIR",
    "KIND_MODULES",
    "ModelEntry",
    "entries",
    "get",
    "load",
    "load_file",
    "load_params",
    "register",
    "register_kind",
    "resolve",
    "save_model",
    "user_entries",
]
