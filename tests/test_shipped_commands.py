"""The documented training commands are the registry's, and each shipped file was trained with them.

A drift between the three (docs/models-guide.md, `seqviz/models/shipped.py`, the file in
seqviz/data/) is what left a shipped model that its own command no longer reproduced; these
tests catch it by parsing.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from seqviz import cli, models

PAGE = Path(__file__).resolve().parents[1] / "docs" / "models-guide.md"
ENTRIES = models.entries()


def documented_train_commands() -> dict[str, str]:
    """Every `seqviz train*` command in the models page's bash blocks, by the file it writes."""
    found: dict[str, str] = {}
    for block in re.findall(r"```bash\n(.*?)```", PAGE.read_text(), re.S):
        for cmd in block.replace("\\\n", " ").splitlines():
            cmd = " ".join(cmd.split("#")[0].split())
            if cmd.startswith("seqviz train"):
                out = re.search(r"--out (\S+)", cmd)
                assert out, f"a documented training command without --out: {cmd}"
                found[out.group(1)] = cmd
    return found


def options(command: str) -> dict:
    args = vars(cli.build_parser().parse_args(shlex.split(command)[1:]))
    args.pop("func", None)
    return args


def test_every_shipped_file_the_docs_train_is_registered():
    shipped = {f"seqviz/data/{e.file}" for e in ENTRIES}
    written = {out for out in documented_train_commands() if out.startswith("seqviz/data/")}
    assert written == shipped


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_the_documented_command_parses_to_the_registrys_options(entry):
    documented = documented_train_commands()[f"seqviz/data/{entry.file}"]
    assert options(documented) == options(entry.command)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_the_shipped_file_has_the_shape_its_command_asks_for(entry):
    """What the file itself records (cell, sizes, layers, stored training settings) equals the
    options of the command that is said to have trained it."""
    o = options(entry.command)
    with np.load(entry.path) as f:
        z = {k: f[k] for k in f.files}
    if entry.kind == "lm":
        assert str(z["cell"]) == o["cell"] == entry.cell
        assert (str(z["variant"]), str(z["level"])) == (o["variant"], o["level"])
        assert z["weight_hh_l0"].shape[1] == o["hidden"] and z["embedding"].shape[1] == o["emb"]
    elif entry.kind == "tagger":
        assert str(z["cell"]) == o["cell"] == entry.cell
        assert int(z["num_layers"]) == o["layers"]
        assert bool(z["bidirectional"]) == o["bidirectional"]
        assert z["weight_hh_l0"].shape[1] == o["hidden"] and z["emb"].shape[1] == o["emb"]
    elif entry.kind == "flipflop":
        assert z["weight_hh"].shape == (o["hidden"], o["hidden"])
    elif entry.kind == "seq2seq":
        train = json.loads(str(z["meta"]))["train"]
        asked = {k: o[k] for k in ("cell", "hidden", "emb", "attention", "teacher_forcing",
                                   "pairs", "batch", "max_len", "seed")}  # fmt: skip
        assert {k: train[k] for k in asked} == asked
        assert train.get("reverse", False) == o["reverse_source"]
    else:  # pragma: no cover - a new kind needs its check here
        pytest.fail(f"no check for shipped kind {entry.kind!r}")
