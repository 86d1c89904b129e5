"""Scene 3, gates: an LSTM or GRU reading typed text, every gate and state over time."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from seqviz.scenes.base import ParamSpec, Scene, SelectHook

GATE_NAMES = {"lstm": ("i", "f", "g", "o"), "gru": ("r", "z", "n")}
GATE_LABELS = {
    "i": "input gate i",
    "f": "forget gate f",
    "g": "candidate g",
    "o": "output gate o",
    "r": "reset gate r",
    "z": "update gate z",
    "n": "candidate n",
}
SIGNED = {"g", "n"}  # tanh outputs in (-1, 1); the rest are sigmoids in (0, 1)

SPECS = (
    ParamSpec("cell", "cell", "choice", "lstm", choices=("lstm", "gru"), help="gated cell type"),
    ParamSpec("variant", "GRU variant", "choice", "textbook", choices=("textbook", "pytorch"),
              help="GRU only: where the reset gate applies (r*(W h) in PyTorch)"),
    ParamSpec("text", "text", "text", "the keys to the cabinet are missing", max_length=120,
              help="the input, one character per step"),
    ParamSpec("hidden", "hidden size", "int", 16, 2, 64, 2, help="units d"),
    ParamSpec("embed", "embedding size", "int", 8, 2, 32, 2,
              help="input size d_in: each character is a fixed random vector"),
    ParamSpec("forget_bias", "forget bias", "float", 1.0, -5.0, 10.0, 0.5,
              help="LSTM b_f: 1 makes f = sigmoid(1) = 0.73 before training"),
    ParamSpec("scale", "weight scale", "float", 1.0, 0.1, 4.0, 0.1,
              help="weights ~ U(-s, s)/sqrt(d): larger saturates the gates"),
    ParamSpec("seed", "seed", "int", 0, 0, 9999, 1, help="random weights and embeddings"),
    ParamSpec("unit", "unit cursor", "int", 0, 0, 63, 1, recompute=False,
              help="which unit's traces to plot"),
    ParamSpec("weights", "weights file", "text", "", min_length=0, max_length=400, live=False,
              help="a saved model (.npz/.pt) to use instead of random weights; empty: random"),
)  # fmt: skip


@dataclass(frozen=True)
class GatesResult:
    values: Any
    cell: str
    variant: str
    text: str
    gate_names: tuple[str, ...]
    gates: np.ndarray  # (T, G, d) post-activation gate values
    c: np.ndarray | None  # (T, d) LSTM cell state
    h: np.ndarray  # (T, d)
    hidden: int
    input_size: int
    n_params: int  # weights and biases of this cell
    source: str  # "random" or the weights file
    overflow: Any = None

    @property
    def T(self) -> int:
        return int(self.h.shape[0])

    def counts(self) -> dict[str, int]:
        """The lesson's weight counts 4d(d+d_in) (LSTM) and 3d(d+d_in) (GRU), biases excluded."""
        d, d_in = self.hidden, self.input_size
        return {"lstm": 4 * d * (d + d_in), "gru": 3 * d * (d + d_in)}


def embed(text: str, size: int, seed: int) -> np.ndarray:
    """(len(text), size): a fixed N(0, 1) vector per character (same character, same vector)."""
    out = np.empty((len(text), size))
    vectors: dict[str, np.ndarray] = {}
    for t, ch in enumerate(text):
        vec = vectors.get(ch)
        if vec is None:
            vec = np.random.default_rng([seed, ord(ch)]).normal(0.0, 1.0, size)
            vectors[ch] = vec
        out[t] = vec
    return out


@lru_cache(maxsize=4)
def _load(path: str, mtime: float) -> Any:
    from seqviz import models

    del mtime  # part of the cache key only: a rewritten file is read again
    return models.load_params(path)


def load_weights(path: str) -> Any:
    """The cell of a weights/model file or a shipped model's name; ValueError if unusable."""
    from seqviz import models

    file = models.resolve(path)
    if not file.exists():
        raise ValueError(f"weights file {path!r} does not exist")
    params = _load(str(file), file.stat().st_mtime)
    if getattr(params, "num_layers", 1) > 1 or getattr(params, "bidirectional", False):
        raise ValueError(
            f"{path} holds a {params.describe()}; the gates scene shows a single-layer, "
            "one-direction lstm or gru"
        )
    if params.cell not in GATE_NAMES:
        raise ValueError(f"{path} holds an {params.cell} cell; the gates scene shows lstm or gru")
    return params


def make_params(v: Any) -> Any:
    from seqviz.core import Params

    if v.weights:
        return load_weights(v.weights)
    scale = v.scale / np.sqrt(v.hidden)
    variant = v.variant if v.cell == "gru" else "textbook"
    return Params.random(v.cell, v.embed, v.hidden, seed=v.seed, forget_bias=v.forget_bias,
                         variant=variant, scale=scale)  # fmt: skip


def compute(v: Any) -> GatesResult:
    from seqviz.core import trace

    params = make_params(v)
    x = embed(v.text, params.input_size, v.seed)
    tr = trace(params, x)
    assert tr.gates is not None  # make_params gives an lstm or gru cell, which has gates
    return GatesResult(
        values=v,
        cell=params.cell,
        variant=params.variant,
        text=v.text,
        gate_names=GATE_NAMES[params.cell],
        gates=tr.gates,
        c=tr.c,
        h=tr.h,
        hidden=params.hidden_size,
        input_size=params.input_size,
        n_params=params.n_params,
        source=v.weights or "random",
        overflow=tr.overflow,
    )


FROM_FILE = ("cell", "variant", "hidden", "embed", "forget_bias", "scale")


def inactive(v: Any) -> dict[str, str]:
    """What does nothing now: the random model's settings while a file is loaded; the GRU variant
    for an LSTM; the forget bias for a GRU."""
    if v.weights:
        return {name: "the weights file sets it" for name in FROM_FILE}
    if v.cell == "lstm":
        return {"variant": "an LSTM has no GRU variant"}
    return {"forget_bias": "a GRU has no forget gate"}


def frames(result: GatesResult) -> int:
    """One frame per character read."""
    return result.T


def traces(result: GatesResult) -> dict[str, Any]:
    """The cell on screen reading the typed text."""
    from seqviz.core import trace

    v = result.values
    params = make_params(v)
    return {params.cell: trace(params, embed(v.text, params.input_size, v.seed))}


def _parse_unit(text: str) -> int:
    spec = SCENE.spec("unit")
    try:
        return int(spec.parse(text))
    except ValueError:
        raise ValueError(f"select in the gates scene needs a unit, {spec.allowed()}") from None


SCENE = Scene(
    name="gates",
    title="Gates",
    summary="An LSTM or GRU reads your text; watch each gate open and close.",
    specs=SPECS,
    compute=compute,
    frames=frames,
    view="seqviz.ui.views.gates:GatesView",
    inactive=inactive,
    traces=traces,
    select=SelectHook(_parse_unit, lambda result, unit: {"unit": int(unit)}, "a unit"),
)
