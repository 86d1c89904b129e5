"""Immutable records the decoders emit: tree nodes, search steps and final results."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

# Node.status values
ROOT, KEPT, FINISHED, PRUNED = "root", "kept", "finished", "pruned"


class Node(NamedTuple):
    """One hypothesis, i.e. one node of the decoding tree (a path from the root to here).

    `depth` is the number of tokens generated, the closing </s> included: the t of length
    normalisation. `logprob` is the cumulative log-probability of those tokens under the model
    (temperature 1, even when sampling). `score` is `logprob / depth**alpha` (= logprob when
    alpha is 0 or the node is the root).
    """

    id: int  # unique within one search; the root is 0
    parent: int  # id of the parent node; -1 for the root
    token: int  # token id (root: last prompt token, or <s>)
    text: str  # the token as a string
    depth: int  # tokens generated so far, this one included
    token_logprob: float  # log P(token | parent's path)
    logprob: float  # sum of token_logprob along the path
    score: float  # logprob / depth**alpha, what finished hypotheses are ranked by
    status: str  # "root" | "kept" | "finished" | "pruned"
    tokens: tuple[int, ...]  # generated token ids from the root to here (root excluded)

    @property
    def token_prob(self) -> float:
        return math.exp(self.token_logprob)

    @property
    def prob(self) -> float:
        return math.exp(self.logprob)

    @property
    def finished(self) -> bool:
        return self.status == FINISHED


def length_score(logprob: float, depth: int, alpha: float) -> float:
    """Length-normalised score logP / t^alpha (t = tokens generated; alpha=0 gives logP)."""
    if alpha == 0.0 or depth == 0:
        return logprob
    return logprob / depth**alpha


@dataclass(frozen=True)
class Step:
    """What one greedy or beam-search step did; the UI animates it (expand, score, prune, finish).

    `candidates` holds every extension of every hypothesis in `expanded`, ranked by cumulative
    log-probability (best first), each with its status: "kept" (live in the next beam),
    "finished" (ended in </s> and set aside), or "pruned". `beam` is the live set after the
    step, `finished` every finished hypothesis so far, best score first. `stop` says why the
    search ended at this step (search.NO_LIVE, MAX_LENGTH or WIDTH_FINISHED), else None.
    """

    index: int  # 1-based; after it, hypotheses hold `index` generated tokens
    expanded: tuple[Node, ...]
    candidates: tuple[Node, ...]
    beam: tuple[Node, ...]
    finished: tuple[Node, ...]
    stop: str | None
    next_id: int = field(repr=False)
    states: tuple[Any, ...] = field(repr=False, compare=False)  # model states of `beam`

    @property
    def kept(self) -> tuple[Node, ...]:
        return tuple(c for c in self.candidates if c.status == KEPT)

    @property
    def pruned(self) -> tuple[Node, ...]:
        return tuple(c for c in self.candidates if c.status == PRUNED)

    @property
    def new_finished(self) -> tuple[Node, ...]:
        """Candidates that ended in </s> at this step and made the cut."""
        return tuple(c for c in self.candidates if c.status == FINISHED)


@dataclass(frozen=True)
class DecodeResult:
    """The outcome of a search: finished hypotheses by score, then any still-live ones."""

    best: Node
    hypotheses: tuple[Node, ...]
    vocab: tuple[str, ...] = field(repr=False)
    stop: str | None = None  # why the search ended (None: it was not run to the end)

    def ranked(self, by: str = "score") -> tuple[Node, ...]:
        """Finished hypotheses first, best first by `score` (length-normalised) or `logprob`."""
        if by not in ("score", "logprob"):
            raise ValueError(f"rank by 'score' or 'logprob', not {by!r}.")
        return tuple(sorted(self.hypotheses, key=lambda n: (not n.finished, -getattr(n, by))))

    def words(self, node: Node) -> list[str]:
        return [self.vocab[t] for t in node.tokens]

    def to_json(self) -> dict[str, Any]:
        """The `seqviz decode --json` shape (tokens exclude <s>, include </s> when finished)."""
        return {
            "best": {"tokens": self.words(self.best), "logprob": self.best.logprob},
            "stopped": self.stop,
            "hypotheses": [
                {
                    "tokens": self.words(h),
                    "logprob": h.logprob,
                    "score": h.score,
                    "finished": h.finished,
                }
                for h in self.hypotheses
            ],
        }
