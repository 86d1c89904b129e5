"""Whole PyTorch language models in and out: embedding, recurrent stack and head found by shape.

A state_dict of an embedding (V x E), one nn.RNN/LSTM/GRU (any layers, one direction) and a
Linear head (V x H, bias optional, possibly tied to the embedding), under any module names, is
read as an `RNNLM`; `export` writes an `RNNLM` back as such a state_dict with its vocabulary.
torch is imported only here, and files are read with `torch.load(weights_only=True)`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from seqviz.limits import read_text, shorten, shown
from seqviz.models.lm import RNNLM

_RNN_KEY = re.compile(r"^(.*?)(weight_ih|weight_hh|bias_ih|bias_hh|weight_hr)_l(\d+)(_reverse)?$")
STARTS = ("<s>", "<eos>")  # the token a sentence starts with: the first of these in the vocabulary
ENDS = ("</s>", "<eos>")
TORCH_SUFFIXES = (".pt", ".pth", ".bin")


def is_torch_file(path: str | os.PathLike[str]) -> bool:
    """Whether a path names a PyTorch file (by its suffix) rather than a seqviz .npz."""
    return Path(path).suffix.lower() in TORCH_SUFFIXES


def read_vocab(path: str | os.PathLike[str]) -> tuple[str, ...]:
    """A vocabulary in index order: a JSON list of strings, or one token per line."""
    text = read_text(path, "vocabulary file", "text")
    name = shown(path)
    if Path(path).suffix.lower() == ".json" or text.lstrip().startswith("["):
        try:
            tokens = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            tokens = None
        if isinstance(tokens, list) and all(isinstance(t, str) for t in tokens):
            vocab = tuple(tokens)
        elif Path(path).suffix.lower() == ".json":
            raise ValueError(f"the vocabulary file {name} is not a JSON list of strings.")
        else:
            vocab = _lines(text, name)
    else:
        vocab = _lines(text, name)
    if not vocab:
        raise ValueError(f"the vocabulary file {name} holds no tokens; put one per line.")
    seen: dict[str, int] = {}
    for i, t in enumerate(vocab):
        if t in seen:
            raise ValueError(
                f"the vocabulary file {name} lists {shorten(t)} twice (entries {seen[t] + 1} and "
                f"{i + 1}); each token must have one index."
            )
        seen[t] = i
    return vocab


def _lines(text: str, name: str) -> tuple[str, ...]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline
    out = []
    for n, line in enumerate(lines, 1):
        token = line.rstrip("\r")
        if not token.strip():
            raise ValueError(
                f"line {n} of the vocabulary file {name} is blank; put one token per line "
                "(a JSON list can hold a space token)."
            )
        out.append(token.strip())
    return tuple(out)


@dataclass(frozen=True)
class Layout:
    """Where each part of a PyTorch LM sits in its state_dict."""

    embedding: str  # key of the (V, E) embedding
    head: str  # key of the (V, H) head weight
    head_bias: str | None  # key of its (V,) bias, if any
    rnn: str  # prefix of the recurrent module's keys ("rnn.")
    cell: str
    layers: int
    hidden: int
    tied: bool
    by_order: bool  # embedding and head told apart by their order in the file only

    def describe(self, vocab_size: int, start: str) -> str:
        depth = f"{self.layers}-layer " if self.layers > 1 else "1-layer "
        bias = f" + {self.head_bias}" if self.head_bias else " (no bias)"
        tied = ", tied to the embedding" if self.tied else ""
        order = " (embedding and head told apart by their order)" if self.by_order else ""
        return (
            f"embedding {self.embedding} -> {depth}{self.cell.upper()} {self.rnn}* (hidden "
            f"{self.hidden}) -> head {self.head}{bias}{tied}; {vocab_size} tokens, sentences "
            f"start with {start}{order}."
        )


def _shape(a: np.ndarray) -> str:
    return "(" + ", ".join(str(n) for n in a.shape) + ")"


def find_layout(state: dict[str, np.ndarray], vocab_size: int) -> Layout:
    """The embedding, recurrent stack and head of a state_dict, found by their shapes."""
    from seqviz.core.params import _infer_cell

    rnn_keys: dict[str, list[str]] = {}
    for k in state:
        m = _RNN_KEY.match(k)
        if m:
            rnn_keys.setdefault(m[1], []).append(k)
    if not rnn_keys:
        raise ValueError(
            "the state_dict holds no recurrent network (keys ending in weight_ih_l0, as nn.RNN, "
            f"nn.LSTM and nn.GRU name them); its keys: {_names(state)}."
        )
    if len(rnn_keys) > 1:
        firsts = ", ".join(f"{p}weight_ih_l0" for p in sorted(rnn_keys))
        raise ValueError(
            f"the state_dict holds several recurrent networks ({firsts}); one is read."
        )
    prefix, keys = next(iter(rnn_keys.items()))
    rev = [k for k in keys if k.endswith("_reverse")]
    if rev:
        raise ValueError(
            f"{rev[0]} belongs to a bidirectional network, which cannot predict the next word; "
            "a language model's RNN reads one direction."
        )
    proj = [k for k in keys if "weight_hr" in k]
    if proj:
        raise ValueError(
            f"{proj[0]} is an LSTM projection (proj_size), which seqviz does not read."
        )
    w_ih, w_hh = state.get(prefix + "weight_ih_l0"), state.get(prefix + "weight_hh_l0")
    if w_ih is None or w_hh is None or w_ih.ndim != 2 or w_hh.ndim != 2:
        raise ValueError(f"{prefix}weight_ih_l0 and {prefix}weight_hh_l0 must both be matrices.")
    cell = _infer_cell(w_ih, w_hh)
    E, H = int(w_ih.shape[1]), int(w_hh.shape[1])
    layers = 1 + max(int(_RNN_KEY.match(k)[3]) for k in keys)  # type: ignore[index]

    rest = {k: v for k, v in state.items() if k not in keys}
    mats = {k: v for k, v in rest.items() if v.ndim == 2}
    for k, v in rest.items():
        if v.ndim not in (1, 2):
            raise ValueError(
                f"{k} {_shape(v)} is neither the embedding, the head nor its bias; a language "
                "model here is an embedding, one nn.RNN/LSTM/GRU and a Linear head."
            )
    wrong_v = [k for k, v in mats.items() if v.shape[0] != vocab_size]
    if wrong_v:
        k = wrong_v[0]
        raise ValueError(
            f"{k} has {mats[k].shape[0]} rows but the vocabulary has {vocab_size} tokens; "
            f"the vocabulary must list the model's tokens in index order ({k} {_shape(mats[k])})."
        )
    biased = {k for k in mats if k.endswith("weight") and k[:-6] + "bias" in rest}
    emb_c = [k for k in mats if mats[k].shape[1] == E and k not in biased]
    head_c = [k for k in mats if mats[k].shape[1] == H]
    if not emb_c:
        raise ValueError(
            f"no embedding of {E} columns, the input size of {prefix}weight_ih_l0 "
            f"{_shape(w_ih)}; the other matrices: {_names(mats)}."
        )
    if not head_c:
        raise ValueError(
            f"no head of {H} columns, the hidden size of {prefix}weight_hh_l0 "
            f"{_shape(w_hh)}; the other matrices: {_names(mats)}."
        )
    by_order = False
    with_bias = [k for k in head_c if k in biased]
    if with_bias:
        head, emb = with_bias[0], emb_c[0]
    elif len(mats) == 1:
        emb = head = next(iter(mats))  # one matrix serving both (E == H)
    else:
        emb = emb_c[0]
        others = [k for k in head_c if k != emb]
        head = others[0] if others else emb
        by_order = E == H and head != emb and not np.array_equal(mats[emb], mats[head])
    head_bias = head[:-6] + "bias" if head in biased else None
    used = {emb, head, *(k for k in [head_bias] if k)}
    extra = [k for k in rest if k not in used]
    if extra:
        raise ValueError(
            f"the state_dict has {', '.join(extra[:3])} besides the embedding {emb}, the "
            f"recurrent network {prefix}* and the head {head}; seqviz reads exactly these three."
        )
    if head_bias is not None and rest[head_bias].shape != (vocab_size,):
        raise ValueError(f"{head_bias} has shape {_shape(rest[head_bias])}, not ({vocab_size},).")
    tied = emb == head or np.array_equal(mats[emb], mats[head])
    return Layout(emb, head, head_bias, prefix, cell, layers, H, tied, by_order)


def _names(state: dict[str, np.ndarray]) -> str:
    return ", ".join(f"{k} {_shape(v)}" for k, v in list(state.items())[:6]) or "none"


def from_state_dict(
    state: dict[str, np.ndarray],
    vocab: tuple[str, ...],
    *,
    name: str = "lm",
    nonlinearity: str = "tanh",
) -> tuple[RNNLM, str]:
    """The RNNLM of a PyTorch LM's arrays and vocabulary, and a line describing what was read."""
    from seqviz.core.stack_params import StackParams

    layout = find_layout(state, len(vocab))
    own = {
        k[len(layout.rnn) :]: v
        for k, v in state.items()
        if k.startswith(layout.rnn) and _RNN_KEY.match(k)
    }
    try:
        stack = StackParams.from_state_dict(own, nonlinearity=nonlinearity, variant="pytorch")
    except ValueError as exc:
        raise ValueError(f"{layout.rnn}*: {str(exc).rstrip('.')}.") from None
    start = next((t for t in STARTS if t in vocab), None)
    end = next((t for t in ENDS if t in vocab), None)
    if start is None or end is None:
        raise ValueError(
            "the vocabulary has neither <s> nor <eos>; a sentence starts with one of them "
            "(<eos> in PyTorch's word-language-model example)."
        )
    singles = [t for t in vocab if t not in (*STARTS, *ENDS, "<unk>", "<pad>")]
    level = "char" if " " in vocab and all(len(t) == 1 for t in singles) else "word"
    bias = state[layout.head_bias] if layout.head_bias else np.zeros(len(vocab))
    lm = RNNLM(
        stack.cells[0],
        np.array(state[layout.embedding], dtype=np.float64),
        np.array(state[layout.head], dtype=np.float64),
        np.array(bias, dtype=np.float64),
        vocab,
        level=level,
        name=name,
        upper=stack.cells[1:],
        bos=start,
        eos=end,
        mask_bos=False,
    )
    line = layout.describe(len(vocab), start)
    if layout.cell == "rnn":
        line = line[:-1] + f"; {nonlinearity} assumed (an nn.RNN's file does not record it)."
    return lm, line


