"""Atomic .npz writing: a temp file in the target directory, then os.replace."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np


def atomic_savez(path: str | os.PathLike[str], arrays: dict[str, np.ndarray]) -> Path:
    """Write `arrays` to `path` as .npz so that readers never see a half-written file."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise FileNotFoundError(f"directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
