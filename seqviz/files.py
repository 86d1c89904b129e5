"""Atomic file writes: readers see the old file or the whole new one, never half of it."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO


def _file_mode() -> int:
    # mkstemp creates 0600 files; a saved trace or screenshot should get the user's usual mode.
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write(
    path: str | os.PathLike[str], content: str | bytes | Callable[[IO[bytes]], None]
) -> Path:
    """Write text, bytes, or whatever ``content(binary_file)`` writes, to ``path`` atomically.

    The data goes to a temporary file in the target's directory, which then replaces the target
    in one step, so an interrupted save (Ctrl-C, a full disk) keeps the previous file intact.
    """
    target = Path(path)
    directory = target.parent
    if not directory.is_dir():
        raise FileNotFoundError(f"cannot write {target}: the folder {directory} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(content, str):
                f.write(content.encode("utf-8"))
            elif isinstance(content, bytes):
                f.write(content)
            else:
                content(f)
        os.chmod(tmp, _file_mode())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
