"""Exact search: the most probable finished sequence, found best-first, as a step-able machine.

With alpha 0 the cost -log P only grows along a path, so uniform-cost search (pop the most
probable prefix first) is exact: the first finished hypothesis popped beats every other. With a
length penalty the score logP / penalty(|y|) is not monotone, so an open prefix is ranked by a
bound no extension can beat, logP / penalty(max_len) (log P only falls and the divisor is
largest at max_len), and a finished one by its score: the first finished hypothesis popped is
still the exact optimum among sequences of at most max_len tokens, though the looser bound
means more nodes are expanded. A node budget caps the work; when it is reached the best
finished hypothesis found so far is returned, and `proved` says it is not proven optimal.

Children are generated lazily (a popped prefix pushes its </s> child and only its most
probable other child; popping a child pushes its next sibling), so the frontier grows by at
most two entries per expansion, whatever the vocabulary size.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from seqviz.decoding.models import LanguageModel
from seqviz.decoding.records import (
    EMPTY_PATH,
    FINISHED,
    KEPT,
    ROOT,
    DecodeResult,
    Node,
    length_penalty,
    length_score,
)
from seqviz.decoding.search import MEMORY_BUDGET, NODE_BYTES, check_search, state_bytes

OPTIMAL, BUDGET, EXHAUSTED = "optimal", "node budget", "no finished hypothesis"
DEFAULT_BUDGET = 20_000
MAX_BUDGET = 1_000_000
EXACT_MEANING = {
    OPTIMAL: "the most probable finished sequence was proved optimal",
    BUDGET: "the node budget ran out before an optimum was proved; the best found is shown",
    EXHAUSTED: "no sequence ends in </s> within the length limit",
}


@dataclass(frozen=True)
class ExactStep:
    """One expansion: the prefix popped (or the finished hypothesis that ends the search)."""

    index: int  # 1-based
    popped: Node  # status "kept" for an expanded prefix, "finished" for the optimum
    finished: Node | None  # the </s> child this expansion found (None if </s> impossible)
    frontier: int  # entries waiting after this step
    best: Node | None  # best finished hypothesis found so far
    stop: str | None


def budget_message(budget: int) -> str:
    return (
        f"exact search expanded its budget of {budget:,} nodes without proving an optimum; the "
        "best finished hypothesis found so far is shown (raise --node-budget to search further)."
    )


class ExactSearch:
    """Best-first exact search; `step()`, `back()`, `seek(n)`, `run()` as the other searches."""

    def __init__(
        self,
        model: LanguageModel,
        prompt: str = "",
        *,
        max_len: int = 20,
        alpha: float = 0.0,
        penalty: str = "plain",
        node_budget: int = DEFAULT_BUDGET,
    ) -> None:
        check_search(max_len, alpha, 1, penalty)
        if (
            isinstance(node_budget, bool)
            or not isinstance(node_budget, (int, np.integer))
            or not 1 <= node_budget <= MAX_BUDGET
        ):
            raise ValueError(
                f"the node budget must be a whole number from 1 to {MAX_BUDGET:,}, got "
                f"{node_budget}."
            )
        self.model = model
        self.max_len, self.alpha, self.penalty = int(max_len), float(alpha), penalty
        self.node_budget = int(node_budget)
        self.prompt_ids = tuple(model.encode(prompt))
        root_tok = self.prompt_ids[-1] if self.prompt_ids else model.bos_id
        self.root = Node(0, -1, root_tok, model.vocab[root_tok], 0, 0.0, 0.0, 0.0, ROOT, EMPTY_PATH)
        self._root_state = model.start(self.prompt_ids)
        from seqviz.limits import LimitError

        need = self.node_budget * (state_bytes(self._root_state) + 3 * NODE_BYTES)
        if need > MEMORY_BUDGET:
            raise LimitError(
                f"exact search with a budget of {self.node_budget:,} nodes on {model.name!r} "
                f"would keep about {need / 1e9:.1f} GB, over the {MEMORY_BUDGET / 1e9:.1f} GB "
                "budget; lower --node-budget."
            )
        self._divisor = length_penalty(self.max_len, self.alpha, self.penalty)
        # node id -> (model state, token ids by descending log-prob (no </s>), their log-probs)
        self._expanded: dict[int, tuple[Any, np.ndarray, np.ndarray]] = {}
        self._history: list[ExactStep] = []
        self.reset()

    def reset(self) -> None:
        """Back to the root (model outputs already computed stay cached)."""
        self._history = []
        self._tie = itertools.count()
        # entries: (-priority, tie, kind, payload); kind 0: the child of rank `rank` of an
        # expanded prefix (payload (parent, rank)), 1: a finished hypothesis, 2: the root
        self._heap: list[Any] = [(-0.0, -1, 2, self.root)]
        self._next_id = 1
        self._best: Node | None = None

    # --- ranking -----------------------------------------------------------------------------
    def _bound(self, logprob: float) -> float:
        return logprob / self._divisor if self.alpha else logprob

    def score(self, logprob: float, depth: int) -> float:
        return length_score(logprob, depth, self.alpha, self.penalty)

    # --- the machine -------------------------------------------------------------------------
    @property
    def history(self) -> tuple[ExactStep, ...]:
        return tuple(self._history)

    @property
    def current(self) -> ExactStep | None:
        return self._history[-1] if self._history else None

    @property
    def done(self) -> bool:
        return bool(self._history) and self._history[-1].stop is not None

    def _children(self, node: Node, parent_state: Any) -> tuple[Any, np.ndarray, np.ndarray]:
        got = self._expanded.get(node.id)
        if got is None:
            state = (
                parent_state
                if node.depth == 0
                else self.model.advance([parent_state], [node.token])[0]
            )
            lp = self.model.logprobs([state])[0]
            ok = np.flatnonzero(np.isfinite(lp))
            ok = ok[ok != self.model.eos_id]
            order = ok[np.argsort(-lp[ok], kind="stable")]
            got = (state, order, lp)
            self._expanded[node.id] = got
        return got

    def _make(self, nid: int, parent: Node, tok: int, lp_tok: float, status: str) -> Node:
        depth, total = parent.depth + 1, parent.logprob + lp_tok
        return Node(
            nid,
            parent.id,
            tok,
            self.model.vocab[tok],
            depth,
            lp_tok,
            total,
            self.score(total, depth),
            status,
            parent.tokens.extend(tok),
        )

    def step(self) -> ExactStep | None:
        """Pop the best frontier entry and expand it; None once the search has stopped."""
        if self.done:
            return None
        heap, next_id, best = self._heap, self._next_id, self._best
        index = len(self._history) + 1
        if not heap:
            rec = ExactStep(index, self.root, None, 0, best, EXHAUSTED)
            self._history.append(rec)
            return rec
        _, _, kind, payload = heapq.heappop(heap)
        if kind == 1:  # a finished hypothesis outranks every open bound: the optimum
            rec = ExactStep(index, payload, None, len(heap), payload, OPTIMAL)
            self._best = payload
            self._history.append(rec)
            return rec
        if kind == 2:
            node, p_state = payload, self._root_state
        else:
            parent, rank = payload
            p_state, order, lp = self._expanded[parent.id]
            tok = int(order[rank])
            node = self._make(next_id, parent, tok, float(lp[tok]), KEPT)
            next_id += 1
            if rank + 1 < len(order):  # the next sibling waits with its own (lower) bound
                sib = parent.logprob + float(lp[int(order[rank + 1])])
                heapq.heappush(heap, (-self._bound(sib), next(self._tie), 0, (parent, rank + 1)))
        _, order, lp = self._children(node, p_state)
        done = None
        eos = self.model.eos_id
        if node.depth < self.max_len and np.isfinite(lp[eos]):
            done = self._make(next_id, node, eos, float(lp[eos]), FINISHED)
            next_id += 1
            heapq.heappush(heap, (-done.score, next(self._tie), 1, done))
            if best is None or done.score > best.score:
                best = done
        if node.depth + 1 < self.max_len and len(order):
            first = node.logprob + float(lp[int(order[0])])
            heapq.heappush(heap, (-self._bound(first), next(self._tie), 0, (node, 0)))
        stop = BUDGET if index >= self.node_budget else None
        self._next_id, self._best = next_id, best
        rec = ExactStep(index, node, done, len(heap), best, stop)
        self._history.append(rec)
        return rec

    def back(self) -> ExactStep | None:
        """Undo the last expansion (replayed from the root with the model outputs cached)."""
        return self.seek(len(self._history) - 1)

    def seek(self, n_steps: int) -> ExactStep | None:
        if n_steps < len(self._history):
            self.reset()
        while len(self._history) < n_steps and self.step() is not None:
            pass
        return self.current

    def run(self) -> DecodeResult:
        while self.step() is not None:
            pass
        return self.result()

    @property
    def proved(self) -> bool:
        return self.done and self._history[-1].stop == OPTIMAL

    def nodes(self) -> dict[int, Node]:
        """The root, every expanded prefix and every finished hypothesis found, by id."""
        out = {0: self.root}
        for s in self._history:
            out[s.popped.id] = s.popped
            if s.finished is not None:
                out[s.finished.id] = s.finished
        return out

    def result(self) -> DecodeResult:
        """The optimum (or the best found) first, then the other finished ones by score."""
        found = [n for n in self.nodes().values() if n.status == FINISHED]
        found.sort(key=lambda n: -n.score)
        stop = self._history[-1].stop if self._history else None
        best = self._history[-1].best if self._history else None
        if best is not None:
            found.remove(best)
            found.insert(0, best)
        hyps = tuple(found) or (self.root,)
        return DecodeResult(best=hyps[0], hypotheses=hyps, vocab=self.model.vocab, stop=stop)


def first_search_error(steps: Any, optimum: Node) -> int | None:
    """The beam step at which the optimum's prefix was pruned (its parent was in the beam and
    it was not kept or finished), or None if the beam kept every prefix of it (or the search
    stopped before reaching it)."""
    opt = tuple(optimum.tokens)
    for st in steps:
        d = st.index
        if d > len(opt):
            return None
        if not any(tuple(n.tokens) == opt[: d - 1] for n in st.expanded):
            return None
        survivors = (*st.kept, *st.new_finished)
        if not any(tuple(n.tokens) == opt[:d] for n in survivors):
            return d
    return None
