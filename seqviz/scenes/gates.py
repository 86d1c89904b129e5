"""Scene 3, gates: an LSTM or GRU (trained LM or random) reading text, every gate and state."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from seqviz import models
from seqviz.scenes import title_of
from seqviz.scenes.base import ParamSpec, Scene, SelectHook
from seqviz.scenes.forcing import INTERVENTION_SPECS

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
DIRECTIONS = ("forward", "reverse")

# model kinds the scene reads by name: an LM reads through its vocabulary, a tagger its words
KINDS = ("lm", "tagger")


def shipped_models() -> tuple[models.ModelEntry, ...]:
    """The registry's models the scene can show: LMs and taggers whose cell has gates (a tanh
    RNN has none), in registration order."""
    return tuple(e for e in models.entries() if e.kind in KINDS and e.cell in GATE_NAMES)


def model_choices() -> tuple[str, ...]:
    """The model parameter's choices: every shipped model above by name, random, file."""
    return (*(e.name for e in shipped_models()), "random", "file")


MODELS = model_choices()
# knobs of the random network; a loaded model has its own cell, sizes and weights
RANDOM_ONLY = ("cell", "variant", "hidden", "embed", "forget_bias", "scale", "seed")
FROM_FILE = RANDOM_ONLY[:-1]  # a bare cell from a file still reads seeded random char vectors

SPECS = (
    ParamSpec("model", "model", "choice", "agreement", choices=MODELS,
              help="a shipped trained LM or tagger reading words, a random network reading "
                   "characters, or the weights file below"),
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
              help="model=file: a `seqviz train` model, a tagger or saved weights (.npz/.pt)"),
    ParamSpec("layer", "layer", "int", 0, 0, 7, 1,
              help="a stacked weights file: which layer's cell to show (0 reads the input)"),
    ParamSpec("direction", "direction", "choice", "forward", choices=DIRECTIONS,
              help="a bidirectional weights file: the left-to-right or the right-to-left cell"),
    *INTERVENTION_SPECS,
)  # fmt: skip
STACK_ONLY = ("layer", "direction")


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
    h_prev: np.ndarray | None = None  # (T, d) the state each step read: h0, then h (map order)
    forcing: Any = None  # the units forced (keys a, c, x) and, for an LM, their held-out effect

    @property
    def T(self) -> int:
        return int(self.h.shape[0])

    def counts(self) -> dict[str, int]:
        """The lesson's weight counts 4d(d+d_in) (LSTM) and 3d(d+d_in) (GRU), biases excluded."""
        d, d_in = self.hidden, self.input_size
        return {"lstm": 4 * d * (d + d_in), "gru": 3 * d * (d + d_in)}


def gru_parts(result: GatesResult) -> dict[str, np.ndarray]:
    """A GRU's new state as its two parts, ``kept`` (the old state it carries over) and
    ``written`` (the candidate it takes in): kept + written = h at every step, and one gate z
    sets both shares (the LSTM has a gate for each). (T, d) each."""
    assert result.cell == "gru" and result.h_prev is not None
    z, n = result.gates[:, 1, :], result.gates[:, 2, :]  # (T, d)
    keep = z if result.variant == "pytorch" else 1 - z  # textbook: h = (1-z)*h + z*n
    return {"kept": keep * result.h_prev, "written": (1 - keep) * n}


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
    del mtime  # part of the cache key only: a rewritten file is read again
    return models.load_params(path)


def load_weights(path: str) -> Any:
    """The cell of a weights/model file or a shipped model's name; ValueError if unusable."""
    file = models.resolve(path)
    if not file.exists():
        raise ValueError(f"weights file {path!r} does not exist")
    params = _load(str(file), file.stat().st_mtime)
    if params.cell not in GATE_NAMES:
        raise ValueError(f"{path} holds an {params.cell} cell; the gates scene shows lstm or gru")
    return params


@lru_cache(maxsize=4)
def _load_lm(path: str, mtime: float) -> Any:
    del mtime  # part of the cache key only
    return models.load_file(path, kind="lm")


