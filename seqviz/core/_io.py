"""Atomic .npz writing: a temp file in the target directory, then os.replace."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from seqviz.files import atomic_write


def atomic_savez(path: str | os.PathLike[str], arrays: dict[str, np.ndarray]) -> Path:
    """Write `arrays` to `path` as .npz so that readers never see a half-written file."""
    # numpy's stub: a str-keyed **dict could fill savez's `allow_pickle: bool`; keys here are
    # array names, so every value is saved as an array.
    return atomic_write(path, lambda f: np.savez(f, **arrays))  # type: ignore[arg-type]


def read_npz(path: str | os.PathLike[str], what: str) -> dict[str, np.ndarray]:
    """All arrays of an .npz file, or a one-sentence ValueError naming `what` was expected."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such file: {p}")
    try:
        loaded = np.load(p, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise ValueError(f"{p} is not {what} ({exc}).") from None
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        raise ValueError(f"{p} holds a single array, not {what} (an .npz archive).")
    with loaded:
        return {k: loaded[k] for k in loaded.files}
