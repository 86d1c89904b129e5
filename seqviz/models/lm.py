"""Model kind "lm": embedding -> seqviz core LSTM/GRU/RNN cell -> linear -> softmax."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from seqviz.core.api import forward, step, trace
from seqviz.core.params import Params
from seqviz.core.trace import Trace
from seqviz.decoding.models import BOS, EOS, closest
from seqviz.limits import shorten
from seqviz.models.format import format_tag, read_arrays, register_kind, save_model

KIND = "lm"
FORMAT = format_tag(KIND)
LEVELS = ("word", "char")
NOUN = "a seqviz language model (an .npz written by `seqviz train`)"
_CELL_ARRAYS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")


UNK = "<unk>"  # the token an unknown word is read as, where the vocabulary has one


class LMState(NamedTuple):
    """Hidden state after some tokens, and the next-token log-probabilities it gives."""

    h: np.ndarray  # (L*d,): every layer's h, the first layer's first
    c: np.ndarray | None  # (L*d,) for LSTM
    logp: np.ndarray  # (V,)


def _cell_states(states: Sequence[LMState]) -> np.ndarray:
    """The (B, d) stacked cell states of LSTM states (an LSTM's states always carry one)."""
    cells = []
    for s in states:
        assert s.c is not None
        cells.append(s.c)
    return np.stack(cells)


def log_softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


@dataclass(frozen=True, eq=False)
class RNNLM:
    """A trained LM; satisfies the decoders' LanguageModel protocol. <s> is only ever an input:
    its output logit is masked, so it is never predicted (`mask_bos`; an imported PyTorch model
    keeps its own distribution). `params` is the first layer; `upper` the layers stacked on it
    (each reads the output of the one below); the head reads the top layer."""

    params: Params
    embedding: np.ndarray  # (V, e)
    out_weight: np.ndarray  # (V, d)
    out_bias: np.ndarray  # (V,)
    vocab: tuple[str, ...]
    level: str = "word"
    name: str = "lm"
    upper: tuple[Params, ...] = ()
    bos: str = BOS  # the token a sentence starts with
    eos: str = EOS  # the token that ends one (may be the same as bos, as in PyTorch's example)
    mask_bos: bool = True
    index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        V = len(self.vocab)
        if self.level not in LEVELS:
            raise ValueError(f"level must be 'word' or 'char', got {self.level!r}.")
        if len(set(self.vocab)) != V:
            raise ValueError("the vocabulary holds a token twice.")
        if self.bos not in self.vocab or self.eos not in self.vocab:
            raise ValueError(f"the vocabulary must hold {self.bos} and {self.eos}.")
        d, e = self.params.hidden_size, self.params.input_size
        object.__setattr__(self, "upper", tuple(self.upper))
        for k, p in enumerate(self.upper, 1):
            if (p.cell, p.hidden_size, p.input_size) != (self.params.cell, d, d):
                raise ValueError(
                    f"layer {k} is a {p.cell} cell reading {p.input_size} inputs with hidden size "
                    f"{p.hidden_size}; on a {self.params.cell} layer of {d} units it must be a "
                    f"{self.params.cell} cell reading {d} with hidden size {d}."
                )
        for name, arr, shape in (
            ("embedding", self.embedding, (V, e)),
            ("out_weight", self.out_weight, (V, d)),
            ("out_bias", self.out_bias, (V,)),
        ):
            if np.shape(arr) != shape:
                raise ValueError(f"{name} has shape {np.shape(arr)}, expected {shape}.")
            if not np.isfinite(arr).all():
                raise ValueError(f"{name} contains inf or nan; a model's weights must be finite.")
        object.__setattr__(self, "index", {t: i for i, t in enumerate(self.vocab)})

    @property
    def bos_id(self) -> int:
        return self.index[self.bos]

    @property
    def eos_id(self) -> int:
        return self.index[self.eos]

    @property
    def layers(self) -> tuple[Params, ...]:
        """Every recurrent layer, the one reading the embedding first."""
        return (self.params, *self.upper)

    @property
    def unk_id(self) -> int | None:
        """The id unknown words are read as, or None where the vocabulary has no <unk>."""
        return self.index.get(UNK)

    def describe(self) -> str:
        """The architecture in a few words: "2-layer LSTM (hidden 32, embedding 16, 33 words)"."""
        L, p = len(self.layers), self.params
        depth = f"{L}-layer " if L > 1 else ""
        unit = "words" if self.level == "word" else "characters"
        return (
            f"{depth}{p.cell.upper()} (hidden {p.hidden_size}, embedding {p.input_size}, "
            f"{len(self.vocab)} {unit})"
        )

    # --- the LanguageModel protocol --------------------------------------------------------
    def encode(self, text: str) -> list[int]:
        """Prompt text as token ids (words split on whitespace, or characters)."""
        if self.level == "word":
            ids = self._encode_words(text)
        else:
            ids = []
            for ch in text:
                if ch not in self.index or len(ch) != 1:
                    known = [k for k in self.vocab if len(k) == 1]
                    near = ", ".join(repr(k) for k in closest(ch.lower(), known))
                    raise ValueError(
                        f"the prompt character {ch!r} is not in the vocabulary of the model "
                        f"{self.name!r}; closest known characters: {near}."
                    )
                ids.append(self.index[ch])
        if ids and ids[-1] == self.eos_id and self.eos_id != self.bos_id:
            raise ValueError(
                f"the prompt ends with {self.eos}, so there is nothing left to decode."
            )
        return ids

    def _encode_words(self, text: str) -> list[int]:
        """Word ids (a leading start token dropped); an unknown word is read as <unk> where the
        vocabulary has one, else it is a one-sentence error naming the closest known words."""
        words = text.split()
        if words and words[0] in (BOS, self.bos):
            words = words[1:]
        # the start token is never read mid-sentence, unless it also ends one (<eos>)
        start_only = self.bos_id if self.bos_id != self.eos_id else -1
        ids = []
        for w in words:
            i = self.index.get(w, -1)
            if i < 0 or i == start_only:
                if self.unk_id is not None:
                    ids.append(self.unk_id)
                    continue
                special = (self.bos, self.eos, BOS, EOS)
                near = ", ".join(closest(w, [k for k in self.vocab if k not in special]))
                raise ValueError(
                    f"the word {shorten(w)} is not in the vocabulary of the model {self.name!r}; "
                    f"closest: {near}."
                )
            ids.append(i)
        return ids

    def unknown(self, text: str) -> list[str]:
        """The words of `text` the model reads as <unk> (none at character level)."""
        if self.level != "word":
            return []
        return [w for w in text.split() if w not in self.index and w not in (BOS, self.bos)]

    def _run(self, x: np.ndarray, h0: np.ndarray | None = None, c0: np.ndarray | None = None):
        """Every layer over x (T, e): ([h of each layer (T, d)], [c of each layer] or None)."""
        d = self.params.hidden_size
        hs, cs = [], []
        inp = x
        for k, p in enumerate(self.layers):
            hk = None if h0 is None else h0[k * d : (k + 1) * d]
            ck = None if c0 is None else c0[k * d : (k + 1) * d]
            h, c = forward(p, inp, hk, ck)
            hs.append(np.asarray(h))
            cs.append(None if c is None else np.asarray(c))
            inp = h
        return hs, (None if cs[0] is None else cs)

    def start(self, prompt_ids: Sequence[int]) -> LMState:
        ids = [self.bos_id, *prompt_ids]
        hs, cs = self._run(self.embedding[ids])
        h_last = np.concatenate([h[-1] for h in hs])
        c_last = None if cs is None else np.concatenate([c[-1] for c in cs])
        return LMState(h_last, c_last, self._logp(hs[-1][-1:])[0])

    def logprobs(self, states: Sequence[LMState]) -> np.ndarray:
        return np.stack([s.logp for s in states])

    def advance(self, states: Sequence[LMState], tokens: Sequence[int]) -> list[LMState]:
        inp = self.embedding[np.asarray(tokens, dtype=np.intp)]  # (B, e)
        d = self.params.hidden_size
        h_all = np.stack([s.h for s in states])
        c_all = _cell_states(states) if self.params.cell == "lstm" else None
        h_out, c_out = [], []
        for k, p in enumerate(self.layers):
            cols = slice(k * d, (k + 1) * d)
            h_new, c_new = step(p, inp, h_all[:, cols], None if c_all is None else c_all[:, cols])
            h_out.append(h_new)
            c_out.append(c_new)
            inp = h_new
        logp = self._logp(inp)
        h_cat = np.concatenate(h_out, axis=1) if len(h_out) > 1 else h_out[0]
        if c_all is None:
            return [LMState(h_cat[i], None, logp[i]) for i in range(len(tokens))]
        c_cat = np.concatenate(c_out, axis=1) if len(c_out) > 1 else c_out[0]
        return [LMState(h_cat[i], c_cat[i], logp[i]) for i in range(len(tokens))]

    def _logp(self, h: np.ndarray) -> np.ndarray:
        """Next-token log-probabilities from the top layer's h (B, d)."""
        logits = h @ self.out_weight.T + self.out_bias  # (B, V)
        if self.mask_bos and self.bos_id != self.eos_id:
            logits[:, self.bos_id] = -np.inf
        return log_softmax(logits)

    # --- for scenes and analysis -------------------------------------------------------------
    def inputs(self, text: str) -> tuple[list[int], np.ndarray]:
        """Token ids of `<s> text` and their embeddings (T, e), the core's input sequence."""
        ids = [self.bos_id, *self.encode(text)]
        return ids, self.embedding[ids]

    def trace(self, text: str) -> Trace:
        """A core Trace (states, gates, gradients) of the first layer reading `<s> text`."""
        return trace(self.params, self.inputs(text)[1])

    def top_states(self, x: np.ndarray) -> np.ndarray:
        """The top layer's h (T, d) over inputs x (T, e): what the head reads."""
        return self._run(x)[0][-1]

    def next_token_probs(self, text: str) -> dict[str, float]:
        """P(next token | <s> text) as a dict, most probable first."""
        lp = self.start(self.encode(text)).logp
        order = np.argsort(-lp, kind="stable")
        return {self.vocab[i]: float(np.exp(lp[i])) for i in order if np.isfinite(lp[i])}

    # --- files --------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, np.ndarray]:
        out = self.params.to_dict()
        for k, p in enumerate(self.upper, 1):
            out.update({f"{n}_l{k}": getattr(p, n) for n in _CELL_ARRAYS})
        if self.upper:
            out["num_layers"] = np.array(len(self.layers))
        if (self.bos, self.eos, self.mask_bos) != (BOS, EOS, True):
            out.update(bos_token=np.array(self.bos), eos_token=np.array(self.eos),
                       mask_bos=np.array(self.mask_bos))  # fmt: skip
        out.update(
            embedding=self.embedding,
            out_weight=self.out_weight,
            out_bias=self.out_bias,
            vocab=np.array(self.vocab, dtype=str),
            level=np.array(self.level),
        )
        return out

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the model as .npz atomically (temp file in the same directory, then rename)."""
        return save_model(path, KIND, self.to_dict())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> RNNLM:
        """Read a model written by `save`; any problem is a ValueError of one sentence."""
        p = Path(path)
        return cls.from_arrays(read_arrays(p, NOUN), p)

    @classmethod
    def from_arrays(cls, data: dict[str, np.ndarray], path: Path) -> RNNLM:
        """The model in a file's arrays (the "lm" kind's loader)."""
        p = path
        need = ("weight_ih_l0", "weight_hh_l0", "embedding", "out_weight", "out_bias", "vocab")
        missing = [k for k in need if k not in data]
        if missing:
            raise ValueError(
                f"the model file {str(p)!r} lacks {', '.join(missing)}; it was not written by "
                "`seqviz train`."
            )
        try:
            n_layers = int(data.get("num_layers", 1))
            if not 1 <= n_layers <= 64:
                raise ValueError(f"num_layers is {n_layers}, not between 1 and 64")
            missing = [f"weight_ih_l{k}" for k in range(n_layers) if f"weight_ih_l{k}" not in data]
            if missing:
                raise ValueError(f"it lacks {', '.join(missing)}")
            layers = [
                Params.from_arrays(
                    str(data.get("cell", "lstm")),
                    data[f"weight_ih_l{k}"],
                    data[f"weight_hh_l{k}"],
                    data.get(f"bias_ih_l{k}"),
                    data.get(f"bias_hh_l{k}"),
                    nonlinearity=str(data.get("nonlinearity", "tanh")),
                    variant=str(data.get("variant", "textbook")),
                )
                for k in range(n_layers)
            ]
            params = layers[0]
            return cls(
                params,
                np.asarray(data["embedding"], dtype=np.float64),
                np.asarray(data["out_weight"], dtype=np.float64),
                np.asarray(data["out_bias"], dtype=np.float64),
                tuple(str(t) for t in data["vocab"].tolist()),
                level=str(data.get("level", "word")),
                name=p.stem,
                upper=tuple(layers[1:]),
                bos=str(data.get("bos_token", BOS)),
                eos=str(data.get("eos_token", EOS)),
                mask_bos=bool(data.get("mask_bos", True)),
            )
        except (ValueError, TypeError) as exc:
            msg = str(exc).rstrip(".")
            raise ValueError(f"the model file {str(p)!r} is invalid: {msg}.") from None


def random_lm(
    vocab: Sequence[str], cell: str = "lstm", hidden: int = 32, emb: int = 16, *, seed: int = 0,
    level: str = "word", variant: str = "textbook",
) -> RNNLM:  # fmt: skip
    """An untrained model with small random weights (the starting point of training)."""
    rng = np.random.default_rng(seed)
    V = len(vocab)
    params = Params.random(
        cell, emb, hidden, seed=seed, variant=variant if cell == "gru" else "textbook"
    )
    return RNNLM(
        params,
        rng.normal(0, 0.3, (V, emb)),
        rng.normal(0, 1 / np.sqrt(hidden), (V, hidden)),
        np.zeros(V),
        tuple(vocab),
        level=level,
    )


register_kind(KIND, RNNLM.from_arrays, NOUN)
