"""The lesson's greedy-versus-beam comparison on the toy bigram model, computed by the engine.

`seqviz run beam` (seqviz/commands/run_beam.py) prints it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from seqviz.decoding.models import BigramModel, toy_model
from seqviz.decoding.search import BeamSearch, Greedy


@dataclass(frozen=True)
class BeamRow:
    """One line of the comparison: which decoder, what it returned, and its probability."""

    label: str
    tokens: tuple[str, ...]
    prob: float
    stop: str | None = None  # why that search ended


def beam_table(
    widths: tuple[int, ...] = (1, 2, 3), max_len: int = 6, model: BigramModel | None = None
) -> list[BeamRow]:
    """Greedy, then beam search at each width, on the toy model (no length normalisation)."""
    model = model or toy_model()
    rows = []
    searches: list[tuple[str, Greedy | BeamSearch]] = [("greedy", Greedy(model, max_len=max_len))]
    searches += [(f"beam, width {k}", BeamSearch(model, width=k, max_len=max_len)) for k in widths]
    for label, search in searches:
        res = search.run()
        words = tuple(model.vocab[t] for t in res.best.tokens)
        rows.append(BeamRow(label, words, math.exp(res.best.logprob), res.stop))
    return rows


def format_beam_table(rows: list[BeamRow]) -> str:
    """The comparison as plain text lines, probabilities to three decimals."""
    label_w = max(len(r.label) for r in rows)
    text_w = max(len(" ".join(r.tokens)) for r in rows)
    stop_w = max(len(r.stop or "") for r in rows) + len("stopped: ")
    lines = ["Toy bigram model: the most probable sentence each decoder finds"]
    for r in rows:
        words, stop = " ".join(r.tokens), f"stopped: {r.stop}"
        row = f"  {r.label:<{label_w}}  {words:<{text_w}}  {stop:<{stop_w}}"
        lines.append(f"{row}  p = {r.prob:.3f}")
    lines.append(verdict(rows))
    return "\n".join(lines)


def verdict(rows: list[BeamRow]) -> str:
    """One computed sentence: where greedy ended and the widest beam that beat it, if any."""
    greedy, beams = rows[0], rows[1:]
    better = [r for r in beams if r.prob > greedy.prob * (1 + 1e-9)]
    g_words = " ".join(greedy.tokens)
    if not better:
        return f"No beam width here beats greedy's '{g_words}' (p {greedy.prob:.3f})."
    first = better[0]
    text = (
        f"Greedy ends at '{g_words}' (p {greedy.prob:.3f}); the {first.label} reaches "
        f"'{' '.join(first.tokens)}' (p {first.prob:.3f}), {first.prob / greedy.prob:.2f}x "
        "as probable"
    )
    if first.tokens[:1] != greedy.tokens[:1]:
        text += f": it kept '{first.tokens[0]}' alive where greedy took '{greedy.tokens[0]}'"
    return text + "."