def load(
    weights: str | os.PathLike[str], vocab: str | os.PathLike[str], *, nonlinearity: str = "tanh"
) -> tuple[RNNLM, str]:
    """A PyTorch LM from its state_dict file and vocabulary file, and the line announcing it."""
    from seqviz.core.torch_io import load_state_dict

    state = load_state_dict(Path(weights))
    tokens = read_vocab(vocab)
    try:
        lm, line = from_state_dict(
            state, tokens, name=Path(weights).stem, nonlinearity=nonlinearity
        )
    except ValueError as exc:
        raise ValueError(f"{shown(weights)}: {str(exc).rstrip('.')}.") from None
    return lm, f"{shown(weights)}: {line}"


def to_state_dict(lm: RNNLM) -> dict[str, np.ndarray]:
    """An RNNLM as arrays under the keys of PyTorch's word-language-model example."""
    p = lm.params
    if p.cell == "gru" and p.variant != "pytorch":
        raise ValueError(
            f"the model {lm.name!r} is a textbook GRU (its reset gate acts before the recurrent "
            "weights), which nn.GRU cannot compute; train it with `seqviz train --cell gru "
            "--variant pytorch` to export."
        )
    if p.cell == "rnn" and p.nonlinearity not in ("tanh", "relu"):
        raise ValueError(f"nn.RNN has no {p.nonlinearity} nonlinearity; only tanh and relu.")
    out = {"encoder.weight": np.asarray(lm.embedding)}
    for k, layer in enumerate(lm.layers):
        for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            out[f"rnn.{n}_l{k}"] = np.asarray(getattr(layer, n))
    bias = np.array(lm.out_bias)
    if lm.mask_bos and lm.bos_id != lm.eos_id:
        # PyTorch's softmax has no mask: a bias this low gives <s> probability 0 in float64
        bias[lm.bos_id] = -1e4
    out["decoder.weight"] = np.asarray(lm.out_weight)
    out["decoder.bias"] = bias
    return out