def is_lm_file(path: str) -> bool:
    """Whether `path` is a `seqviz train` model (a vocabulary and an embedding beside the cell)."""
    if not path.lower().endswith(".npz"):
        return False
    import zipfile

    from seqviz.limits import FILE_CAPS, check_regular

    try:
        # Only the archive's directory, and only of a regular file: np.load on a FIFO blocks.
        check_regular(path, "weights file", FILE_CAPS["weights"])
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
    except (ValueError, OSError, zipfile.BadZipFile):
        return False
    return "vocab.npy" in names and "embedding.npy" in names


def load_model(v: Any) -> Any:
    """The trained LM the values name (an RNNLM), or None for a random network or a bare cell."""
    import os

    if v.model == "random":
        return None
    entry = _entry(v)
    if entry is not None and entry.kind != "lm":
        return None  # a shipped tagger: load_tagger_file reads it
    if v.model == "file":
        if not v.weights:
            raise ValueError("model=file needs a weights file: set weights to a .npz or .pt path")
        if not os.path.exists(v.weights):
            raise ValueError(f"weights file {v.weights!r} does not exist")
        if not is_lm_file(v.weights):
            return None
        path = v.weights
    else:
        path = str(entry.path)
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
        tagger = load_tagger_file(v)
        weights = load_weights(v.weights) if v.model == "file" and lm is None else None
    except ValueError as exc:
        return str(exc)
    if tagger is not None:
        name = v.weights if v.model == "file" else v.model
        return f"{name}: a tagger, {tagger.describe()}, {len(tagger.vocab)} words known"
    if weights is not None and is_stack(weights):
        return f"{v.weights}: a {weights.describe()}, random char vectors"
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
        return frozenset({"weights", *STACK_ONLY})
    if v.model == "file":
        return frozenset(FROM_FILE) | (frozenset() if _file_is_stack(v) else frozenset(STACK_ONLY))
    stack = _entry(v).kind == "tagger"  # a shipped tagger is a stack: its layer and direction
    return frozenset((*RANDOM_ONLY, "weights", *(() if stack else STACK_ONLY)))


def _file_is_stack(v: Any) -> bool:
    try:
        return load_tagger_file(v) is not None or is_stack(load_weights(v.weights))
    except (ValueError, OSError):
        return False


def make_params(v: Any) -> Any:
    from seqviz.core import Params

    if v.model == "file":
        return load_weights(v.weights)
    scale = v.scale / np.sqrt(v.hidden)
    variant = v.variant if v.cell == "gru" else "textbook"
    return Params.random(v.cell, v.embed, v.hidden, seed=v.seed, forget_bias=v.forget_bias,
                         variant=variant, scale=scale)  # fmt: skip


@lru_cache(maxsize=4)
def _load_tagger(path: str, mtime: float) -> Any:
    from seqviz.models.tagger import load_tagger

    del mtime  # part of the cache key only
    return load_tagger(path)


def _entry(v: Any) -> Any:
    """The shipped model the values name, or None for random and file."""
    return None if v.model in ("random", "file") else models.get(v.model)


def load_tagger_file(v: Any) -> Any:
    """The tagger the values name (a shipped one, or the weights file's), or None; it reads
    words through its own embedding."""
    import os

    entry = _entry(v)
    if entry is not None:
        if entry.kind != "tagger":
            return None
        return _load_tagger(str(entry.path), entry.path.stat().st_mtime)
    path = v.weights
    if v.model != "file" or not path.lower().endswith(".npz") or not os.path.exists(path):
        return None
    from seqviz.limits import FILE_CAPS, check_regular

    try:
        check_regular(path, "weights file", FILE_CAPS["weights"])  # a FIFO would block np.load
        with np.load(path, allow_pickle=False) as f:
            tag = str(f["format"]) if "format" in f.files else ""
    except Exception:
        return None
    return _load_tagger(path, os.path.getmtime(path)) if tag.startswith("seqviz-tagger-") else None


def is_stack(params: Any) -> bool:
    return getattr(params, "num_layers", 1) > 1 or bool(getattr(params, "bidirectional", False))


