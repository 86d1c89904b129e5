"""The registry of shipped models: name -> kind, label, file in seqviz/data/, training command."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seqviz.models.format import load_file

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


@dataclass(frozen=True)
class ModelEntry:
    """One shipped model."""

    name: str  # what `--model NAME` and `models.load(NAME)` take
    kind: str  # the model kind (its file's format tag)
    label: str  # a short description for menus and captions
    file: str  # file name in seqviz/data/
    command: str  # the exact command that trains it (docs/models-guide.md quotes it)
    choice: str = ""  # its value in scene choice lists, if not `name`
    cell: str = ""  # its recurrent cell (lstm, gru, rnn): scenes pick the models they can show

    @property
    def path(self) -> Path:
        return DATA_DIR / self.file

    @property
    def key(self) -> str:
        """The value scenes use for it in their choice lists."""
        return self.choice or self.name


_ENTRIES: dict[str, ModelEntry] = {}


def register(entry: ModelEntry) -> ModelEntry:
    """Add a shipped model; its name (and choice) must be new."""
    taken = {n for e in _ENTRIES.values() for n in (e.name, e.key)}
    if entry.name in taken or entry.key in taken:
        raise ValueError(f"a shipped model called {entry.name!r} is already registered.")
    _ENTRIES[entry.name] = entry
    return entry


def user_entries() -> tuple[ModelEntry, ...]:
    """The user's models (`seqviz models add`), by name, as entries like the shipped ones."""
    from seqviz.models import user

    return tuple(
        ModelEntry(
            m.name, m.kind, m.label, str(m.path), f"seqviz models add {m.name} FILE", cell=m.cell
        )  # fmt: skip
        for m in user.listing()
        if m.name not in _ENTRIES
    )


def entries(kind: str | None = None, *, user: bool = True) -> tuple[ModelEntry, ...]:
    """Shipped models in registration order, then the user's models, optionally of one kind."""
    every = (*_ENTRIES.values(), *(user_entries() if user else ()))
    return tuple(e for e in every if kind is None or e.kind == kind)


def get(name: str) -> ModelEntry:
    """The shipped or user model called `name` (its name or its scene choice)."""
    every = entries()
    for e in every:
        if name in (e.name, e.key):
            return e
    names = ", ".join(e.name for e in every)
    raise ValueError(f"no model called {name!r}; shipped and user models: {names}.")


def resolve(name_or_path: str | os.PathLike[str]) -> Path:
    """The file of the shipped model of that name, else of the user model, else the path."""
    key = str(name_or_path)
    for e in _ENTRIES.values():
        if key in (e.name, e.key):
            return e.path
    if key and "/" not in key and "." not in key:
        for e in user_entries():
            if key == e.name:
                return e.path
    return Path(name_or_path)


def load(name_or_path: str | os.PathLike[str], kind: str | None = None) -> Any:
    """A shipped model by name, or a model file by path, built by its kind's loader."""
    return load_file(resolve(name_or_path), kind)


def load_params(name_or_path: str | os.PathLike[str]) -> Any:
    """The recurrent cell (core `Params`) of a shipped model, a model file or a weights file
    (.npz written by `Params.save`, or a PyTorch state_dict): what the gates scene shows. A
    stacked or bidirectional network (a tagger, a .pt of nn.LSTM(num_layers=2)) gives its
    `StackParams`."""
    from seqviz.core.params import Params
    from seqviz.core.stack_params import StackParams
    from seqviz.models.format import file_kind, load_file, read_arrays

    p = resolve(name_or_path)
    if not p.exists():
        raise ValueError(f"weights file {str(name_or_path)!r} does not exist")
    if p.is_file() and p.suffix.lower() == ".npz":
        kind = file_kind(read_arrays(p, "a weights file (.npz)"))
        if kind is not None:
            model = load_file(p, kind)
            params = getattr(model, "params", None) or getattr(model, "stack", None)
            if not isinstance(params, (Params, StackParams)):
                raise ValueError(f"{str(p)!r} holds a {kind} model, which has no single cell.")
            return params
    return Params.load(p)
