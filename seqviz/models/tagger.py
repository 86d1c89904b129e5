"""The tagger: embedding -> (bi)LSTM/GRU stack -> per-token softmax over BIO tags, a Trainable."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from seqviz.core.stack import StackTrace, forward_stack, trace_stack
from seqviz.core.stack_params import StackParams
from seqviz.models.format import register_kind, save_model
from seqviz.tasks import tagging as task

KIND = "tagger"
_SETTINGS = ("cell", "nonlinearity", "variant", "num_layers", "bidirectional")
SUFFIX_BUCKETS = 8
SHAPES = ("capitalised", "all caps", "digits", "lower case")
N_SHAPE = len(SHAPES) + SUFFIX_BUCKETS
WORD_DROPOUT = 0.2  # share of training words read as <unk>, so that <unk> means something


def shape_features(words: list[str] | tuple[str, ...]) -> np.ndarray:
    """(T, N_SHAPE) what each word looks like: capitalised, all caps, holds a digit, all lower
    case, and its last three letters hashed into one of SUFFIX_BUCKETS (crc32, stable)."""
    import zlib

    out = np.zeros((len(words), N_SHAPE))
    for t, w in enumerate(words):
        letters = [c for c in w if c.isalpha()]
        out[t, 0] = float(bool(letters) and w[0].isupper() and not w.isupper())
        out[t, 1] = float(len(letters) > 1 and w.isupper())
        out[t, 2] = float(any(c.isdigit() for c in w))
        out[t, 3] = float(bool(letters) and w.islower())
        bucket = zlib.crc32(w[-3:].lower().encode("utf-8")) % SUFFIX_BUCKETS
        out[t, len(SHAPES) + bucket] = 1.0
    return out


@dataclass(frozen=True)
class Batch:
    """Sentences as word ids and tag ids, one pair of (T,) int arrays each."""

    words: tuple[np.ndarray, ...]
    tags: tuple[np.ndarray, ...]
    shapes: tuple[np.ndarray, ...] = ()  # (T, N_SHAPE) per sentence, for a tagger that sees them


@dataclass(frozen=True)
class Tagging:
    """The tagger's reading of one sentence, with everything a scene shows."""

    words: tuple[str, ...]
    tags: tuple[str, ...]  # argmax tag per word
    probs: np.ndarray  # (T, C) softmax per word
    trace: StackTrace  # states of every layer and direction
    unknown: tuple[bool, ...] = ()  # words read as <unk> (by their shape and context)

    @property
    def confidence(self) -> np.ndarray:
        """(T,) probability of the chosen tag."""
        return self.probs.max(axis=1)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