def export(lm: RNNLM, out: str | os.PathLike[str], vocab_out: str | os.PathLike[str]) -> str:
    """Write `lm` as a float64 PyTorch state_dict and its vocabulary; returns a line saying how
    to build the module that loads it."""
    import io

    import torch

    from seqviz.files import atomic_write

    state = {
        k: torch.from_numpy(np.array(v, dtype=np.float64)) for k, v in to_state_dict(lm).items()
    }
    buf = io.BytesIO()
    torch.save(state, buf)
    words = lm.vocab
    if Path(vocab_out).suffix.lower() == ".json" or any(
        t != t.strip() or not t or "\n" in t for t in words
    ):
        text = json.dumps(list(words), ensure_ascii=False) + "\n"
        if Path(vocab_out).suffix.lower() != ".json":
            raise ValueError(
                f"the vocabulary of {lm.name!r} holds tokens with spaces or line breaks, which "
                "one token per line cannot keep; name the vocabulary file *.json."
            )
    else:
        text = "".join(t + "\n" for t in words)
    atomic_write(out, buf.getvalue())
    atomic_write(vocab_out, text)
    p = lm.params
    module = {"lstm": "LSTM", "gru": "GRU", "rnn": "RNN"}[p.cell]
    extra = f", nonlinearity='{p.nonlinearity}'" if p.cell == "rnn" else ""
    return (
        f"encoder = nn.Embedding({len(words)}, {p.input_size}); rnn = nn.{module}("
        f"{p.input_size}, {p.hidden_size}, num_layers={len(lm.layers)}{extra}); "
        f"decoder = nn.Linear({p.hidden_size}, {len(words)}); a sentence starts with {lm.bos}."
    )


