"""Atomic file writes (readers see the old or the whole new file) and checked .npz/.npy reads."""

from __future__ import annotations

import math
import os
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np

from seqviz.limits import (
    FILE_CAPS,
    MAX_NPZ_MEMBERS,
    MAX_NPZ_RATIO,
    LimitError,
    MiB,
    check_regular,
    shorten,
    shown,
)

# Arrays seqviz reads are numbers (bool, int, float) or labels (unicode); complex values would
# lose their imaginary part, objects need pickle, structured dtypes are not weights.
_ALLOWED_KINDS = "biufU"
_NPY_MAGIC = b"\x93NUMPY"


def _file_mode() -> int:
    # mkstemp creates 0600 files; a saved trace or screenshot should get the user's usual mode.
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


try:
    import fcntl
except ImportError:  # Windows: no flock, so no way to tell a live temp file from a stale one
    fcntl = None  # type: ignore[assignment]


def remove_stale_temps(target: Path, min_age: float = 2.0) -> list[Path]:
    """Delete temp files that killed saves of ``target`` left behind; returns what went.

    A live save holds an exclusive flock on its temp file, so a file that can be locked (and is
    older than ``min_age`` seconds, past the moment between mkstemp and flock) is stale.
    """
    if fcntl is None:
        return []
    removed = []
    now = time.time()
    for tmp in target.parent.glob(f".{target.name}.*.tmp"):
        try:
            if now - tmp.stat().st_mtime < min_age:
                continue
            fd = os.open(tmp, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            pass  # locked by a save in progress, or already gone
        finally:
            os.close(fd)
    return removed


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
    remove_stale_temps(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:  # name the file the user asked for, not the hidden temp file
        raise OSError(exc.errno, exc.strerror, str(target)) from None
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)  # marks this temp file as live (see remove_stale_temps)
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


# --- reading .npz / .npy: header checked before data ---------------------------------------------
def _read_array(f: IO[bytes], where: str, budget: int) -> np.ndarray:
    """One .npy stream: header checked (dtype, shape, bytes <= budget) before any data is read."""
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
    else:
        raise LimitError(f"{where} uses .npy format {version}, which seqviz does not read.")
    if dtype.kind not in _ALLOWED_KINDS or dtype.fields is not None or dtype.subdtype is not None:
        raise LimitError(
            f"{where} holds {dtype} values; seqviz reads only real numbers and text "
            "(not complex, object or structured arrays)."
        )
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    if nbytes > budget:
        raise LimitError(
            f"{where} claims shape {shape} ({nbytes:,} bytes), more than the file holds or the "
            f"{FILE_CAPS['weights'] // MiB} MB limit allows."
        )
    arr = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
    flat: Any = arr.reshape(-1, order="A").view(np.uint8)  # (nbytes,) over arr, no copy
    view = memoryview(flat) if count else memoryview(b"")
    got = 0
    while got < nbytes:
        n = f.readinto(view[got:])  # type: ignore[attr-defined]
        if not n:
            raise LimitError(f"{where} is truncated ({got} of {nbytes} bytes).")
        got += n
    return arr


def read_npz(path: str | os.PathLike[str], what: str, noun: str = "file") -> dict[str, np.ndarray]:
    """All arrays of an .npz file, or a one-sentence ValueError naming `what` was expected.

    ``noun`` names the file in errors about the file itself ("cannot read the model file").
    The file must be a regular file within FILE_CAPS["weights"]; every member's size,
    compression ratio, dtype and header shape are checked before its data is read, so a zip
    bomb or a header claiming 10^12 values is refused without allocating it.
    """
    import zipfile  # here: the app's first frame reads no archive

    cap = FILE_CAPS["weights"]
    p = check_regular(path, noun, cap)
    name = shown(p)
    try:
        with open(p, "rb") as raw:
            if raw.read(len(_NPY_MAGIC)) == _NPY_MAGIC:
                raise LimitError(f"{name} holds a single array, not {what} (an .npz archive).")
            raw.seek(0)
            with zipfile.ZipFile(raw) as zf:
                infos = [i for i in zf.infolist() if i.filename.endswith(".npy")]
                if len(infos) > MAX_NPZ_MEMBERS:
                    raise LimitError(f"{name} has {len(infos)} arrays; the limit is "
                                     f"{MAX_NPZ_MEMBERS}.")  # fmt: skip
                budget = cap
                out: dict[str, np.ndarray] = {}
                for info in infos:
                    where = f"array {shorten(info.filename[:-4])} of {name}"
                    if info.file_size > budget:
                        raise LimitError(f"{where} expands to {info.file_size / MiB:,.0f} MB; "
                                         f"the limit is {cap // MiB} MB in all.")  # fmt: skip
                    ratio = info.file_size / max(info.compress_size, 1)
                    if info.file_size > MiB and ratio > MAX_NPZ_RATIO:
                        raise LimitError(
                            f"{where} is compressed {ratio:,.0f} to 1 (a zip bomb?); seqviz "
                            f"refuses more than {MAX_NPZ_RATIO} to 1."
                        )
                    with zf.open(info) as f:
                        arr = _read_array(f, where, min(budget, info.file_size))
                    budget -= arr.nbytes
                    out[info.filename[:-4]] = arr
                return out
    except LimitError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError,
            NotImplementedError, KeyError) as exc:  # fmt: skip
        reason = str(exc).strip().rstrip(".") or type(exc).__name__
        raise ValueError(f"{name} is not {what} ({shorten(reason, 120)}).") from None


def refuse_non_finite(arrays: dict[str, np.ndarray], where: str) -> dict[str, np.ndarray]:
    """``arrays`` if every float array in them is finite; else a LimitError naming the first
    array that holds nan or inf (weights with nan would compute nan everywhere downstream)."""
    for key, arr in arrays.items():
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            raise LimitError(
                f"the array {shorten(key)} of {where} holds inf or nan; a model's weights must "
                "all be finite numbers."
            )
    return arrays


def read_npy(path: str | os.PathLike[str], what: str) -> np.ndarray:
    """One .npy array, its header checked before the data is read; one-sentence ValueError."""
    cap = FILE_CAPS["array"]
    p = check_regular(path, "input file", cap)
    name = shown(p)
    try:
        with open(p, "rb") as f:
            return _read_array(f, name, min(cap, os.fstat(f.fileno()).st_size))
    except LimitError:
        raise
    except (OSError, ValueError, EOFError) as exc:
        reason = str(exc).strip().rstrip(".") or type(exc).__name__
        raise ValueError(f"{name} is not {what} ({shorten(reason, 120)}).") from None
