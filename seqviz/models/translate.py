"""Translating with a seq2seq model: source checks, greedy decoding, and accuracy by length."""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from seqviz.models.seq2seq import Seq2Seq

BUCKETS = ((3, 8), (9, 14), (15, 19), (20, 25), (26, 30))
STRATEGIES = ("greedy", "beam")


def load_seq2seq(name: str | os.PathLike[str]) -> Seq2Seq:
    """A shipped model by name (attention, bottleneck) or a `seqviz train-seq2seq` .npz file."""
    from seqviz.models.registry import entries, get, resolve

    shipped = {e.name for e in entries("seq2seq")}
    p = resolve(name)
    if not p.exists():
        raise ValueError(
            f"no model {str(name)!r}: give {', '.join(sorted(shipped))} or a "
            "`seqviz train-seq2seq` .npz file."
        )
    model = Seq2Seq.load(p)
    if str(name) in shipped:
        model.name = get(str(name)).name
    return model


@dataclass(frozen=True)
class Translation:
    """A decoded target with its log-probability and attention rows (target x source)."""

    source: tuple[str, ...]
    tokens: tuple[str, ...]  # without </s>
    logprob: float
    attention: np.ndarray | None  # (T, S), one row per emitted token incl. </s>
    finished: bool  # ended with </s> (not cut off by max_len)


def source_ids(model: Seq2Seq, source: str, max_len: int | None = None) -> np.ndarray:
    """The source's word ids; an empty or over-long source, or an unknown word, is a ValueError
    of one sentence (naming the word and the closest known ones)."""
    words = source.split()
    limit = model.meta.get("max_source_len", 40) if max_len is None else max_len
    if not words:
        raise ValueError(f"the source is empty; type a sentence of 1 to {limit} words.")
    if len(words) > limit:
        raise ValueError(
            f"the source has {len(words)} words; the model {model.name!r} accepts at most {limit}."
        )
    for w in words:
        if w not in model.src_index:
            near = difflib.get_close_matches(w, model.src_vocab, n=3, cutoff=0.5)
            hint = (
                f"closest known: {', '.join(near)}"
                if near
                else (f"known words include: {', '.join(sorted(model.src_vocab)[:8])}")
            )
            raise ValueError(f"the word {w!r} is not in the source vocabulary ({hint}).")
    return np.array([model.src_index[w] for w in words], dtype=np.intp)


def greedy(model: Seq2Seq, src: np.ndarray, max_len: int = 60) -> Translation:
    """Decode by feeding back the most probable token until </s> or `max_len` tokens."""
    dec = model.cell("dec")
    H = model.encode(src)
    state = model.start_state(H)
    token, out, rows, total = 0, [], [], 0.0
    finished = False
    for _ in range(max_len):
        state, logp, attn = model.decode_step(H, state, token, dec)
        token = int(np.argmax(logp))
        total += float(logp[token])
        if attn is not None:
            rows.append(attn)
        if token == 1:
            finished = True
            break
        out.append(token)
    return Translation(
        tuple(model.src_vocab[i] for i in src),
        tuple(model.tgt_vocab[i] for i in out),
        total,
        np.array(rows) if rows else None,
        finished,
    )


def beam(model: Seq2Seq, src: np.ndarray, width: int = 4, alpha: float = 0.0,
         max_len: int = 60) -> Translation:  # fmt: skip
    """Beam search with seqviz's decoder over the conditional model; attention rows are those
    of the best hypothesis (one teacher-forced pass over it)."""
    from seqviz.decoding.search import BeamSearch
    from seqviz.models.seq2seq_lm import ConditionalLM

    lm = ConditionalLM(model)
    prompt = " ".join(model.src_vocab[i] for i in src)
    best = BeamSearch(lm, prompt, width=width, alpha=alpha, max_len=max_len).run().best
    toks = [t for t in best.tokens if t != 1]
    finished = bool(best.tokens) and best.tokens[-1] == 1
    fed = np.array([0, *best.tokens[:-1]] if best.tokens else [0], dtype=np.intp)
    attn = model.run(src, fed).attn if best.tokens else None
    return Translation(
        tuple(model.src_vocab[i] for i in src), tuple(model.tgt_vocab[i] for i in toks),
        float(best.logprob), attn, finished,
    )  # fmt: skip


