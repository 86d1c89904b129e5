"""Scene 3, gates: an LSTM or GRU (trained LM or random) reading text, every gate and state."""

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

# shipped LMs with a gated cell (registry names; agreement-rnn has no gates to show)
MODELS = ("agreement", "agreement-gru", "random", "file")
# knobs of the random network; a loaded model has its own cell, sizes and weights
RANDOM_ONLY = ("cell", "variant", "hidden", "embed", "forget_bias", "scale", "seed")
FROM_FILE = RANDOM_ONLY[:-1]  # a bare cell from a file still reads seeded random char vectors

SPECS = (
    ParamSpec("model", "model", "choice", "agreement", choices=MODELS,
              help="a shipped trained LM reading words, a random network reading characters, "
                   "or the weights file below"),
    ParamSpec("cell", "cell", "choice", "lstm", choices=("lstm", "gru"), help="gated cell type"),
    ParamSpec("variant", "GRU variant", "choice", "textbook", choices=("textbook", "pytorch"),
              help="GRU only: where the reset gate applies (r*(W h) in PyTorch)"),
    ParamSpec("text", "text", "text", "the keys to the cabinet are missing", max_length=120,
              help="the input: one word per step for a word model, else one character"),
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
              help="model=file: a `seqviz train` model or a saved cell (.npz/.pt)"),
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
    source: str  # "random", a shipped model's name or the weights file
    overflow: Any = None
    tokens: tuple[str, ...] = ()  # (T,) what each step read: words or characters
    level: str = "char"  # how a trained LM splits its text; random networks read characters
    vocab_size: int = 0  # a trained LM's vocabulary; 0 for a random network or a bare cell

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


@lru_cache(maxsize=4)
def _load_lm(path: str, mtime: float) -> Any:
    from seqviz import models

    del mtime  # part of the cache key only
    return models.load_file(path, kind="lm")


def is_lm_file(path: str) -> bool:
    """Whether `path` is a `seqviz train` model (a vocabulary and an embedding beside the cell)."""
    if not path.lower().endswith(".npz"):
        return False
    try:
        with np.load(path, allow_pickle=False) as f:
            return "vocab" in f.files and "embedding" in f.files
    except Exception:
        return False


def load_model(v: Any) -> Any:
    """The trained LM the values name (an RNNLM), or None for a random network or a bare cell."""
    import os

    from seqviz import models

    if v.model == "random":
        return None
    if v.model == "file":
        if not v.weights:
            raise ValueError("model=file needs a weights file: set weights to a .npz or .pt path")
        if not os.path.exists(v.weights):
            raise ValueError(f"weights file {v.weights!r} does not exist")
        if not is_lm_file(v.weights):
            return None
        path = v.weights
    else:
        path = str(models.get(v.model).path)
    lm = _load_lm(path, os.path.getmtime(path))
    if lm.params.cell not in GATE_NAMES:
        raise ValueError(
            f"{path} holds an {lm.params.cell} cell; the gates scene shows lstm or gru"
        )
    return lm


def describe(v: Any) -> str:
    """The loaded model as the parameter panel shows it: cell, sizes, vocabulary."""
    try:
        lm = load_model(v)
    except ValueError as exc:
        return str(exc)
    if lm is None:
        return "" if v.model == "random" else f"{v.weights}: a bare cell, random char vectors"
    p = lm.params
    cell = "LSTM" if p.cell == "lstm" else f"GRU ({p.variant})"
    unit = "words" if lm.level == "word" else "characters"
    return (f"{v.model if v.model != 'file' else lm.name}: {cell}, hidden {p.hidden_size}, "
            f"embedding {p.input_size}, {len(lm.vocab) - 2} {unit} known")  # fmt: skip


def hidden(v: Any) -> frozenset[str]:
    """Rows the panel hides: the random network's knobs once a model is loaded (the model sets
    them), and the weights path unless model=file."""
    if v.model == "random":
        return frozenset({"weights"})
    if v.model == "file":
        return frozenset(FROM_FILE)
    return frozenset((*RANDOM_ONLY, "weights"))


def make_params(v: Any) -> Any:
    from seqviz.core import Params

    if v.model == "file":
        return load_weights(v.weights)
    scale = v.scale / np.sqrt(v.hidden)
    variant = v.variant if v.cell == "gru" else "textbook"
    return Params.random(v.cell, v.embed, v.hidden, seed=v.seed, forget_bias=v.forget_bias,
                         variant=variant, scale=scale)  # fmt: skip


def inputs(v: Any) -> tuple[Any, Any, np.ndarray, tuple[str, ...]]:
    """(trained LM or None, cell Params, input (T, d_in), the token each step reads): a trained
    LM reads `<s>` and then the text through its own vocabulary and embedding."""
    lm = load_model(v)
    if lm is None:
        params = make_params(v)
        return None, params, embed(v.text, params.input_size, v.seed), tuple(v.text)
    ids, x = lm.inputs(v.text)  # (T, e): <s> then each word (or character)
    start = "<s>" if lm.level == "word" else "▸"
    return lm, lm.params, x, (start, *(lm.vocab[i] for i in ids[1:]))


def compute(v: Any) -> GatesResult:
    from seqviz.core import trace

    lm, params, x, tokens = inputs(v)
    source = "random" if v.model == "random" else (v.weights if v.model == "file" else v.model)
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
        source=source,
        overflow=tr.overflow,
        tokens=tokens,
        level=lm.level if lm is not None else "char",
        vocab_size=len(lm.vocab) if lm is not None else 0,
    )


def inactive(v: Any) -> dict[str, str]:
    """What does nothing now: the random model's settings while a model is loaded (also hidden);
    the GRU variant for an LSTM; the forget bias for a GRU."""
    if v.model == "file":
        return {name: "the weights file sets it" for name in FROM_FILE}
    if v.model != "random":
        return {name: f"the {v.model} model sets it" for name in RANDOM_ONLY}
    if v.cell == "lstm":
        return {"variant": "an LSTM has no GRU variant"}
    return {"forget_bias": "a GRU has no forget gate"}


def frames(result: GatesResult) -> int:
    """One frame per token read."""
    return result.T


def traces(result: GatesResult) -> dict[str, Any]:
    """The cell on screen reading the typed text."""
    from seqviz.core import trace

    _, params, x, _ = inputs(result.values)
    return {params.cell: trace(params, x)}


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
    hidden=hidden,
    info=describe,
)