def inputs(v: Any) -> tuple[Any, Any, np.ndarray, tuple[str, ...]]:
    """(trained LM or None, cell Params or StackParams, input (T, d_in), the token each step
    reads): a trained LM reads `<s>` and then the text through its own vocabulary and
    embedding; a tagger reads the words through its own."""
    tagger = load_tagger_file(v)
    if tagger is not None:
        from seqviz.tasks.tagging import tokenize

        words = tokenize(v.text, tagger.vocab)
        return None, tagger.stack, tagger.inputs(words), tuple(words)
    lm = load_model(v)
    if lm is None:
        params = make_params(v)
        return None, params, embed(v.text, params.input_size, v.seed), tuple(v.text)
    ids, x = lm.inputs(v.text)  # (T, e): <s> then each word (or character)
    start = lm.bos if lm.level == "word" else "▸"  # <eos> for a PyTorch LM that starts so
    return lm, lm.params, x, (start, *(lm.vocab[i] for i in ids[1:]))


def run_cell(params: Any, x: np.ndarray, v: Any) -> tuple[Any, Any, str]:
    """(the cell's Params, its Trace, where it sits): a stack runs whole (layer k reads layer
    k-1's output) and the cell at (v.layer, v.direction) is picked; its Trace is in the order
    the cell read, right to left for the reverse direction."""
    from seqviz.core import StackParams, trace, trace_stack

    if isinstance(params, StackParams) and not is_stack(params):
        params = params.cells[0]
    if not isinstance(params, StackParams):
        return params, trace(params, x), ""
    cell = params.layer(v.layer, v.direction)  # a ValueError names the layers it has
    st = trace_stack(params, x)
    where = f"layer {v.layer}" + (f" {v.direction}" if params.bidirectional else "")
    return cell, st.cell(v.layer, v.direction), f"{where} of a {params.describe()}"


def compute(v: Any) -> GatesResult:
    lm, params, x, tokens = inputs(v)
    tagger = load_tagger_file(v)
    source = "random" if v.model == "random" else (v.weights if v.model == "file" else v.model)
    cell, tr, where = run_cell(params, x, v)
    forced = forced_trace(v, lm if lm is not None else cell, x, where)
    if where:
        source = f"{source}, {where}"
    tr = tr if forced is None else forced[1]
    assert tr.gates is not None  # make_params gives an lstm or gru cell, which has gates
    # Time order for the maps: a reverse cell's trace runs from the last token to the first.
    flip = (lambda a: a[::-1]) if where and v.direction == "reverse" else (lambda a: a)
    return GatesResult(
        values=v,
        cell=cell.cell,
        variant=cell.variant,
        text=v.text,
        gate_names=GATE_NAMES[cell.cell],
        gates=flip(tr.gates),
        c=None if tr.c is None else flip(tr.c),
        h=flip(tr.h),
        h_prev=flip(np.concatenate([tr.h0[None], tr.h])[:-1]),
        hidden=cell.hidden_size,
        input_size=cell.input_size,
        n_params=cell.n_params,
        source=source,
        overflow=tr.overflow,
        tokens=tokens,
        level="word" if lm is not None and lm.level == "word" or tagger is not None else "char",
        # counted like an LM's vocabulary, which holds <s> and </s> besides the words
        vocab_size=len(lm.vocab) if lm is not None else (len(tagger.vocab) + 2 if tagger else 0),
        forcing=None if forced is None else forced[0],
    )


def forced_trace(v: Any, model: Any, x: np.ndarray, where: str) -> Any:
    """(Forcing, the forced states as a Trace's fields) when units are forced, else None; a
    cell inside a stack is refused in one sentence."""
    from seqviz.scenes.forcing import forced_states, forcing

    forced = forcing(v, model, v.model if v.model != "file" else v.weights)
    if forced is None:
        return None
    if where:
        raise ValueError("units can be forced in a one-layer cell only; this file is a stack.")
    return forced, forced_states(getattr(model, "params", model), x, forced)


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
    _, params, x, _ = inputs(result.values)
    cell, tr, where = run_cell(params, x, result.values)
    v = result.values
    suffix = f"-l{v.layer}" + ("-reverse" if v.direction == "reverse" else "") if where else ""
    return {cell.cell + suffix: tr}


def _parse_unit(text: str) -> int:
    spec = SCENE.spec("unit")
    try:
        return int(spec.parse(text))
    except ValueError:
        raise ValueError(f"select in the gates scene needs a unit, {spec.allowed()}") from None


SCENE = Scene(
    name="gates",
    title=title_of("gates"),
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
