"""Encoder-decoder on the core's kernels, with or without Luong attention; loss and gradients.

The encoder reads the source embeddings with a seqviz cell; its last state c = h_T starts the
decoder (the bottleneck: the decoder's cell state, for an LSTM, starts at zero). Attention is
computed after the decoder cell (Luong, "general" scores s_t . W_a h_j), so the recurrences stay
in the kernels: the attention's gradients come back to both cells as per-step grad_out, and the
decoder's grad_h0 joins the encoder's last step. Without attention the output layer reads s_t.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from seqviz.core.api import forward, step, trace
from seqviz.core.codes import N_GATES
from seqviz.core.params import CELLS, Params
from seqviz.models.format import file_kind, load_file, register_kind, save_model

KIND = "seq2seq"
BOS, EOS = "<s>", "</s>"
CELL_NAMES = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
State = tuple[np.ndarray, "np.ndarray | None"]  # a decoder state: h (d,), and c (d,) for LSTM


@dataclass(frozen=True)
class Seq2SeqConfig:
    """The shape of a model (the architecture options of `seqviz train-seq2seq`)."""

    cell: str = "lstm"
    hidden: int = 64
    emb: int = 32
    attention: bool = True
    reverse: bool = False  # read the source backwards (Sutskever et al. 2014)

    def __post_init__(self) -> None:
        if self.cell not in CELLS:
            raise ValueError(f"unknown cell {self.cell!r}; allowed: {', '.join(CELLS)}.")
        for name in ("hidden", "emb"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 1024:
                raise ValueError(f"{name} must be a whole number from 1 to 1024, got {v!r}.")

    @property
    def variant(self) -> str:
        # PyTorch's GRU, so that a GRU model equals torch.nn.GRU on the same weights
        return "pytorch" if self.cell == "gru" else "textbook"


class Forward(NamedTuple):
    """Everything one teacher-forced pass computes (kept for the backward pass and the views)."""

    enc_h: np.ndarray  # (S, d) encoder states; enc_h[-1] is the context c = h_T
    dec_h: np.ndarray  # (T, d) decoder states s_t
    attn: np.ndarray | None  # (T, S) attention weights, rows sum to 1
    ctx: np.ndarray | None  # (T, d) context vectors
    out_h: np.ndarray  # (T, d) what the output layer reads (tanh(W_c [ctx; s]) or s)
    logp: np.ndarray  # (T, V) log-probabilities of the next target token


def log_softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def _softmax_rows(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class Seq2Seq:
    """A trainable encoder-decoder (the `Trainable` of seqviz.training) over two vocabularies.

    `weights` maps names to arrays that the optimizer updates in place. Target index 0 is <s>
    (input only, never predicted), index 1 is </s>."""

    kind = KIND

    def __init__(
        self,
        config: Seq2SeqConfig,
        src_vocab: Sequence[str],
        tgt_vocab: Sequence[str],
        weights: dict[str, np.ndarray],
        *,
        name: str = "seq2seq",
        teacher_forcing: float = 1.0,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.config = config
        self.src_vocab = tuple(src_vocab)
        self.tgt_vocab = tuple(tgt_vocab)
        if self.tgt_vocab[:2] != (BOS, EOS):
            raise ValueError("the target vocabulary must start with <s> and </s>.")
        self.src_index = {w: i for i, w in enumerate(self.src_vocab)}
        self.tgt_index = {w: i for i, w in enumerate(self.tgt_vocab)}
        self.weights = weights
        self.name = name
        self.teacher_forcing = float(teacher_forcing)
        self.meta = dict(meta or {})
        self.rng = np.random.default_rng(0)  # scheduled sampling's coin flips
        want = _shapes(config, len(self.src_vocab), len(self.tgt_vocab))
        for k, shape in want.items():
            if k not in weights or np.shape(weights[k]) != shape:
                got = "missing" if k not in weights else f"shape {np.shape(weights[k])}"
                raise ValueError(f"the weight {k} is {got}, expected shape {shape}.")
            if not np.isfinite(weights[k]).all():
                raise ValueError(f"the weight {k} contains inf or nan; weights must be finite.")
        extra = sorted(set(weights) - set(want))
        if extra:
            raise ValueError(f"unexpected weights {', '.join(extra)} for this configuration.")

    # --- construction and files --------------------------------------------------------------
    @classmethod
    def random(
        cls, config: Seq2SeqConfig, src_vocab: Sequence[str], tgt_vocab: Sequence[str],
        seed: int = 0, **kw: Any,
    ) -> Seq2Seq:  # fmt: skip
        """Small random weights (PyTorch's uniform(-1/sqrt(d), 1/sqrt(d)) for the cells)."""
        rng = np.random.default_rng(seed)
        shapes = _shapes(config, len(src_vocab), len(tgt_vocab))
        d = config.hidden
        w = {}
        for k, shape in shapes.items():
            if k.endswith("embedding"):
                w[k] = rng.normal(0.0, 0.3, shape)
            elif k in ("out_bias", "comb_bias"):
                w[k] = np.zeros(shape)
            else:
                fan = shape[1] if len(shape) == 2 and not k.startswith(("enc_", "dec_")) else d
                w[k] = rng.uniform(-1.0, 1.0, shape) / np.sqrt(fan)
        return cls(config, src_vocab, tgt_vocab, w, **kw)

    def to_dict(self) -> dict[str, np.ndarray]:
        out = {k: np.asarray(v) for k, v in self.weights.items()}
        out.update(
            config=np.array(json.dumps(asdict(self.config))),
            meta=np.array(json.dumps(self.meta)),
            src_vocab=np.array(self.src_vocab, dtype=str),
            tgt_vocab=np.array(self.tgt_vocab, dtype=str),
        )
        return out

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the model as one .npz atomically (format tag seqviz-seq2seq-1)."""
        return save_model(path, KIND, self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, np.ndarray], name: str = "seq2seq") -> Seq2Seq:
        """The model from the arrays `save` wrote; a problem is a ValueError of one sentence."""
        if file_kind(data) != KIND:
            raise ValueError("the file is not a seq2seq model (its format tag is not seq2seq).")
        try:
            config = Seq2SeqConfig(**json.loads(str(data["config"])))
            meta = json.loads(str(data.get("meta", "{}")))
            src = tuple(str(t) for t in data["src_vocab"].tolist())
            tgt = tuple(str(t) for t in data["tgt_vocab"].tolist())
        except (KeyError, TypeError, json.JSONDecodeError) as exc:
            raise ValueError(f"the seq2seq model's header is damaged ({exc}).") from None
        skip = {"format", "config", "meta", "src_vocab", "tgt_vocab"}
        w = {k: np.array(v, dtype=np.float64) for k, v in data.items() if k not in skip}
        return cls(config, src, tgt, w, name=name, meta=meta)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Seq2Seq:
        """Read a file written by `save`; any problem is a ValueError of one sentence."""
        p = Path(path)
        if not p.exists():
            raise ValueError(f"no such model file: {p}.")
        model = load_file(p, KIND)
        assert isinstance(model, Seq2Seq)
        return model

    # --- the Trainable protocol --------------------------------------------------------------
    def parameters(self) -> dict[str, np.ndarray]:
        return self.weights

    def cell(self, side: str) -> Params:
        """The encoder's ("enc") or decoder's ("dec") core Params (a read-only copy)."""
        w = self.weights
        return Params.from_arrays(
            self.config.cell, *(w[f"{side}_{k}"] for k in CELL_NAMES), variant=self.config.variant
        )

    def loss_and_grads(
        self, batch: Sequence[tuple[np.ndarray, np.ndarray]]
    ) -> tuple[float, dict[str, np.ndarray]]:
        """Mean cross-entropy per target token (</s> included) over (source ids, target ids).

        With teacher_forcing < 1 each decoder input is, with that probability, the reference
        token and otherwise the model's own greedy prediction (scheduled sampling)."""
        enc, dec = self.cell("enc"), self.cell("dec")
        grads = {k: np.zeros_like(v) for k, v in self.weights.items()}
        total, n = 0.0, 0
        for src, tgt in batch:
            tgt_out = np.append(np.asarray(tgt, dtype=np.intp), 1)  # (T,) ... </s>
            if self.teacher_forcing >= 1.0:
                tgt_in = np.concatenate([[0], tgt_out[:-1]]).astype(np.intp)
            else:
                tgt_in = self._sampled_inputs(enc, dec, src, tgt_out)
            loss, _ = self._accumulate(enc, dec, src, tgt_in, tgt_out, grads)
            total += loss
            n += len(tgt_out)
        for g in grads.values():
            g /= max(n, 1)
        return total / max(n, 1), grads

    # --- forward and backward ----------------------------------------------------------------
    def run(self, src: np.ndarray, tgt_in: np.ndarray, enc: Params | None = None,
            dec: Params | None = None) -> Forward:  # fmt: skip
        """One pass with the decoder inputs `tgt_in` given (teacher forcing when they are the
        reference shifted right)."""
        enc = enc or self.cell("enc")
        dec = dec or self.cell("dec")
        w = self.weights
        H, _ = forward(enc, w["src_embedding"][self.reading_order(src)])  # (S, d)
        S_, _ = forward(dec, w["tgt_embedding"][tgt_in], h0=H[-1])  # (T, d)
        return self._outputs(H, S_)

    def _outputs(self, H: np.ndarray, S_: np.ndarray) -> Forward:
        w = self.weights
        if self.config.attention:
            scores = S_ @ (H @ w["attn_weight"].T).T  # (T, S): s_t . W_a h_j
            A = _softmax_rows(scores)
            ctx = A @ H  # (T, d)
            out_h = np.tanh(np.concatenate([ctx, S_], axis=1) @ w["comb_weight"].T
                            + w["comb_bias"])  # fmt: skip
        else:
            A, ctx, out_h = None, None, S_
        logits = out_h @ w["out_weight"].T + w["out_bias"]  # (T, V)
        logits[:, 0] = -np.inf  # <s> is never predicted
        return Forward(H, S_, A, ctx, out_h, log_softmax(logits))

    def _accumulate(
        self, enc: Params, dec: Params, src: np.ndarray, tgt_in: np.ndarray,
        tgt_out: np.ndarray, grads: dict[str, np.ndarray],
    ) -> tuple[float, Forward]:  # fmt: skip
        """Add the gradient of the summed loss of one pair to `grads`; returns (loss, pass)."""
        w = self.weights
        f = self.run(src, tgt_in, enc, dec)
        T = len(tgt_out)
        rows = np.arange(T)
        loss = -float(f.logp[rows, tgt_out].sum())
        dlogits = np.exp(f.logp)  # (T, V)
        dlogits[rows, tgt_out] -= 1.0
        grads["out_weight"] += dlogits.T @ f.out_h
        grads["out_bias"] += dlogits.sum(axis=0)
        d_out = dlogits @ w["out_weight"]  # (T, d)
        H = f.enc_h
        dH = np.zeros_like(H)
        if self.config.attention:
            assert f.attn is not None and f.ctx is not None
            d = H.shape[1]
            dpre = d_out * (1.0 - f.out_h**2)  # (T, d)
            grads["comb_weight"] += dpre.T @ np.concatenate([f.ctx, f.dec_h], axis=1)
            grads["comb_bias"] += dpre.sum(axis=0)
            dz = dpre @ w["comb_weight"]  # (T, 2d)
            dctx, dS = dz[:, :d], dz[:, d:].copy()
            A = f.attn
            dA = dctx @ H.T  # (T, S)
            dH += A.T @ dctx
            dscores = A * (dA - (dA * A).sum(axis=1, keepdims=True))
            keys = H @ w["attn_weight"].T  # (S, d)
            dS += dscores @ keys
            dkeys = dscores.T @ f.dec_h  # (S, d)
            dH += dkeys @ w["attn_weight"]
            grads["attn_weight"] += dkeys.T @ H
        else:
            dS = d_out
        tr_d = trace(dec, w["tgt_embedding"][tgt_in], h0=H[-1], grad_out=dS)
        for k in CELL_NAMES:
            grads[f"dec_{k}"] += getattr(tr_d, f"grad_{k}")
        np.add.at(grads["tgt_embedding"], tgt_in, tr_d.grad_x)
        dH[-1] += tr_d.grad_h0  # the bottleneck: the decoder's start is the encoder's end
        src = self.reading_order(src)
        tr_e = trace(enc, w["src_embedding"][src], grad_out=dH)
        for k in CELL_NAMES:
            grads[f"enc_{k}"] += getattr(tr_e, f"grad_{k}")
        np.add.at(grads["src_embedding"], src, tr_e.grad_x)
        return loss, f

    def _sampled_inputs(self, enc: Params, dec: Params, src: np.ndarray,
                        tgt_out: np.ndarray) -> np.ndarray:  # fmt: skip
        """Decoder inputs for scheduled sampling: the reference or the model's previous guess."""
        H = self.encode(src, enc)
        state = self.start_state(H)
        inputs = [0]
        for t in range(len(tgt_out) - 1):
            state, logp, _ = self.decode_step(H, state, inputs[-1], dec)
            own = int(np.argmax(logp))
            inputs.append(int(tgt_out[t]) if self.rng.random() < self.teacher_forcing else own)
        return np.array(inputs, dtype=np.intp)

    # --- step-by-step decoding ---------------------------------------------------------------
    def reading_order(self, src: np.ndarray) -> np.ndarray:
        """The source ids in the order the encoder reads them (backwards if `reverse`); encoder
        states and attention columns follow this order."""
        return np.asarray(src)[::-1] if self.config.reverse else np.asarray(src)

    def encode(self, src: np.ndarray, enc: Params | None = None) -> np.ndarray:
        """Encoder states (S, d) of source ids, in reading order."""
        x = self.weights["src_embedding"][self.reading_order(src)]
        H, _ = forward(enc or self.cell("enc"), x)
        return H

    def start_state(self, H: np.ndarray) -> State:
        """The decoder's first state: h = the context c = h_T, cell state zero (LSTM)."""
        return H[-1].copy(), (np.zeros_like(H[-1]) if self.config.cell == "lstm" else None)

    def decode_step(
        self,
        H: np.ndarray,
        state: State,
        token: int,
        dec: Params | None = None,
    ) -> tuple[State, np.ndarray, np.ndarray | None]:
        """Feed one token: (new state, next-token log-probs (V,), attention row (S,) or None)."""
        out = self.decode_batch(H, [state], [token], dec)
        return out[0][0], out[1][0], (None if out[2] is None else out[2][0])

    def decode_batch(
        self, H: np.ndarray, states: Sequence[State], tokens: Sequence[int],
        dec: Params | None = None,
    ) -> tuple[list[State], np.ndarray, np.ndarray | None]:  # fmt: skip
        """`decode_step` for a batch of states over one source (beam search's hot path)."""
        dec = dec or self.cell("dec")
        x = self.weights["tgt_embedding"][np.asarray(tokens, dtype=np.intp)]  # (B, e)
        h = np.stack([s[0] for s in states])
        lstm = self.config.cell == "lstm"
        c = np.stack([s[1] for s in states]) if lstm else None  # type: ignore[misc]
        h2, c2 = step(dec, x, h, c)  # (B, d)
        f = self._outputs(H, h2)
        new = [(h2[i], None if c2 is None else c2[i]) for i in range(len(tokens))]
        return new, f.logp, f.attn


def _shapes(config: Seq2SeqConfig, Vs: int, Vt: int) -> dict[str, tuple[int, ...]]:
    d, e, g = config.hidden, config.emb, N_GATES[config.cell]
    shapes: dict[str, tuple[int, ...]] = {}
    for side in ("enc", "dec"):
        shapes.update({f"{side}_weight_ih": (g * d, e), f"{side}_weight_hh": (g * d, d),
                       f"{side}_bias_ih": (g * d,), f"{side}_bias_hh": (g * d,)})  # fmt: skip
    shapes.update(src_embedding=(Vs, e), tgt_embedding=(Vt, e))
    if config.attention:
        shapes.update(attn_weight=(d, d), comb_weight=(d, 2 * d), comb_bias=(d,))
    shapes.update(out_weight=(Vt, d), out_bias=(Vt,))
    return shapes


def _load(arrays: dict[str, np.ndarray], path: Path) -> Seq2Seq:
    try:
        return Seq2Seq.from_dict(arrays, name=path.stem)
    except ValueError as exc:
        raise ValueError(f"{str(path)!r}: {str(exc).rstrip('.')}.") from None


register_kind(KIND, _load, "a seqviz seq2seq model (written by `seqviz train-seq2seq`)")
