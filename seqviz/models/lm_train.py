"""The "lm" kind as a Trainable: next-token cross-entropy through the core's truncated BPTT."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from seqviz.core.api import forward, trace
from seqviz.core.params import CELLS, Params
from seqviz.decoding.models import BOS, EOS
from seqviz.models.lm import LEVELS, RNNLM, UNK, log_softmax, random_lm

# names of the trainable arrays; the first four are the core cell's
NAMES = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "embedding", "out_weight", "out_bias")


@dataclass(frozen=True)
class LMConfig:
    """The model and data settings of an LM (the loop's settings are a `FitConfig`)."""

    cell: str = "lstm"
    hidden: int = 48
    emb: int = 16
    level: str = "word"
    seq_len: int = 32  # truncated BPTT: gradients flow back at most this many steps
    batch: int = 16  # sentences per update
    seed: int = 0  # initial weights
    variant: str = "textbook"  # GRU only

    def __post_init__(self) -> None:
        if self.cell not in CELLS:
            raise ValueError(f"unknown cell {self.cell!r}; allowed: {', '.join(CELLS)}.")
        if self.level not in LEVELS:
            raise ValueError(f"unknown level {self.level!r}; allowed: word, char.")
        for name in ("hidden", "emb", "seq_len", "batch"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name.replace('_', '-')} must be a whole number >= 1, got {v}.")


def default_lr(optimizer: str) -> float:
    """The learning rate `seqviz train` uses when none is given."""
    return 0.01 if optimizer == "adam" else 0.5


def read_corpus(path: str | Path, level: str) -> list[list[str]]:
    """The corpus as sentences of tokens: one sentence per non-empty line."""
    from seqviz.limits import read_text

    p = Path(path)
    text = read_text(p, "corpus", "text")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    sents = [ln.split() if level == "word" else list(ln) for ln in lines]
    if not sents:
        raise ValueError(f"the corpus {str(p)!r} has no text; put one sentence per line.")
    for s in sents:
        if BOS in s or EOS in s:
            raise ValueError("the corpus must not contain the markers <s> or </s> itself.")
    return sents


def replace_rare(sentences: list[list[str]], min_count: int) -> list[list[str]]:
    """Words seen fewer than `min_count` times replaced by <unk>, so the model learns what to
    make of a word it does not know (and reads any sentence); min_count 1 keeps every word."""
    from collections import Counter

    if min_count <= 1:
        return sentences
    counts = Counter(t for s in sentences for t in s)
    return [[t if counts[t] >= min_count else UNK for t in s] for s in sentences]


def build_vocab(sentences: list[list[str]]) -> tuple[str, ...]:
    return (BOS, EOS, *sorted({t for s in sentences for t in s}))


class TrainableLM:
    """An LM being trained: its weights as plain arrays, batches of sentences, and the loss."""

    def __init__(self, sentences: list[list[str]], config: LMConfig) -> None:
        self.config = config
        vocab = build_vocab(sentences)
        init = random_lm(
            vocab, config.cell, config.hidden, config.emb, seed=config.seed,
            level=config.level, variant=config.variant,
        )  # fmt: skip
        self.vocab = vocab
        self.index = {t: i for i, t in enumerate(vocab)}
        self.bos, self.eos = self.index[BOS], self.index[EOS]
        self.data = [
            np.array([self.bos, *(self.index[t] for t in s), self.eos], dtype=np.intp)
            for s in sentences
        ]
        p = init.params
        self.w = {
            "weight_ih": np.array(p.weight_ih),
            "weight_hh": np.array(p.weight_hh),
            "bias_ih": np.array(p.bias_ih),
            "bias_hh": np.array(p.bias_hh),
            "embedding": np.array(init.embedding),
            "out_weight": np.array(init.out_weight),
            "out_bias": np.array(init.out_bias),
        }
        self.n_tokens = int(sum(len(s) - 1 for s in self.data))
        self.name = "lm"

    # --- Trainable ---------------------------------------------------------------------------
    def parameters(self) -> dict[str, np.ndarray]:
        return self.w

    def set_dtype(self, dtype: str) -> None:
        """Train in float32 or float64 from now on (the saved model is float64 either way)."""
        from seqviz.core.blas import check_dtype

        dt = check_dtype(dtype)
        self.w = {k: np.ascontiguousarray(v, dt) for k, v in self.w.items()}

    def loss_and_grads(self, batch: list[np.ndarray]) -> tuple[float, dict[str, np.ndarray]]:
        """Mean per-token cross-entropy over `batch` (sentences of ids) and its gradients."""
        g, loss, n = self.gradients(batch)
        return loss / max(n, 1), g

    def save(self, path: str | os.PathLike[str]) -> Path:
        """The trained model as an "lm" file, written atomically; named after the file."""
        return self.model(Path(path).stem).save(path)

    # --- data --------------------------------------------------------------------------------
    def batches(self, epoch: int, rng: np.random.Generator) -> Iterator[list[np.ndarray]]:
        """One epoch of shuffled batches of sentences (the `batches` callable of `fit`)."""
        del epoch  # every epoch is a fresh shuffle of the same sentences
        order = rng.permutation(len(self.data))
        b = self.config.batch
        for i in range(0, len(order), b):
            yield [self.data[j] for j in order[i : i + b]]

    def n_batches(self) -> int:
        return -(-len(self.data) // self.config.batch)

    # --- the model ---------------------------------------------------------------------------
    def params(self) -> Params:
        w, c = self.w, self.config
        return Params.from_arrays(
            c.cell, w["weight_ih"], w["weight_hh"], w["bias_ih"], w["bias_hh"],
            variant=c.variant if c.cell == "gru" else "textbook",
        )  # fmt: skip

    def model(self, name: str = "lm") -> RNNLM:
        w = self.w
        f64 = np.float64
        return RNNLM(
            self.params(), w["embedding"].astype(f64), w["out_weight"].astype(f64),
            w["out_bias"].astype(f64),
            self.vocab, level=self.config.level, name=name,
        )  # fmt: skip

    def gradients(self, batch: list[np.ndarray]) -> tuple[dict[str, np.ndarray], float, int]:
        """Gradients of the mean per-token cross-entropy over `batch`, its total loss, tokens."""
        from seqviz.core.blas import uses_blas

        if uses_blas(self.w["weight_hh"].dtype, self.config.hidden):
            return self._blas_gradients(batch)
        params = self.params()
        w, seq_len, lstm = self.w, self.config.seq_len, self.config.cell == "lstm"
        g = {k: np.zeros_like(v) for k, v in w.items()}
        loss, n = 0.0, 0
        d = params.hidden_size
        for ids in batch:
            h0 = np.zeros(d)
            c0 = np.zeros(d) if lstm else None
            for s in range(0, len(ids) - 1, seq_len):
                inp = ids[s : s + seq_len]
                tgt = ids[s + 1 : s + seq_len + 1]
                inp = inp[: len(tgt)]
                x = w["embedding"][inp]  # (T, e)
                h, c = forward(params, x, h0, c0)  # (T, d)
                logits = h @ w["out_weight"].T + w["out_bias"]  # (T, V)
                logits[:, self.bos] = -np.inf
                logp = log_softmax(logits)
                rows = np.arange(len(tgt))
                loss -= float(logp[rows, tgt].sum())
                n += len(tgt)
                dlogits = np.exp(logp)
                dlogits[rows, tgt] -= 1.0
                if not (np.isfinite(loss) and np.isfinite(dlogits).all()):
                    # The weights blew up (a huge --lr): a nan loss lets fit() report that
                    # training diverged, where BPTT would refuse the non-finite gradient.
                    return g, float("nan"), max(n, 1)
                g["out_weight"] += dlogits.T @ h
                g["out_bias"] += dlogits.sum(axis=0)
                tr = trace(params, x, h0, c0, grad_out=dlogits @ w["out_weight"])
                g["weight_ih"] += tr.grad_weight_ih
                g["weight_hh"] += tr.grad_weight_hh
                g["bias_ih"] += tr.grad_bias_ih
                g["bias_hh"] += tr.grad_bias_hh
                np.add.at(g["embedding"], inp, tr.grad_x)
                # truncated BPTT: the next chunk starts from this state, as a constant
                h0 = h[-1]
                c0 = None if c is None else c[-1]
        for v in g.values():
            v /= max(n, 1)
        return g, loss, n

    def _blas_gradients(self, batch: list[np.ndarray]) -> tuple[dict[str, np.ndarray], float, int]:
        """gradients() on the batched BLAS kernels, in the weights' dtype: the sentences of one
        length go through together, chunk by chunk (truncated BPTT as in gradients())."""
        from seqviz.core.blas import blas_backward, blas_record
        from seqviz.core.blas_stack import group_by_length

        w, c = self.w, self.config
        cells = tuple(w[k] for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))
        variant = c.variant if c.cell == "gru" else "textbook"
        g = {k: np.zeros_like(v) for k, v in w.items()}
        loss, n = 0.0, 0
        for idx in group_by_length([len(s) for s in batch]):
            ids = np.stack([batch[i] for i in idx], axis=1)  # (L, B)
            h0 = c0 = None
            for s in range(0, len(ids) - 1, c.seq_len):
                tgt = ids[s + 1 : s + c.seq_len + 1]  # (T, B)
                inp = ids[s : s + len(tgt)]
                T, B = tgt.shape
                rec = blas_record(c.cell, cells, w["embedding"][inp], h0, c0, variant=variant)
                h = rec.h  # (T, B, d)
                logits = h @ w["out_weight"].T + w["out_bias"]  # (T, B, V)
                logits[..., self.bos] = -np.inf
                logp = log_softmax(logits)
                right = np.take_along_axis(logp, tgt[..., None], axis=2)
                loss -= float(right.astype(np.float64).sum())
                n += T * B
                dlogits = np.exp(logp)
                np.put_along_axis(dlogits, tgt[..., None], np.exp(right) - 1.0, axis=2)
                if not (np.isfinite(loss) and np.isfinite(dlogits).all()):
                    return g, float("nan"), max(n, 1)  # as in gradients(): fit() reports it
                V, d = dlogits.shape[2], h.shape[2]
                g["out_weight"] += dlogits.reshape(-1, V).T @ h.reshape(-1, d)
                g["out_bias"] += dlogits.sum(axis=(0, 1))
                out = blas_backward(rec, dlogits @ w["out_weight"], want_x=True)
                for k, v in out.weights().items():
                    g[k] += v
                np.add.at(g["embedding"], inp.ravel(), out.x.reshape(T * B, -1))  # type: ignore[union-attr]
                h0 = h[-1]  # truncated BPTT: the next chunk starts from this state
                c0 = rec.c[-1] if c.cell == "lstm" else None
        for v in g.values():
            v /= max(n, 1)
        return g, loss, n

    def mean_loss(self, sentences: list[np.ndarray] | None = None) -> float:
        """Mean per-token cross-entropy (nats) on `sentences` (default: the whole corpus)."""
        data = self.data if sentences is None else sentences
        params, w = self.params(), self.w
        loss, n = 0.0, 0
        for ids in data:
            # forward only: without truncation the states equal the chunked ones
            h, _ = forward(params, w["embedding"][ids[:-1]])
            logits = h @ w["out_weight"].T + w["out_bias"]
            logits[:, self.bos] = -np.inf
            loss -= float(log_softmax(logits)[np.arange(len(ids) - 1), ids[1:]].sum())
            n += len(ids) - 1
        return loss / max(n, 1)
