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


def beam_table(
    widths: tuple[int, ...] = (1, 2, 3), max_len: int = 6, model: BigramModel | None = None
) -> list[BeamRow]:
    """Greedy, then beam search at each width, on the toy model (no length normalisation)."""
    model = model or toy_model()
    rows = []
    g = Greedy(model, max_len=max_len).run().best
    rows.append(BeamRow("greedy", tuple(model.vocab[t] for t in g.tokens), math.exp(g.logprob)))
    for k in widths:
        b = BeamSearch(model, width=k, max_len=max_len).run().best
        rows.append(
            BeamRow(
                f"beam, width {k}", tuple(model.vocab[t] for t in b.tokens), math.exp(b.logprob)
            )
        )
    return rows


def format_beam_table(rows: list[BeamRow]) -> str:
    """The comparison as plain text lines, probabilities to three decimals."""
    label_w = max(len(r.label) for r in rows)
    text_w = max(len(" ".join(r.tokens)) for r in rows)
    lines = ["Toy bigram model: the most probable sentence each decoder finds"]
    for r in rows:
        lines.append(f"  {r.label:<{label_w}}  {' '.join(r.tokens):<{text_w}}  p = {r.prob:.3f}")
    lines.append(
        "Greedy commits to 'the' (0.5 > 0.4) and ends at 'the dog'; a beam of width 2 keeps 'a' "
        "alive long enough to reach 'a small cat', about twice as probable. Width 1 is greedy."
    )
    return "\n".join(lines)
