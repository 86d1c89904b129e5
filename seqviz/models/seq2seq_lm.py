"""A seq2seq model bound to decoding: the decoders' LanguageModel protocol, source as prompt.

The prompt is the source sentence; `encode` returns its ids (shifted past the target ids, so one
id space holds both) followed by <s>, so a search tree's root reads "<s>" and every later token is
a target word. `start(ids)` splits at that <s>: the source is encoded once (cached), the target
prefix after it is fed to the decoder."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from seqviz.models.seq2seq import Seq2Seq
from seqviz.models.translate import source_ids


class S2SState(NamedTuple):
    """A decoder state over one source: hidden (and cell) state, next-token log-probs, the
    attention row that produced them (None before the first step or without attention)."""

    h: np.ndarray  # (d,)
    c: np.ndarray | None  # (d,) for LSTM
    logp: np.ndarray  # (V,) over the conditional model's whole vocab (-inf for source words)
    attn: np.ndarray | None  # (S,)
    enc: np.ndarray  # (S, d) the encoder states, shared by all states of one source


class ConditionalLM:
    """P(target | source) as a language model whose prompt is the source."""

    level = "word"
    bos_id = 0
    eos_id = 1

    def __init__(self, model: Seq2Seq, name: str | None = None) -> None:
        self.model = model
        self.name = name or model.name
        self.n_tgt = len(model.tgt_vocab)
        self.vocab = model.tgt_vocab + model.src_vocab
        self._enc: dict[tuple[int, ...], np.ndarray] = {}
        self._dec = model.cell("dec")

    def encode(self, text: str) -> list[int]:
        """Source words as ids, then <s>; unknown words or bad lengths raise ValueError."""
        return [int(i) + self.n_tgt for i in source_ids(self.model, text)] + [self.bos_id]

    def split(self, prompt_ids: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(source ids in the model's source vocabulary, target prefix ids)."""
        ids = list(prompt_ids)
        k = max(i for i, t in enumerate(ids) if t == self.bos_id) if self.bos_id in ids else 0
        src = tuple(t - self.n_tgt for t in ids[:k])
        if not src or min(src) < 0:
            raise ValueError("the prompt must be a source sentence (type the words to translate).")
        return src, tuple(ids[k + 1 :])

    def encoder_states(self, src: tuple[int, ...]) -> np.ndarray:
        H = self._enc.get(src)
        if H is None:
            if len(self._enc) > 64:
                self._enc.clear()
            H = self._enc[src] = self.model.encode(np.array(src, dtype=np.intp))
        return H

    def start(self, prompt_ids: Sequence[int]) -> S2SState:
        src, prefix = self.split(prompt_ids)
        H = self.encoder_states(src)
        h, c = self.model.start_state(H)
        state = S2SState(h, c, np.zeros(0), None, H)
        for tok in (self.bos_id, *prefix):
            state = self.advance([state], [tok])[0]
        return state

    def logprobs(self, states: Sequence[S2SState]) -> np.ndarray:
        return np.stack([s.logp for s in states])

    def advance(self, states: Sequence[S2SState], tokens: Sequence[int]) -> list[S2SState]:
        out: list[S2SState | None] = [None] * len(states)
        groups: dict[int, list[int]] = {}
        for i, s in enumerate(states):
            groups.setdefault(id(s.enc), []).append(i)
        pad = np.full(len(self.vocab) - self.n_tgt, -np.inf)
        for idx in groups.values():
            H = states[idx[0]].enc
            new, logp, attn = self.model.decode_batch(
                H, [(states[i].h, states[i].c) for i in idx], [tokens[i] for i in idx], self._dec
            )
            for j, i in enumerate(idx):
                row = None if attn is None else attn[j]
                out[i] = S2SState(new[j][0], new[j][1], np.concatenate([logp[j], pad]), row, H)
        return [s for s in out if s is not None]
