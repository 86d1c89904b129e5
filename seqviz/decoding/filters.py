"""Next-token distributions with the cut-offs applied: temperature, then top-k, then top-p."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# Cumulative sums of float probabilities can land a hair under p; without this slack a nucleus
# whose exact total is p would take one token too many.
NUCLEUS_SLACK = 1e-12


def check_sampling(
    temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None
) -> None:
    """Raise ValueError (one sentence) for a cut-off outside its allowed range."""
    if not isinstance(temperature, (int, float)) or not temperature > 0 or math.isinf(temperature):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature}.")
    integral = isinstance(top_k, (int, np.integer)) and not isinstance(top_k, bool)
    if top_k is not None and (not integral or top_k < 1):
        raise ValueError(f"top-k must be a whole number >= 1, got {top_k}.")
    if top_p is not None and (not isinstance(top_p, (int, float)) or not 0.0 < top_p <= 1.0):
        # (also catches nan: every comparison with nan is False)
        raise ValueError(f"top-p must lie in (0, 1], got {top_p}.")


@dataclass(frozen=True, eq=False)
class Distribution:
    """One node's next-token distribution and which tokens survive each cut-off stage.

    All arrays have one entry per vocabulary token (V,). `order` lists token ids by descending
    tempered probability (ties: lower id first), the order the cut-offs are applied in.
    """

    vocab: tuple[str, ...]
    probs: np.ndarray  # (V,) the model's probabilities (temperature 1)
    tempered: np.ndarray  # (V,) softmax(logits / temperature)
    order: np.ndarray  # (V,) token ids, most probable first
    in_top_k: np.ndarray  # (V,) bool: survives top-k (all possible tokens when top_k is None)
    in_top_p: np.ndarray  # (V,) bool: survives top-k and then top-p: the final support
    final: np.ndarray  # (V,) renormalised sampling distribution, zero outside the support
    temperature: float
    top_k: int | None
    top_p: float | None

    @property
    def support(self) -> np.ndarray:
        """Ids of the tokens that can be sampled, most probable first."""
        return self.order[self.in_top_p[self.order]]

    def stage(self, token: int) -> str:
        """Where a token drops out: "impossible", "top-k", "top-p" or "kept"."""
        if self.tempered[token] <= 0.0:
            return "impossible"
        if not self.in_top_k[token]:
            return "top-k"
        if not self.in_top_p[token]:
            return "top-p"
        return "kept"

    def rows(self, limit: int | None = None) -> list[tuple[str, float, float, float, str]]:
        """(token, model prob, tempered prob, final prob, stage) by descending tempered prob."""
        ids = self.order if limit is None else self.order[:limit]
        return [
            (
                self.vocab[i],
                float(self.probs[i]),
                float(self.tempered[i]),
                float(self.final[i]),
                self.stage(int(i)),
            )
            for i in ids
        ]


def _softmax(logits: np.ndarray) -> np.ndarray:
    finite = np.isfinite(logits)
    out = np.zeros_like(logits, dtype=np.float64)
    if not finite.any():
        return out
    z = logits[finite] - logits[finite].max()
    e = np.exp(z)
    out[finite] = e / e.sum()
    return out


def filter_distribution(
    logprobs: np.ndarray,
    vocab: tuple[str, ...],
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> Distribution:
    """Apply temperature, top-k and top-p to one (V,) log-probability vector.

    Top-p works on the distribution left after top-k, renormalised (as Hugging Face's
    warpers do when chained): the nucleus is the smallest prefix, by descending probability,
    whose total reaches p. Tokens the model gives zero probability never survive.
    """
    check_sampling(temperature, top_k, top_p)
    logprobs = np.asarray(logprobs, dtype=np.float64)
    probs = _softmax(logprobs)
    tempered = _softmax(logprobs / temperature)
    if not np.any(tempered > 0):
        # Temperatures so low that every exp underflows keep only the argmax.
        tempered = np.zeros_like(probs)
        tempered[int(np.argmax(logprobs))] = 1.0
    order = np.argsort(-tempered, kind="stable")
    possible = tempered > 0.0
    n_possible = int(possible.sum())
    in_top_k = possible.copy()
    if top_k is not None and top_k < n_possible:
        in_top_k[:] = False
        in_top_k[order[:top_k]] = True
    in_top_p = in_top_k.copy()
    if top_p is not None and top_p < 1.0:
        ranked = order[in_top_k[order]]
        mass = tempered[ranked] / tempered[ranked].sum()
        n_keep = int(np.searchsorted(np.cumsum(mass), top_p - NUCLEUS_SLACK)) + 1
        in_top_p[:] = False
        in_top_p[ranked[: min(n_keep, len(ranked))]] = True
    final = np.where(in_top_p, tempered, 0.0)
    final /= final.sum()
    for a in (probs, tempered, order, in_top_k, in_top_p, final):
        a.flags.writeable = False
    return Distribution(
        vocab=vocab,
        probs=probs,
        tempered=tempered,
        order=order,
        in_top_k=in_top_k,
        in_top_p=in_top_p,
        final=final,
        temperature=float(temperature),
        top_k=None if top_k is None else int(top_k),
        top_p=None if top_p is None else float(top_p),
    )
