"""The beam search curse, measured: exact match, output length and search errors by beam width.

For each width (and exact search) and each alpha, every sentence is decoded; a *search error*
is a beam output that scores below the exact optimum under the same objective (the search, not
the model, is at fault); where the exact optimum itself differs from the reference, the model
is at fault (a *model error*). Translation: the attention seq2seq model on held-out pairs of
the translation task. LM: the shipped agreement LM completing the first two words of corpus
sentences (no single right answer, so probability and length are reported).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

WIDTHS = (1, 2, 4, 8, 16, 32, 64)
ALPHAS = (0.0, 0.6)
EXACT_BUDGET = 5000
EPS = 1e-9


@dataclass(frozen=True)
class CurseRow:
    """One decoder (a beam width, or "exact") at one alpha, over every sentence."""

    task: str  # "translation" | "lm"
    decoder: str  # "beam 4" or "exact"
    width: int  # 0 for exact
    alpha: float
    n: int
    exact_match: float | None  # share equal to the reference (translation only)
    mean_len: float  # output tokens, </s> excluded
    ref_len: float  # reference tokens (LM: the rest of the corpus sentence)
    mean_logprob: float
    search_errors: float  # share scoring below the exact optimum
    unproved: int  # sentences where exact search ran out of budget (its row is then a bound)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _decode_all(lm: Any, prompts: list[str], width: int, alpha: float, max_lens: list[int]):
    from seqviz.decoding import BeamSearch
    from seqviz.decoding.exact import ExactSearch

    out = []
    for prompt, max_len in zip(prompts, max_lens, strict=True):
        if width:
            res = BeamSearch(lm, prompt, width=width, alpha=alpha, max_len=max_len).run()
            out.append((res.best, True))
        else:
            s = ExactSearch(lm, prompt, alpha=alpha, max_len=max_len, node_budget=EXACT_BUDGET)
            out.append((s.run().best, s.proved))
    return out


def measure(
    task: str,
    lm: Any,
    prompts: list[str],
    refs: list[list[str]],
    widths: tuple[int, ...] = WIDTHS,
    alphas: tuple[float, ...] = ALPHAS,
    extra: int = 10,
    progress: Any = None,
) -> list[CurseRow]:
    """Rows for every alpha, exact search first, then the widths."""
    max_lens = [len(r) + extra for r in refs]
    rows = []
    for alpha in alphas:
        exact = _decode_all(lm, prompts, 0, alpha, max_lens)
        for width in (0, *widths):
            got = exact if width == 0 else _decode_all(lm, prompts, width, alpha, max_lens)
            if progress is not None:
                progress(task, alpha, width)
            words = [[lm.vocab[t] for t in b.tokens if t != lm.eos_id] for b, _ in got]
            errors = sum(
                (b.finished is False) or b.score < e.score - EPS
                for (b, _), (e, _) in zip(got, exact, strict=True)
            )
            n = len(prompts)
            rows.append(
                CurseRow(
                    task=task,
                    decoder="exact" if width == 0 else f"beam {width}",
                    width=width,
                    alpha=alpha,
                    n=n,
                    exact_match=(
                        sum(w == r for w, r in zip(words, refs, strict=True)) / n
                        if task == "translation"
                        else None
                    ),
                    mean_len=sum(len(w) for w in words) / n,
                    ref_len=sum(len(r) for r in refs) / n,
                    mean_logprob=sum(b.logprob for b, _ in got) / n,
                    search_errors=0.0 if width == 0 else errors / n,
                    unproved=sum(not ok for _, ok in exact),
                )
            )
    return rows


def translation_rows(n: int = 40, seed: int = 2026, **kw: Any) -> list[CurseRow]:
    from seqviz.models.seq2seq_lm import ConditionalLM
    from seqviz.models.translate import held_out_by_bucket, load_seq2seq

    pairs = held_out_by_bucket(max(1, n // 4), seed)[:n]
    lm = ConditionalLM(load_seq2seq("attention"), name="attention")
    return measure("translation", lm, [s for s, _ in pairs], [t.split() for _, t in pairs], **kw)


def lm_rows(n: int = 40, **kw: Any) -> list[CurseRow]:
    from seqviz import models
    from seqviz.models.registry import DATA_DIR

    lm = models.load("agreement", kind="lm")
    text = (DATA_DIR / "agreement.txt").read_text(encoding="utf-8").split("\n")
    lines = [ln.split() for ln in text if len(ln.split()) >= 3][-n:]  # the corpus's last lines
    return measure("lm", lm, [" ".join(w[:2]) for w in lines], [w[2:] for w in lines], **kw)


def format_rows(rows: list[CurseRow]) -> str:
    """A Markdown table (the docs and the terminal print the same)."""
    head = (
        "| task | alpha | decoder | exact match | mean length (ref) | mean log P | search errors |"
    )
    out = [head, "|---|---|---|---|---|---|---|"]
    for r in rows:
        em = "–" if r.exact_match is None else f"{r.exact_match:.0%}"
        lp = "-inf" if math.isinf(r.mean_logprob) else f"{r.mean_logprob:.2f}"
        dec = r.decoder + (f" ({r.unproved} unproved)" if r.width == 0 and r.unproved else "")
        out.append(
            f"| {r.task} | {r.alpha:g} | {dec} | {em} | {r.mean_len:.2f} ({r.ref_len:.2f}) | "
            f"{lp} | {r.search_errors:.0%} |"
        )
    return "\n".join(out)


def curse_file() -> Any:
    """Where `seqviz run beam-curse --save` keeps the rows the seq2seq scene plots."""
    from seqviz.models.registry import DATA_DIR

    return DATA_DIR / "beam_curse.json"


def save_rows(rows: list[CurseRow], path: Any = None, sentences: int = 0) -> Any:
    import json

    from seqviz.files import atomic_write

    data = {"sentences": sentences, "rows": [r.to_json() for r in rows]}
    return atomic_write(path or curse_file(), json.dumps(data, indent=2) + "\n")


def load_rows(path: Any = None) -> tuple[CurseRow, ...]:
    """The saved rows (empty if there are none or the file cannot be read)."""
    import json
    from pathlib import Path

    try:
        data = json.loads(Path(path or curse_file()).read_text(encoding="utf-8"))
        return tuple(CurseRow(**r) for r in data["rows"])
    except (OSError, ValueError, KeyError, TypeError):
        return ()


def plot_series(rows: tuple[CurseRow, ...]) -> list[tuple[str, list[float], list[float]]]:
    """(label, x, y) curves: search-error % against log2(width) for each task and alpha, and
    exact search drawn at x = log2(largest width) + 1."""
    out = []
    for task in ("lm", "translation"):
        for alpha in sorted({r.alpha for r in rows if r.task == task}):
            sel = [r for r in rows if r.task == task and r.alpha == alpha]
            beams = sorted((r for r in sel if r.width), key=lambda r: r.width)
            if not beams:
                continue
            x = [math.log2(r.width) for r in beams]
            y = [100 * r.search_errors for r in beams]
            exact = [r for r in sel if r.width == 0]
            if exact:
                x.append(x[-1] + 1)
                y.append(100 * exact[0].search_errors)
            out.append((f"{task} α={alpha:g}", x, y))
    return out