def load_lm(
    model: str | os.PathLike[str],
    vocab: str | os.PathLike[str] | None = None,
    *,
    announce: Callable[[str], None] | None = None,
) -> RNNLM:
    """A language model by name or path: a PyTorch state_dict with its vocabulary (the line
    describing it goes to `announce`), or a seqviz model (shipped, user or file)."""
    from seqviz import models

    if vocab is None and is_torch_file(model):
        raise ValueError(
            f"{shown(model)} is a PyTorch file; give its vocabulary with --vocab FILE "
            "(one token per line in index order, or a JSON list)."
        )
    if vocab is not None:
        if not is_torch_file(model):
            raise ValueError(
                f"--vocab goes with a PyTorch state_dict (.pt, .pth or .bin), not {shown(model)}."
            )
        lm, line = load(model, vocab)
        if announce is not None:
            announce(line)
        return lm
    return models.load(model, kind="lm")


def converted(
    weights: str | os.PathLike[str],
    vocab: str | os.PathLike[str],
    *,
    announce: Callable[[str], None] | None = print,
) -> Path:
    """A PyTorch LM saved as a seqviz LM file in the user cache folder (named after the
    contents of both files, so a changed file is converted again); its path."""
    import hashlib

    import platformdirs

    from seqviz.limits import read_bytes

    digest = hashlib.sha256()
    for f, kind in ((weights, "weights"), (vocab, "text")):
        digest.update(read_bytes(f, "PyTorch file" if kind == "weights" else "vocabulary", kind))
    folder = Path(platformdirs.user_cache_dir("seqviz", appauthor=False)) / "torch"
    out = folder / f"{Path(weights).stem[:40]}-{digest.hexdigest()[:12]}.npz"
    lm, line = load(weights, vocab)
    if announce is not None:
        announce(line)
    if not out.exists():
        folder.mkdir(parents=True, exist_ok=True)
        lm.save(out)
    return out
