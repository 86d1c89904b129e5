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
from seqviz.decoding.models import BOS, EOS, closest, encode_words
from seqviz.models.format import format_tag, read_arrays, register_kind, save_model

KIND = "lm"
FORMAT = format_tag(KIND)
LEVELS = ("word", "char")
NOUN = "a seqviz language model (an .npz written by `seqviz train`)"


class LMState(NamedTuple):
    """Hidden state after some tokens, and the next-token log-probabilities it gives."""

    h: np.ndarray  # (d,)
    c: np.ndarray | None  # (d,) for LSTM
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
    its output logit is masked, so it is never predicted."""

    params: Params
    embedding: np.ndarray  # (V, e)
    out_weight: np.ndarray  # (V, d)
    out_bias: np.ndarray  # (V,)
    vocab: tuple[str, ...]
    level: str = "word"
    name: str = "lm"
    index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        V = len(self.vocab)
        if self.level not in LEVELS:
            raise ValueError(f"level must be 'word' or 'char', got {self.level!r}.")
        if BOS not in self.vocab or EOS not in self.vocab or len(set(self.vocab)) != V:
            raise ValueError("the vocabulary must hold <s> and </s> and no token twice.")
        d, e = self.params.hidden_size, self.params.input_size
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
        return self.index[BOS]

    @property
    def eos_id(self) -> int:
        return self.index[EOS]

    # --- the LanguageModel protocol --------------------------------------------------------
    def encode(self, text: str) -> list[int]:
        """Prompt text as token ids (words split on whitespace, or characters)."""
        if self.level == "word":
            ids = encode_words(text, self.index, self.bos_id, f"the model {self.name!r}")
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
        if ids and ids[-1] == self.eos_id:
            raise ValueError("the prompt ends with </s>, so there is nothing left to decode.")
        return ids

    def start(self, prompt_ids: Sequence[int]) -> LMState:
        ids = [self.bos_id, *prompt_ids]
        h, c = forward(self.params, self.embedding[ids])
        last_c = None if c is None else c[-1]
        return LMState(h[-1], last_c, self._logp(h[-1:])[0])

    def logprobs(self, states: Sequence[LMState]) -> np.ndarray:
        return np.stack([s.logp for s in states])

    def advance(self, states: Sequence[LMState], tokens: Sequence[int]) -> list[LMState]:
        x = self.embedding[np.asarray(tokens, dtype=np.intp)]  # (B, e)
        h = np.stack([s.h for s in states])
        c = _cell_states(states) if self.params.cell == "lstm" else None
        h_new, c_new = step(self.params, x, h, c)
        logp = self._logp(h_new)
        if c_new is None:
            return [LMState(h_new[i], None, logp[i]) for i in range(len(tokens))]
        return [LMState(h_new[i], c_new[i], logp[i]) for i in range(len(tokens))]

    def _logp(self, h: np.ndarray) -> np.ndarray:
        logits = h @ self.out_weight.T + self.out_bias  # (B, V)
        logits[:, self.bos_id] = -np.inf
        return log_softmax(logits)

    # --- for scenes and analysis -------------------------------------------------------------
    def inputs(self, text: str) -> tuple[list[int], np.ndarray]:
        """Token ids of `<s> text` and their embeddings (T, e), the core's input sequence."""
        ids = [self.bos_id, *self.encode(text)]
        return ids, self.embedding[ids]

    def trace(self, text: str) -> Trace:
        """A core Trace (states, gates, gradients) of the model reading `<s> text`."""
        return trace(self.params, self.inputs(text)[1])

    def next_token_probs(self, text: str) -> dict[str, float]:
        """P(next token | <s> text) as a dict, most probable first."""
        lp = self.start(self.encode(text)).logp
        order = np.argsort(-lp, kind="stable")
        return {self.vocab[i]: float(np.exp(lp[i])) for i in order if np.isfinite(lp[i])}

    # --- files --------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, np.ndarray]:
        out = self.params.to_dict()
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
            params = Params.from_arrays(
                str(data.get("cell", "lstm")),
                data["weight_ih_l0"],
                data["weight_hh_l0"],
                data.get("bias_ih_l0"),
                data.get("bias_hh_l0"),
                nonlinearity=str(data.get("nonlinearity", "tanh")),
                variant=str(data.get("variant", "textbook")),
            )
            return cls(
                params,
                np.asarray(data["embedding"], dtype=np.float64),
                np.asarray(data["out_weight"], dtype=np.float64),
                np.asarray(data["out_bias"], dtype=np.float64),
                tuple(str(t) for t in data["vocab"].tolist()),
                level=str(data.get("level", "word")),
                name=p.stem,
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
