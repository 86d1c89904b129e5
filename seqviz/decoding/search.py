"""Greedy decoding and beam search as step-able state machines with an undoable history."""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import attrgetter
from typing import Any

import numpy as np

from seqviz.decoding.filters import Distribution, filter_distribution
from seqviz.decoding.models import LanguageModel
from seqviz.decoding.records import (
    BLOCKED,
    EMPTY_PATH,
    FINISHED,
    KEPT,
    PENALTIES,
    PRUNED,
    ROOT,
    STATUSES,
    Candidates,
    DecodeResult,
    Node,
    Step,
    length_penalty,
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


# A step lists every extension while there are at most RECORD_ALL of them (the tree scene draws
# them all); a wider step lists the best ones down to the cut and RECORD_BELOW (at least the
# width) pruned below it, so a step costs O(width), not O(width x vocabulary), to keep.
RECORD_ALL = 4096
_SCORE = attrgetter("score")
RECORD_BELOW = 16
# Bytes a search may plan to keep (its history, the model states of every step, one step's
# scores); with the interpreter, NumPy and the model, a run stays under 2 GB.
MEMORY_BUDGET = 1_400_000_000
NODE_BYTES = 400  # one materialised Node with its token path link and floats
CANDIDATE_BYTES = 24  # one recorded candidate in a step's arrays


def check_search(max_len: int, alpha: float, width: int = 1, penalty: str = "plain") -> None:
    """Raise ValueError (one sentence) for search settings outside their allowed range."""
    if penalty not in PENALTIES:
        raise ValueError(f"length penalty must be one of {', '.join(PENALTIES)}, not {penalty!r}.")
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


def state_bytes(state: Any) -> int:
    """Bytes of NumPy arrays a model state holds (a bigram's int state counts as 32)."""
    if isinstance(state, np.ndarray):
        return int(state.nbytes)
    if isinstance(state, (tuple, list)):
        return sum(state_bytes(x) for x in state) + 56
    return 32


def estimate_bytes(model: LanguageModel, width: int, max_len: int, root_state: Any) -> int:
    """Memory a beam search of this width and length plans to keep, at most (see MEMORY_BUDGET).

    Per step: the recorded candidates, the kept and finished Nodes, the model states of the
    beam; once: the (width, V) score arrays of one step and their sort.
    """
    V = len(model.vocab)
    per_step_cands = width * V if width * V <= RECORD_ALL else 3 * width + RECORD_BELOW
    per_step = (
        per_step_cands * CANDIDATE_BYTES
        + 2 * width * NODE_BYTES
        + width * (state_bytes(root_state) + 64)
    )
    transient = 8 * width * V * 8
    return max_len * per_step + transient


def check_memory(model: LanguageModel, width: int, max_len: int, root_state: Any) -> None:
    """Raise LimitError (one sentence) when the search would plan to keep over the budget."""
    from seqviz.limits import LimitError

    need = estimate_bytes(model, width, max_len, root_state)
    if need > MEMORY_BUDGET:
        per = max(need // max_len, 1)
        fits = max(1, (MEMORY_BUDGET - 8 * width * len(model.vocab) * 8) // per)
        raise LimitError(
            f"a search of width {width} and max length {max_len} on {model.name!r} "
            f"({len(model.vocab):,} tokens) would keep about {need / 1e9:.1f} GB, over the "
            f"{MEMORY_BUDGET / 1e9:.1f} GB budget; use a max length of at most {fits:,} or a "
            "smaller width."
        )


def rank_flat(values: np.ndarray, limit: int | None = None) -> tuple[np.ndarray, int]:
    """Flat indices of the finite entries, best first (ties: lower index first), at most `limit`
    of them; and how many entries are finite. Partitions first when only a few are wanted."""
    flat = values.ravel()
    finite = np.isfinite(flat)
    n = int(np.count_nonzero(finite))
    if limit is None or n <= 4 * limit:
        idx = np.flatnonzero(finite)
        idx = idx[np.argsort(-flat[idx], kind="stable")]
        return (idx if limit is None else idx[:limit]), n
    vals = np.where(finite, flat, -np.inf)
    kth = np.partition(vals, vals.size - limit)[vals.size - limit]  # the limit-th largest
    idx = np.flatnonzero(vals >= kth)
    idx = idx[np.argsort(-vals[idx], kind="stable")]
    return idx[:limit], n


class _Search:
    """Shared machinery: the root, the history of Step records, stepping back, the result."""

    width = 1
    keep_live = False

    def __init__(
        self,
        model: LanguageModel,
        prompt: str = "",
        *,
        max_len: int = 20,
        alpha: float = 0.0,
        penalty: str = "plain",
        processors: Any = None,
    ) -> None:
        check_search(max_len, alpha, 1, penalty)
        self.model = model
        self.max_len = int(max_len)
        self.alpha = float(alpha)
        self.penalty = penalty
        self.processors = processors
        self.prompt_ids = tuple(model.encode(prompt))
        root_tok = self.prompt_ids[-1] if self.prompt_ids else model.bos_id
        self.root = Node(0, -1, root_tok, model.vocab[root_tok], 0, 0.0, 0.0, 0.0, ROOT, EMPTY_PATH)
        self._root_state = model.start(self.prompt_ids)
        self._history: list[Step] = []
        note_names = ("",) + (processors.note_names if processors is not None else ())
        self._how = (tuple(model.vocab), (self.alpha, self.penalty), note_names)

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

    # --- reading the tree --------------------------------------------------------------------
    def nodes(self) -> dict[int, Node]:
        """Every node recorded so far (root, kept, finished, pruned and blocked) by id."""
        out = {0: self.root}
        for s in self._history:
            out.update((c.id, c) for c in s.candidates)
        return out

    def node(self, node_id: int) -> Node:
        """One recorded node by id, without building the whole tree."""
        if node_id == 0:
            return self.root
        for s in self._history:
            c = s.candidates
            if isinstance(c, Candidates) and c.first_id <= node_id < c.first_id + len(c):
                return c[node_id - c.first_id]
            for n in () if isinstance(c, Candidates) else c:
                if n.id == node_id:
                    return n
        raise KeyError(node_id)

    def path(self, node_id: int) -> list[Node]:
        """The nodes from the root to `node_id`, root first."""
        out = [self.node(node_id)]
        while out[-1].parent >= 0:
            out.append(self.node(out[-1].parent))
        return out[::-1]

    def distribution(
        self,
        node_id: int,
        temperature: float = 1.0,
        top_k: int | None = None,
        top_p: float | None = None,
    ) -> Distribution:
        """Next-token distribution after `node_id` (any node, pruned too) with the cut-offs."""
        node = self.node(node_id)
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

    def score(self, logprob: float, depth: int) -> float:
        return length_score(logprob, depth, self.alpha, self.penalty)

    # --- one step of beam search (greedy is width 1) -------------------------------------------
    def _select(
        self, beam: Sequence[Node], raw: np.ndarray, lp: np.ndarray, notes: Any, width: int
    ) -> tuple[list[np.ndarray], list[int], list[int], int]:
        """Rank one beam's extensions and keep `width` slots: the candidate arrays (rows, tokens,
        log-probs, status codes, note codes), the kept and finished positions, the count."""
        eos = self.model.eos_id
        B, V = lp.shape
        totals = np.array([n.logprob for n in beam])[:, None] + lp  # (B, V)
        wide = B * V > RECORD_ALL
        below = max(width, RECORD_BELOW)
        idx, considered = rank_flat(totals, 2 * width + below if wide else None)
        rows, toks = np.divmod(idx, V)
        codes = np.full(len(idx), STATUSES.index(PRUNED), dtype=np.int8)
        kept_at: list[int] = []
        done_at: list[int] = []
        slots = 0
        cut = 0
        for i, tok in enumerate(toks.tolist()):
            if slots >= width:
                break
            cut = i + 1
            if tok == eos:
                codes[i] = STATUSES.index(FINISHED)
                done_at.append(i)
                slots += 0 if self.keep_live else 1
            else:
                codes[i] = STATUSES.index(KEPT)
                kept_at.append(i)
                slots += 1
        if wide:
            idx, rows, toks, codes = (a[: cut + below] for a in (idx, rows, toks, codes))
        cand_lps = lp.ravel()[idx]
        cand_notes = (
            np.zeros(len(idx), np.int8) if notes is None else notes.ravel()[idx].astype(np.int8)
        )
        if notes is not None and not wide:
            # tokens the model allows but a processor blocked: listed after the ranked ones
            blocked = np.flatnonzero(np.isfinite(raw.ravel()) & ~np.isfinite(lp.ravel()))
            if len(blocked):
                b_rows, b_toks = np.divmod(blocked, V)
                rows = np.concatenate([rows, b_rows])
                toks = np.concatenate([toks, b_toks])
                codes = np.concatenate(
                    [codes, np.full(len(blocked), STATUSES.index(BLOCKED), np.int8)]
                )
                cand_lps = np.concatenate([cand_lps, raw.ravel()[blocked]])
                cand_notes = np.concatenate([cand_notes, notes.ravel()[blocked].astype(np.int8)])
        arrays = [rows.astype(np.int32), toks.astype(np.int32), cand_lps, codes, cand_notes]
        return arrays, kept_at, done_at, considered

    def _step(self, beam, states, finished, next_id) -> Step:
        model, width = self.model, self.width
        raw = model.logprobs(list(states))  # (B, V)
        lp, notes = raw, None
        if self.processors is not None:
            lp, notes = self.processors.apply(raw, beam, self.prompt_ids)  # (B, V), (B, V) int8
        arrays, kept_at, done_at, considered = self._select(beam, raw, lp, notes, width)
        rows, toks, lps, codes, note_codes = arrays
        cands = Candidates(
            next_id, tuple(beam), rows, toks, lps, codes, None if notes is None else note_codes,
            self._how,
        )  # fmt: skip
        next_id += len(cands)
        kept = tuple(cands[i] for i in kept_at)
        kept_rows = [int(rows[i]) for i in kept_at]
        new_done = [cands[i] for i in done_at]

        done = tuple(sorted(finished + tuple(new_done), key=_SCORE, reverse=True))  # stable
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
        if stop is None:
            new_states = tuple(
                model.advance([states[b] for b in kept_rows], [n.token for n in kept])
            )
        else:
            new_states = tuple(None for _ in kept)
        return Step(index, beam, cands, kept, done, stop, next_id, new_states, considered)

    def best_possible(self, node: Node) -> float:
        """The highest score any extension of live `node` can reach: log P only falls, and the
        length divisor grows to at most its value at max_len (log P <= 0)."""
        if not self.alpha:
            return node.logprob
        return node.logprob / length_penalty(self.max_len, self.alpha, self.penalty)


class Greedy(_Search):
    """Pick the single most probable next token at every step, until </s> or max length
    (beam search of width 1: every other extension is pruned)."""

    def __init__(self, model: LanguageModel, prompt: str = "", **kw: Any) -> None:
        super().__init__(model, prompt, **kw)
        check_memory(model, 1, self.max_len, self._root_state)


class BeamSearch(_Search):
    """Beam search as in the lesson: extend every live hypothesis by every token, rank all
    candidates by cumulative log-probability, keep the best `width`; those ending in </s> are
    finished and use up their slot. Stops when nothing is live or at `max_len` tokens.

    With `keep_live=True` (the other common variant) the best `width` *live* hypotheses are
    kept; finished candidates ranked above the last of them are set aside without taking a slot,
    and the search also stops once `width` hypotheses have finished and no live hypothesis can
    still beat the best of them (`best_possible`), so it never returns a sentence worse than one
    it could still have reached.

    Memory is linear in steps x width: nodes share their parents' token paths, a wide step
    records only its best candidates, and a search whose plan exceeds MEMORY_BUDGET is refused
    (LimitError) before it starts.
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
        penalty: str = "plain",
        processors: Any = None,
    ) -> None:
        check_search(max_len, alpha, width, penalty)
        super().__init__(
            model, prompt, max_len=max_len, alpha=alpha, penalty=penalty, processors=processors
        )
        self.width = int(width)
        self.keep_live = bool(keep_live)
        check_memory(model, self.width, self.max_len, self._root_state)
