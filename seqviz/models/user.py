"""User models: `seqviz models add NAME FILE` keeps a copy under the platform's user data folder.

The folder is platformdirs' user data folder for seqviz (on Linux $XDG_DATA_HOME/seqviz, else
~/.local/share/seqviz) plus `models/`. Each model is one file `NAME.npz` (a seqviz model file;
a PyTorch LM is converted on the way in) and a line in `index.json` (its kind, cell and label),
so listing reads no weights. Both are written atomically, the model before the index line.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from seqviz.limits import shorten, shown

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")
# values the scenes' model choices use for themselves: a user model may not take them
RESERVED = frozenset({"file", "random", "toy", "seq2seq", "lstm", "gru", "rnn"})


def folder() -> Path:
    """Where user models live (not created until a model is added)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("seqviz", appauthor=False)) / "models"


@dataclass(frozen=True)
class UserModel:
    name: str
    kind: str
    cell: str
    label: str
    path: Path


def _index_path() -> Path:
    return folder() / "index.json"


def _read_index() -> dict[str, dict[str, str]]:
    p = _index_path()
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError):
        return {}  # an unreadable index lists nothing rather than breaking every scene
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict) and NAME.match(str(k))}


def _write_index(index: dict[str, dict[str, str]]) -> None:
    from seqviz.files import atomic_write

    atomic_write(_index_path(), json.dumps(index, indent=1, sort_keys=True) + "\n")


def listing() -> list[UserModel]:
    """The user models whose files exist, by name."""
    out = []
    for name, meta in sorted(_read_index().items()):
        path = folder() / f"{name}.npz"
        if path.is_file():
            out.append(UserModel(name, str(meta.get("kind", "")), str(meta.get("cell", "")),
                                 str(meta.get("label", "")), path))  # fmt: skip
    return out


def find(name: str) -> UserModel | None:
    return next((m for m in listing() if m.name == name), None)


def check_name(name: str) -> str:
    """`name` if it can name a user model; a one-sentence ValueError otherwise."""
    from seqviz.models.registry import entries

    if not NAME.match(name):
        raise ValueError(
            f"the model name {shorten(name)} is not allowed; use 1-40 letters, digits, '-' or "
            "'_', starting with a letter."
        )
    shipped = {n for e in entries(user=False) for n in (e.name, e.key)}
    if name in shipped or name in RESERVED:
        raise ValueError(
            f"{name!r} is already the name of a shipped model or a scene choice; pick another."
        )
    return name


def add(
    name: str,
    file: str | os.PathLike[str],
    vocab: str | os.PathLike[str] | None = None,
    *,
    replace: bool = False,
) -> tuple[UserModel, str]:
    """Keep a copy of a model file (or a PyTorch LM with its vocabulary) as `name`; returns the
    model and a line describing it."""
    from seqviz.files import atomic_write
    from seqviz.limits import read_bytes
    from seqviz.models.format import file_kind, load_file, read_arrays
    from seqviz.models.torch_lm import is_torch_file
    from seqviz.models.torch_lm import load as load_torch

    check_name(name)
    if find(name) is not None and not replace:
        raise ValueError(
            f"a user model called {name!r} exists; remove it first (`seqviz models remove "
            f"{name}`) or add with --replace."
        )
    if vocab is not None or is_torch_file(file):
        if vocab is None:
            raise ValueError(f"{shown(file)} is a PyTorch file; give its vocabulary with --vocab.")
        model, line = load_torch(file, vocab)
        kind, data = "lm", None
    else:
        model = load_file(file)  # any seqviz model: refused here if unreadable
        data = read_bytes(file, "model file", "weights")
        kind = file_kind(read_arrays(file, "a seqviz model file")) or "lm"
        line = f"{shown(file)}: {_describe(model)}"
    folder().mkdir(parents=True, exist_ok=True)
    target = folder() / f"{name}.npz"
    if data is None:
        model.save(target)
    else:
        atomic_write(target, data)
    index = _read_index()
    cell = _cell_of(model)
    index[name] = {"kind": kind, "cell": cell, "label": f"{name} (user {kind}: {_describe(model)})"}
    _write_index(index)
    found = find(name)
    assert found is not None
    return found, line


def remove(name: str) -> Path:
    """Forget the user model `name` and delete its file."""
    index = _read_index()
    if name not in index:
        have = ", ".join(sorted(index)) or "none"
        raise ValueError(f"no user model called {shorten(name)}; user models: {have}.")
    del index[name]
    _write_index(index)
    path = folder() / f"{name}.npz"
    path.unlink(missing_ok=True)
    return path


def _cell_of(model: object) -> str:
    for attr in ("params", "stack"):
        p = getattr(model, attr, None)
        cell = getattr(p, "cell", None)
        if isinstance(cell, str):
            return cell
    return ""


def _describe(model: object) -> str:
    describe = getattr(model, "describe", None)
    return str(describe()) if callable(describe) else type(model).__name__
