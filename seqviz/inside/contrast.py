"""Contrastive attribution: which input word pushed log P(plus) - log P(minus) for the next word.

After reading `<s> text`, the contrast D = log P(plus) - log P(minus) = logit_plus - logit_minus
(the softmax's normaliser cancels), a linear readout of the last state. Two attributions per
input word s: gradient x input, dD/dx_s . x_s (seqviz's backward pass from the last state with
dL/dh_T = out_weight[plus] - out_weight[minus]); and occlusion, D minus D with word s's
embedding replaced by zeros (a forward pass per word, through the same interventions if any).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from seqviz.core.api import trace
from seqviz.inside.intervene import Intervention, forced_forward
from seqviz.models.lm import RNNLM


@dataclass(frozen=True)
class Contrast:
    """Per input word (<s> first): its push on log P(plus) - log P(minus) for the next word."""

    words: tuple[str, ...]  # (T,)
    plus: str
    minus: str
    value: float  # D after the last word
    gradient: np.ndarray  # (T,) gradient x input
    occlusion: np.ndarray  # (T,) D - D(word s zeroed)

    def top(self, method: str = "gradient") -> str:
        """The word (not <s>) with the largest push towards `plus`."""
        a = getattr(self, method)[1:]
        return self.words[1 + int(np.argmax(a))]


def _contrast(lm: RNNLM, x: np.ndarray, w: np.ndarray, b: float,
              interventions: Sequence[Intervention]) -> float:  # fmt: skip
    h, _, _ = forced_forward(lm.params, x, interventions)
    return float(w @ h[-1] + b)


def contrast(lm: RNNLM, text: str, plus: str = "are", minus: str = "is",
             interventions: Sequence[Intervention] = ()) -> Contrast:  # fmt: skip
    """Both attributions of `plus` over `minus` after `<s> text` (ValueError for a word the
    model does not know)."""
    for word in (plus, minus):
        if word not in lm.index:
            raise ValueError(f"{word!r} is not in the vocabulary of the model {lm.name!r}.")
    if plus == minus:
        raise ValueError(f"the two words to contrast must differ, got {plus!r} twice.")
    ids, x = lm.inputs(text)
    w = lm.out_weight[lm.index[plus]] - lm.out_weight[lm.index[minus]]
    b = float(lm.out_bias[lm.index[plus]] - lm.out_bias[lm.index[minus]])
    value = _contrast(lm, x, w, b, interventions)
    if interventions:
        gradient = np.full(len(ids), np.nan)  # the kernels' backward pass runs on the intact cell
    else:
        gradient = (np.asarray(trace(lm.params, x, grad_hT=w).grad_x) * x).sum(axis=1)
    occlusion = np.empty(len(ids))
    for s in range(len(ids)):
        xo = x.copy()
        xo[s] = 0.0
        occlusion[s] = value - _contrast(lm, xo, w, b, interventions)
    return Contrast(tuple(lm.vocab[i] for i in ids), plus, minus, value, gradient, occlusion)
