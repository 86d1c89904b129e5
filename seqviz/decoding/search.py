"""Greedy decoding and beam search as step-able state machines with an undoable history."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from seqviz.decoding.filters import Distribution, filter_distribution
from seqviz.decoding.models import LanguageModel
from seqviz.decoding.records import (
    FINISHED,
    KEPT,
    PRUNED,
    ROOT,
    DecodeResult,
    Node,
    Step,
    length_score,
)

NO_LIVE, MAX_LENGTH = "no live hypotheses", "max length"
# keep_live stops once `width` hypotheses finished *and* no live one can still beat the best
WIDTH_FINISHED = "width finished, no live one can win"
STOP_MEANING = {
    NO_LIVE: "every hypothesis kept ended in </s>",
    MAX_LENGTH: "the length limit was reached",
    WIDTH_FINISHED: "no live hypothesis can still outscore the best finished one",
}


def check_search(max_len: int, alpha: float, width: int = 1) -> None:
    """Raise ValueError (one sentence) for search settings outside their allowed range."""
    if isinstance(width, bool) or not isinstance(width, (int, np.integer)) or width < 1:
        raise ValueError(f"beam width must be a whole number >= 1, got {width}.")
    if isinstance(max_len, bool) or not isinstance(max_len, (int, np.integer)) or max_len < 1:
        raise ValueError(f"max length must be a whole number >= 1, got {max_len}.")
    if not isinstance(alpha, (int, float)) or not math.isfinite(alpha) or alpha < 0:
        raise ValueError(f"alpha (length normalisation) must be a finite number >= 0, got {alpha}.")


def node_distribution(
    model: LanguageModel,
    prompt_ids: tuple[int, ...],
    node: Node,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> Distribution:
    """The next-token distribution after a tree node, with temperature/top-k/top-p applied."""
    if node.finished or (node.tokens and node.tokens[-1] == model.eos_id):
        raise ValueError(
            "a finished hypothesis (or a pruned one ending in </s>) has no next-token distribution."
        )
    state = model.start(prompt_ids + node.tokens)
    lp = model.logprobs([state])[0]
    return filter_distribution(lp, model.vocab, temperature, top_k, top_p)


class _Search:
    """Shared machinery: the root, the history of Step records, stepping back, the result."""

    def __init__(
        self, model: LanguageModel, prompt: str = "", *, max_len: int = 20, alpha: float = 0.0
    ) -> None:
        check_search(max_len, alpha)
        self.model = model
        self.max_len = int(max_len)
        self.alpha = float(alpha)
        self.prompt_ids = tuple(model.encode(prompt))
        root_tok = self.prompt_ids[-1] if self.prompt_ids else model.bos_id
        self.root = Node(0, -1, root_tok, model.vocab[root_tok], 0, 0.0, 0.0, 0.0, ROOT, ())
        self._root_state = model.start(self.prompt_ids)
        self._history: list[Step] = []

    # --- history -------------------------------------------------------------------------
    @property
    def history(self) -> tuple[Step, ...]:
        """Every step taken so far, oldest first (immutable records)."""
        return tuple(self._history)

    @property
    def current(self) -> Step | None:
        return self._history[-1] if self._history else None

    @property
    def done(self) -> bool:
        return bool(self._history) and self._history[-1].stop is not None

    @property
    def beam(self) -> tuple[Node, ...]:
        """The live hypotheses the next step will extend."""
        return self._history[-1].beam if self._history else (self.root,)

    def _live(self) -> tuple[tuple[Node, ...], tuple[Any, ...], tuple[Node, ...], int]:
        if not self._history:
            return (self.root,), (self._root_state,), (), 1
        s = self._history[-1]
        return s.beam, s.states, s.finished, s.next_id

    def step(self) -> Step | None:
        """Take one step and return its record, or None if the search has already stopped."""
        if self.done:
            return None
        rec = self._step(*self._live())
        self._history.append(rec)
        return rec

    def back(self) -> Step | None:
        """Undo the last step; returns the step now current (None when back at the root)."""
        if self._history:
            self._history.pop()
        return self.current

    def reset(self) -> None:
        self._history.clear()

    def seek(self, n_steps: int) -> Step | None:
        """Step forward or back until exactly `n_steps` steps are taken (or the search stops)."""
        while len(self._history) > max(n_steps, 0):
            self.back()
        while len(self._history) < n_steps and self.step() is not None:
            pass
        return self.current

    def run(self) -> DecodeResult:
        """Step until the search stops and return the result."""
        while self.step() is not None:
            pass
        return self.result()

    def _step(self, beam, states, finished, next_id) -> Step:  # pragma: no cover - abstract
        raise NotImplementedError

    # --- reading the tree --------------------------------------------------------------------
    def nodes(self) -> dict[int, Node]:
        """Every node created so far (root, kept, finished and pruned) by id."""
        out = {0: self.root}
        for s in self._history:
            out.update((c.id, c) for c in s.candidates)
        return out

    def path(self, node_id: int) -> list[Node]:
        """The nodes from the root to `node_id`, root first."""
        nodes = self.nodes()
        out = [nodes[node_id]]
        while out[-1].parent >= 0:
            out.append(nodes[out[-1].parent])
        return out[::-1]

    def distribution(
        self,
        node_id: int,
        temperature: float = 1.0,
        top_k: int | None = None,
        top_p: float | None = None,
    ) -> Distribution:
        """Next-token distribution after `node_id` (any node, pruned too) with the cut-offs."""
        node = self.nodes()[node_id]
        return node_distribution(self.model, self.prompt_ids, node, temperature, top_k, top_p)

    def result(self) -> DecodeResult:
        """Finished hypotheses by score (best first), then still-live ones; `best` is the first."""
        beam, _, finished, _ = self._live()
        live = [] if beam == (self.root,) else sorted(beam, key=lambda n: -n.score)
        hyps = tuple(finished) + tuple(live)
        if not hyps:
            hyps = (self.root,)
        stop = self._history[-1].stop if self._history else None
        return DecodeResult(best=hyps[0], hypotheses=hyps, vocab=self.model.vocab, stop=stop)

    def _child(self, nid: int, parent: Node, tok: int, lp_tok: float, status: str) -> Node:
        depth = parent.depth + 1
        total = parent.logprob + lp_tok
        return Node(
            nid,
            parent.id,
            tok,
            self.model.vocab[tok],
            depth,
            lp_tok,
            total,
            length_score(total, depth, self.alpha),
            status,
            parent.tokens + (tok,),
        )


class Greedy(_Search):
    """Pick the single most probable next token at every step, until </s> or max length."""

    def _step(self, beam, states, finished, next_id) -> Step:
        parent, state = beam[0], states[0]
        lp = self.model.logprobs([state])[0]  # (V,)
        choice = int(np.argmax(lp))
        ranked = np.nonzero(np.isfinite(lp))[0]
        ranked = ranked[np.argsort(-lp[ranked], kind="stable")]
        cands = []
        chosen = None
        for tok in ranked.tolist():
            if tok == choice:
                status = FINISHED if tok == self.model.eos_id else KEPT
            else:
                status = PRUNED
            node = self._child(next_id, parent, tok, float(lp[tok]), status)
            next_id += 1
            cands.append(node)
            if tok == choice:
                chosen = node
        assert chosen is not None
        index = parent.depth + 1
        if chosen.status == FINISHED:
            return Step(index, beam, tuple(cands), (), (chosen,), NO_LIVE, next_id, ())
        if index >= self.max_len:
            return Step(index, beam, tuple(cands), (chosen,), (), MAX_LENGTH, next_id, (None,))
        new_state = self.model.advance([state], [choice])
        return Step(index, beam, tuple(cands), (chosen,), (), None, next_id, tuple(new_state))


class BeamSearch(_Search):
    """Beam search as in the lesson: extend every live hypothesis by every token, rank all
    candidates by cumulative log-probability, keep the best `width`; those ending in </s> are
    finished and use up their slot. Stops when nothing is live or at `max_len` tokens.

    With `keep_live=True` (the other common variant) the best `width` *live* hypotheses are
    kept; finished candidates ranked above the last of them are set aside without taking a slot,
    and the search also stops once `width` hypotheses have finished and no live hypothesis can
    still beat the best of them (`best_possible`), so it never returns a sentence worse than one
    it could still have reached.
    """

    def __init__(
        self,
        model: LanguageModel,
        prompt: str = "",
        *,
        width: int = 3,
        max_len: int = 20,
        alpha: float = 0.0,
        keep_live: bool = False,
    ) -> None:
        check_search(max_len, alpha, width)
        super().__init__(model, prompt, max_len=max_len, alpha=alpha)
        self.width = int(width)
        self.keep_live = bool(keep_live)

    def best_possible(self, node: Node) -> float:
        """The highest score any extension of live `node` can reach: log P only falls, and the
        length divisor t^alpha grows to at most max_len^alpha (log P <= 0)."""
        return length_score(node.logprob, self.max_len, self.alpha) if self.alpha else node.logprob

    def _step(self, beam, states, finished, next_id) -> Step:
        model, eos = self.model, self.model.eos_id
        lp = model.logprobs(list(states))  # (B, V)
        B, V = lp.shape
        totals = np.array([n.logprob for n in beam])[:, None] + lp  # (B, V)
        flat = totals.ravel()
        idx = np.flatnonzero(np.isfinite(flat))
        idx = idx[np.argsort(-flat[idx], kind="stable")]  # ties: earlier beam, lower token id
        rows, toks = np.divmod(idx, V)
        lp_flat = lp.ravel()

        cands: list[Node] = []
        kept: list[Node] = []
        kept_rows: list[int] = []
        new_done: list[Node] = []
        slots = 0
        for i, b, tok in zip(idx.tolist(), rows.tolist(), toks.tolist(), strict=True):
            if slots < self.width:
                if tok == eos:
                    status = FINISHED
                    slots += 0 if self.keep_live else 1
                else:
                    status = KEPT
                    slots += 1
            else:
                status = PRUNED
            node = self._child(next_id, beam[b], tok, float(lp_flat[i]), status)
            next_id += 1
            cands.append(node)
            if status == KEPT:
                kept.append(node)
                kept_rows.append(b)
            elif status == FINISHED:
                new_done.append(node)

        done = tuple(sorted(finished + tuple(new_done), key=lambda n: -n.score))
        index = beam[0].depth + 1
        if not kept:
            stop: str | None = NO_LIVE
        elif index >= self.max_len:
            stop = MAX_LENGTH
        elif (
            self.keep_live
            and len(done) >= self.width
            and all(self.best_possible(n) <= done[0].score for n in kept)
        ):
            stop = WIDTH_FINISHED
        else:
            stop = None
        new_states = (
            tuple(model.advance([states[b] for b in kept_rows], [n.token for n in kept]))
            if kept and stop is None
            else ()
        )
        if stop is not None:
            new_states = tuple(None for _ in kept)
        return Step(index, beam, tuple(cands), tuple(kept), done, stop, next_id, new_states)