def translate(model: Seq2Seq, source: str, max_len: int = 60, strategy: str = "greedy",
              width: int = 4, alpha: float = 0.0) -> Translation:  # fmt: skip
    """Translate a source string; bad input is a ValueError of one sentence."""
    from seqviz.decoding.search import check_search

    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; allowed: greedy, beam.")
    check_search(max_len, alpha, width)
    src = source_ids(model, source)
    if strategy == "beam":
        return beam(model, src, width, alpha, max_len)
    return greedy(model, src, max_len)


@dataclass(frozen=True)
class Bucket:
    lo: int
    hi: int
    n: int
    exact: float  # fraction of sentences decoded exactly
    token: float  # fraction of reference positions predicted right (greedy, position by position)


def evaluate(
    model: Seq2Seq, pairs: Sequence[tuple[str, str]], buckets: Sequence[tuple[int, int]] = BUCKETS
) -> list[Bucket]:
    """Exact-match and token accuracy of greedy decoding, by source length bucket."""
    out = []
    for lo, hi in buckets:
        sel = [(s, t) for s, t in pairs if lo <= len(s.split()) <= hi]
        exact = tok = n_tok = 0
        for s, t in sel:
            ref = t.split()
            hyp = translate(model, s, max_len=len(ref) + 10).tokens
            exact += tuple(ref) == hyp
            tok += sum(a == b for a, b in zip(ref, hyp, strict=False))
            n_tok += len(ref)
        out.append(Bucket(lo, hi, len(sel), exact / max(len(sel), 1), tok / max(n_tok, 1)))
    return out


@dataclass(frozen=True)
class CurveRow:
    """One source-length bucket of the bottleneck experiment, both models."""

    lo: int
    hi: int
    n: int
    exact: dict[str, float]  # model name -> exact-match fraction
    token: dict[str, float]  # model name -> token accuracy


def held_out_by_bucket(
    per_bucket: int, seed: int, buckets: Sequence[tuple[int, int]] = BUCKETS
) -> list[tuple[str, str]]:
    """`per_bucket` held-out pairs for every bucket (never seen in training)."""
    from seqviz.tasks.translation import pairs

    out: list[tuple[str, str]] = []
    for i, (lo, hi) in enumerate(buckets):
        out += pairs(per_bucket, seed=seed + i, min_len=lo, max_len=hi, split="heldout")
    return out


def length_curve(
    names: Sequence[str] = ("attention", "bottleneck"), per_bucket: int = 100, seed: int = 2026,
    buckets: Sequence[tuple[int, int]] = BUCKETS,
) -> list[CurveRow]:  # fmt: skip
    """Exact match and token accuracy by source length for each model (`seqviz run bottleneck`)."""
    data = held_out_by_bucket(per_bucket, seed, buckets)
    results = {name: evaluate(load_seq2seq(name), data, buckets) for name in names}
    rows = []
    for i, (lo, hi) in enumerate(buckets):
        rows.append(CurveRow(
            lo, hi, results[names[0]][i].n,
            {n: results[n][i].exact for n in names}, {n: results[n][i].token for n in names},
        ))  # fmt: skip
    return rows


def curve_file() -> Path:
    """Where `seqviz run bottleneck --save` keeps the table the scene plots."""
    from seqviz.models.registry import DATA_DIR

    return DATA_DIR / "seq2seq_curve.json"


def curve_to_json(rows: Sequence[CurveRow], per_bucket: int, seed: int) -> str:
    data = {
        "per_bucket": per_bucket, "seed": seed,
        "rows": [{"lengths": [r.lo, r.hi], "pairs": r.n, "exact": r.exact,
                  "token_accuracy": r.token} for r in rows],
    }  # fmt: skip
    return json.dumps(data, indent=2) + "\n"


def load_curve(path: str | os.PathLike[str] | None = None) -> tuple[CurveRow, ...]:
    """The saved table (empty if there is none or it cannot be read)."""
    p = Path(path) if path is not None else curve_file()
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        return tuple(
            CurveRow(int(r["lengths"][0]), int(r["lengths"][1]), int(r["pairs"]),
                     {k: float(v) for k, v in r["exact"].items()},
                     {k: float(v) for k, v in r["token_accuracy"].items()})
            for r in data["rows"]
        )  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return ()