class Tagger:
    """emb (V, e) -> stack (PyTorch keys) -> logits = h @ w_out.T + b_out over TAGS."""

    def __init__(
        self,
        arrays: dict[str, np.ndarray],
        settings: dict[str, Any],
        vocab: tuple[str, ...],
        tags: tuple[str, ...] = task.TAGS,
    ) -> None:
        self._p = {k: np.array(v, dtype=np.float64) for k, v in arrays.items()}  # writable
        self.settings = dict(settings)
        self.vocab = tuple(vocab)
        self.tags = tuple(tags)
        self._index = {w: i for i, w in enumerate(self.vocab)}
        self.shapes = bool(self.settings.get("shape", False))
        self.settings["shape"] = self.shapes
        stack = self.stack  # validates the recurrent part
        width = stack.input_size - (N_SHAPE if self.shapes else 0)
        if self._p["emb"].shape != (len(self.vocab), width):
            raise ValueError(
                f"emb has shape {self._p['emb'].shape}, expected "
                f"({len(self.vocab)}, {width}) for {len(self.vocab)} words."
            )
        if self._p["w_out"].shape != (len(self.tags), stack.output_size):
            raise ValueError(
                f"w_out has shape {self._p['w_out'].shape}, expected "
                f"({len(self.tags)}, {stack.output_size})."
            )

    @classmethod
    def random(
        cls,
        cell: str = "lstm",
        hidden: int = 24,
        emb: int = 16,
        layers: int = 1,
        bidirectional: bool = True,
        seed: int = 0,
        shape: bool = True,
    ) -> Tagger:
        """With `shape`, the tagger knows <unk> and sees each word's shape beside its vector."""
        vocab = (*task.vocabulary(), task.UNK) if shape else task.vocabulary()
        n_in = emb + (N_SHAPE if shape else 0)
        stack = StackParams.random(cell, n_in, hidden, layers, bidirectional, seed=seed)
        rng = np.random.default_rng([seed, 1])
        arrays = {k: v for k, v in stack.to_dict().items() if k.startswith(("weight", "bias"))}
        arrays["emb"] = rng.normal(0.0, 0.5, (len(vocab), emb))
        arrays["w_out"] = rng.normal(0.0, 1.0 / np.sqrt(stack.output_size),
                                     (len(task.TAGS), stack.output_size))  # fmt: skip
        arrays["b_out"] = np.zeros(len(task.TAGS))
        settings = {k: getattr(stack, k) for k in _SETTINGS}
        return cls(arrays, {**settings, "shape": shape}, vocab)

    @property
    def stack(self) -> StackParams:
        """The recurrent stack as core StackParams (a snapshot of the current weights)."""
        state = {k: v for k, v in self._p.items() if k.startswith(("weight", "bias"))}
        return StackParams.from_state_dict(
            state, nonlinearity=str(self.settings["nonlinearity"]),
            variant=str(self.settings["variant"]),
        )  # fmt: skip

    @property
    def bidirectional(self) -> bool:
        return bool(self.settings["bidirectional"])

    def describe(self) -> str:
        shape = " + word shape" if self.shapes else ""
        return self.stack.describe() + f", embedding {self._p['emb'].shape[1]}{shape}"

    def parameters(self) -> dict[str, np.ndarray]:
        return self._p

    @property
    def unk_id(self) -> int | None:
        return self._index.get(task.UNK)

    @property
    def dtype(self) -> np.dtype:
        return self._p["w_out"].dtype

    def set_dtype(self, dtype: str) -> None:
        """Train in float32 or float64 from now on (the file is float64 either way)."""
        from seqviz.core.blas import check_dtype

        dt = check_dtype(dtype)
        self._p = {k: np.ascontiguousarray(v, dt) for k, v in self._p.items()}

    def ids(self, words: list[str] | tuple[str, ...]) -> np.ndarray:
        """Word ids; an unknown word is <unk> for a tagger that knows it (else a KeyError)."""
        unk = self.unk_id
        if unk is None:
            return np.array([self._index[w] for w in words], dtype=np.int64)
        return np.array([self._index.get(w, unk) for w in words], dtype=np.int64)

    def inputs(self, words: list[str] | tuple[str, ...], ids: np.ndarray | None = None,
               shapes: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
        """(T, input_size) what the stack reads: each word's vector, then its shape."""
        x = self._p["emb"][self.ids(words) if ids is None else ids]
        if not self.shapes:
            return x
        return np.concatenate([x, shape_features(words) if shapes is None else shapes], axis=1)

    def encode(self, sentences: list[task.Tagged]) -> Batch:
        tag_index = {t: i for i, t in enumerate(self.tags)}
        return Batch(
            tuple(self.ids(s.words) for s in sentences),
            tuple(np.array([tag_index[t] for t in s.tags], dtype=np.int64) for s in sentences),
            tuple(shape_features(s.words) for s in sentences) if self.shapes else (),
        )

    def logits(self, stack: StackParams, words: list[str] | tuple[str, ...]) -> np.ndarray:
        h = forward_stack(stack, self.inputs(words))  # (T, D*d)
        return h @ self._p["w_out"].T + self._p["b_out"]  # (T, C)

    def loss_and_grads(self, batch: Batch) -> tuple[float, dict[str, np.ndarray]]:
        """Mean cross-entropy over the batch's tokens, and its gradient by the core's BPTT."""
        from seqviz.core.blas import uses_blas

        if uses_blas(self.dtype, int(self._p["weight_hh_l0"].shape[1])):
            return self._blas_loss_and_grads(batch)
        stack = self.stack
        grads = {k: np.zeros_like(v) for k, v in self._p.items()}
        n_tokens = sum(len(t) for t in batch.tags)
        total = 0.0
        w_out = self._p["w_out"]
        e = self._p["emb"].shape[1]
        shapes = batch.shapes or (None,) * len(batch.words)
        for ids, tags, shape in zip(batch.words, batch.tags, shapes, strict=True):
            x = self._p["emb"][ids]  # (T, e)
            if shape is not None:
                x = np.concatenate([x, shape], axis=1)
            h = forward_stack(stack, x)  # (T, D*d)
            p = _softmax(h @ w_out.T + self._p["b_out"])  # (T, C)
            rows = np.arange(len(tags))
            total -= float(np.log(np.maximum(p[rows, tags], 1e-300)).sum())
            g_logits = p.copy()
            g_logits[rows, tags] -= 1.0
            g_logits /= n_tokens  # (T, C)
            tr = trace_stack(stack, x, grad_out=g_logits @ w_out)
            for k, g in tr.grads().items():
                grads[k] += g
            grads["w_out"] += g_logits.T @ h
            grads["b_out"] += g_logits.sum(axis=0)
            np.add.at(grads["emb"], ids, tr.grad_x[:, :e])
        return total / n_tokens, grads

    def _blas_loss_and_grads(self, batch: Batch) -> tuple[float, dict[str, np.ndarray]]:
        """loss_and_grads on the batched BLAS kernels, in the model's dtype: the sentences of
        one length go through the stack together."""
        from seqviz.core.blas_stack import group_by_length, stack_backward, stack_record

        p, s = self._p, self.settings
        grads = {k: np.zeros_like(v) for k, v in p.items()}
        n_tokens = sum(len(t) for t in batch.tags)
        total = 0.0
        e = p["emb"].shape[1]
        for idx in group_by_length([len(w) for w in batch.words]):
            ids = np.stack([batch.words[i] for i in idx], axis=1)  # (T, B)
            tags = np.stack([batch.tags[i] for i in idx], axis=1)
            x = p["emb"][ids]  # (T, B, e)
            if batch.shapes:
                shape = np.stack([batch.shapes[i] for i in idx], axis=1)  # (T, B, N_SHAPE)
                x = np.concatenate([x, shape.astype(x.dtype)], axis=2)
            rec = stack_record(
                str(s["cell"]), p, int(s["num_layers"]), bool(s["bidirectional"]), x,
                variant=str(s["variant"]), nonlinearity=str(s["nonlinearity"]),
            )  # fmt: skip
            h = rec.out  # (T, B, D*d)
            prob = _softmax(h @ p["w_out"].T + p["b_out"])  # (T, B, C)
            right = np.take_along_axis(prob, tags[..., None], axis=2)[..., 0]
            total -= float(np.log(np.maximum(right.astype(np.float64), 1e-300)).sum())
            g_logits = prob
            np.put_along_axis(g_logits, tags[..., None], right[..., None] - 1.0, axis=2)
            g_logits /= n_tokens
            g_cells, g_x = stack_backward(rec, g_logits @ p["w_out"])
            for k, g in g_cells.items():
                grads[k] += g
            C, n = g_logits.shape[2], h.shape[2]
            grads["w_out"] += g_logits.reshape(-1, C).T @ h.reshape(-1, n)
            grads["b_out"] += g_logits.sum(axis=(0, 1))
            np.add.at(grads["emb"], ids.ravel(), g_x[..., :e].reshape(-1, e))
        return total / n_tokens, grads

    def tag_words(self, words: list[str] | tuple[str, ...]) -> Tagging:
        """Tags, probabilities and the full trace for known words (see tag() for raw text)."""
        stack = self.stack
        tr = trace_stack(stack, self.inputs(words))
        probs = _softmax(tr.h @ self._p["w_out"].T + self._p["b_out"])
        tags = tuple(self.tags[i] for i in probs.argmax(axis=1))
        unknown = tuple(w not in self._index for w in words)
        return Tagging(tuple(words), tags, probs, tr, unknown)

    def tag(self, text: str) -> Tagging:
        """Tag a typed sentence; an unknown word is a ValueError naming the closest known ones."""
        return self.tag_words(task.tokenize(text, self.vocab))

    def evaluate(self, sentences: list[task.Tagged]) -> dict[str, float]:
        """Token accuracy overall, on right-context words (ambiguous starts) and on the rest."""
        stack = self.stack
        right = [0, 0]
        other = [0, 0]
        for s in sentences:
            pred = self.logits(stack, s.words).argmax(axis=1)
            for t, tag in enumerate(s.tags):
                bucket = right if s.right[t] else other
                bucket[0] += int(self.tags[pred[t]] == tag)
                bucket[1] += 1
        n = right[1] + other[1]
        return {
            "accuracy": (right[0] + other[0]) / max(n, 1),
            "right_context_accuracy": right[0] / max(right[1], 1),
            "other_accuracy": other[0] / max(other[1], 1),
            "tokens": float(n),
            "right_context_tokens": float(right[1]),
        }

    def save(self, path: str | os.PathLike[str]) -> Path:
        meta = {k: np.array(v) for k, v in self.settings.items()}
        meta["vocab"], meta["tags"] = np.array(self.vocab), np.array(self.tags)
        arrays = {k: v.astype(np.float64) for k, v in self._p.items()}
        return save_model(path, KIND, {**arrays, **meta})

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], path: Path) -> Tagger:
        need = ("emb", "w_out", "b_out", "vocab", "tags", *_SETTINGS)
        missing = [k for k in need if k not in arrays]
        if missing:
            raise ValueError(
                f"{str(path)!r} is not a seqviz tagger: it lacks {', '.join(missing)}."
            )
        settings: dict[str, Any] = {k: arrays[k].item() for k in _SETTINGS}
        settings["shape"] = bool(arrays["shape"].item()) if "shape" in arrays else False
        weights = {k: v for k, v in arrays.items() if k.startswith(("weight", "bias"))}
        weights.update(emb=arrays["emb"], w_out=arrays["w_out"], b_out=arrays["b_out"])
        try:
            return cls(weights, settings, tuple(map(str, arrays["vocab"])),
                       tuple(map(str, arrays["tags"])))  # fmt: skip
        except ValueError as exc:
            raise ValueError(f"{str(path)!r} is not a valid tagger: {exc}") from None


