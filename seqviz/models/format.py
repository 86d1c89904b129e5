"""The one model file format: an .npz whose `format` array says "seqviz-<kind>-<version>"."""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any

import numpy as np

Loader = Callable[[dict[str, np.ndarray], Path], Any]
_KINDS: dict[str, Loader] = {}
_NOUNS: dict[str, str] = {}


def register_kind(kind: str, loader: Loader, noun: str = "") -> None:
    """Make `load_file` build models of `kind` with `loader(arrays, path)`; `noun` names such a
    file in error messages ("a seqviz language model (...)")."""
    if not kind or "-" in kind:
        raise ValueError(f"a model kind is a word without '-', got {kind!r}.")
    _KINDS[kind] = loader
    _NOUNS[kind] = noun or f"a seqviz {kind} model"


def _import_kinds() -> None:
    """Import the kind modules (each registers itself); kept lazy so listing models is light."""
    from seqviz.models import KIND_MODULES

    for name in KIND_MODULES:
        import_module(name)


def kinds() -> tuple[str, ...]:
    _import_kinds()
    return tuple(_KINDS)


def format_tag(kind: str, version: int = 1) -> str:
    return f"seqviz-{kind}-{version}"


def kind_of(tag: str) -> str | None:
    """The kind in a "seqviz-<kind>-<version>" tag, or None if the tag is not one."""
    parts = tag.split("-")
    if len(parts) != 3 or parts[0] != "seqviz" or not parts[2].isdigit():
        return None
    return parts[1]


def save_model(
    path: str | os.PathLike[str], kind: str, arrays: dict[str, np.ndarray], version: int = 1
) -> Path:
    """Write `arrays` with the kind tag, atomically."""
    from seqviz.core._io import atomic_savez  # the core pulls in Numba: only when saving

    return atomic_savez(path, {**arrays, "format": np.array(format_tag(kind, version))})


def read_arrays(path: str | os.PathLike[str], what: str) -> dict[str, np.ndarray]:
    """All arrays of a model file; any problem is a ValueError of one sentence."""
    from seqviz.files import read_npz, refuse_non_finite  # sizes, dtypes, shapes checked first
    from seqviz.limits import check_vocab, shown

    arrays = refuse_non_finite(read_npz(path, what, "model file"), shown(path))
    for key in VOCAB_ARRAYS:
        if key in arrays:
            check_vocab(arrays[key].size, f"the {key} of {shown(path)}")
    return arrays


VOCAB_ARRAYS = ("vocab", "src_vocab", "tgt_vocab", "tags")  # token lists of the model kinds


def file_kind(arrays: dict[str, np.ndarray]) -> str | None:
    """The kind tag of a file's arrays, or None for an untagged file."""
    tag = arrays.get("format")
    if tag is None or tag.shape != ():
        return None
    return kind_of(str(tag))


def load_file(path: str | os.PathLike[str], kind: str | None = None) -> Any:
    """The model in `path`, built by the loader of the kind its tag names.

    With `kind`, the file must hold that kind (an untagged file is tried as that kind, so
    files from before the tag are still read)."""
    p = Path(path)
    _import_kinds()  # first: each kind registers the noun its unreadable files are named by
    what = _NOUNS.get(kind, f"a seqviz {kind} model") if kind else "a seqviz model file"
    arrays = read_arrays(p, what)
    found = file_kind(arrays)
    if kind is not None and found is not None and found != kind:
        raise ValueError(f"{str(p)!r} holds a {found} model; a {kind} model is needed here.")
    use = found or kind
    if use is None:
        raise ValueError(f"{str(p)!r} has no seqviz format tag; it was not written by seqviz.")
    if use not in _KINDS:
        raise ValueError(
            f"{str(p)!r} holds a {use} model, which this seqviz cannot read; known kinds: "
            f"{', '.join(_KINDS)}."
        )
    return _KINDS[use](arrays, p)
