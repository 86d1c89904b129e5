"""Atomic .npz writing; the checked .npz/.npy readers live in seqviz.files (no Numba there)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from seqviz.files import atomic_write, read_npy, read_npz

__all__ = ["atomic_savez", "read_npy", "read_npz"]


def atomic_savez(path: str | os.PathLike[str], arrays: dict[str, np.ndarray]) -> Path:
    """Write `arrays` to `path` as .npz so that readers never see a half-written file."""
    # numpy's stub: a str-keyed **dict could fill savez's `allow_pickle: bool`; keys here are
    # array names, so every value is saved as an array.
    return atomic_write(path, lambda f: np.savez(f, **arrays))  # type: ignore[arg-type]