def batches_for(model: Tagger, sentences: list[task.Tagged], batch: int) -> Any:
    """The batches callable of seqviz.training.fit: the sentences shuffled every epoch; a tagger
    that knows <unk> reads a fresh WORD_DROPOUT share of the words as <unk> each epoch (their
    shapes kept), so that it learns to tag a word it never saw by its form and context."""
    encoded = model.encode(sentences)
    unk = model.unk_id

    def make(epoch: int, rng: np.random.Generator) -> Any:
        order = rng.permutation(len(sentences))
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            words = tuple(encoded.words[i] for i in idx)
            if unk is not None:
                words = tuple(np.where(rng.random(len(w)) < WORD_DROPOUT, unk, w) for w in words)
            shapes = tuple(encoded.shapes[i] for i in idx) if encoded.shapes else ()
            yield Batch(words, tuple(encoded.tags[i] for i in idx), shapes)

    return make


register_kind(KIND, Tagger.from_arrays, "a seqviz tagger")


def load_tagger(name_or_path: str) -> Tagger:
    """A shipped tagger by name (tagger-bi, tagger-uni) or a tagger file by path."""
    from seqviz.models import load

    model = load(name_or_path, kind=KIND)
    if not isinstance(model, Tagger):
        raise ValueError(f"{name_or_path!r} is not a tagger.")
    return model


SHIPPED = ("tagger-bi", "tagger-uni")


def measure(n_sentences: int = 1000) -> list[dict[str, Any]]:
    """Both shipped taggers on the same held-out sentences (what docs/models-guide.md reports)."""
    test = task.held_out(n_sentences)
    rows = []
    for name in SHIPPED:
        model = load_tagger(name)
        rows.append({"model": name, "network": model.describe(), **model.evaluate(test)})
    return rows
