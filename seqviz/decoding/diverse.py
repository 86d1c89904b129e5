"""Diverse beam search (Vijayakumar et al. 2018): G groups of width/G, each a lesson beam, where
a token the earlier groups chose at this step costs `diversity` x (times chosen) in log-prob.

Groups run in order at every step, as in the paper and the common libraries: group g sees the
tokens groups 0..g-1 have just kept or finished. A hypothesis's log-prob accumulates the
penalised scores (what the groups rank by); the tree marks penalised candidates with why.
At the first step every group extends the root, so the penalty is what separates them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from seqviz.decoding.models import LanguageModel
from seqviz.decoding.processors import DIVERSITY_NOTE, Processors
from seqviz.decoding.records import Candidates, Step
from seqviz.decoding.search import (
    MAX_LENGTH,
    NO_LIVE,
    _Search,
    check_memory,
    check_search,
)

MAX_GROUPS = 16


class DiverseBeamSearch(_Search):
    """Beam search in `groups` groups of `width // groups` with a Hamming diversity penalty."""

    def __init__(
        self,
        model: LanguageModel,
        prompt: str = "",
        *,
        width: int = 4,
        groups: int = 2,
        diversity: float = 1.0,
        max_len: int = 20,
        alpha: float = 0.0,
        penalty: str = "plain",
        processors: Processors | None = None,
    ) -> None:
        check_search(max_len, alpha, width, penalty)
        if isinstance(groups, bool) or not isinstance(groups, int) or not 1 <= groups <= MAX_GROUPS:
            raise ValueError(f"diverse groups must be a whole number from 1 to {MAX_GROUPS}.")
        if width % groups:
            raise ValueError(
                f"the beam width ({width}) must be a multiple of the diverse groups ({groups})."
            )
        if not isinstance(diversity, (int, float)) or not 0.0 <= diversity <= 100.0:
            raise ValueError(f"diversity must be a number from 0 to 100, got {diversity}.")
        if processors is None:  # the diversity note needs the processors' note names
            processors = Processors(eos_id=model.eos_id)
        super().__init__(
            model, prompt, max_len=max_len, alpha=alpha, penalty=penalty, processors=processors
        )
        self.width, self.groups, self.diversity = int(width), int(groups), float(diversity)
        self.group_width = self.width // self.groups
        self._group: dict[int, int] = {}  # kept node id -> its group
        check_memory(model, self.width, self.max_len, self._root_state)

    def group_of(self, node_id: int) -> int | None:
        return self._group.get(node_id)

    def _step(self, beam, states, finished, next_id) -> Step:
        model, V = self.model, len(self.model.vocab)
        first = beam[0].depth == 0
        chosen = np.zeros(V)  # times each token was kept/finished by earlier groups this step
        parts: list[list[np.ndarray]] = []
        kept_nodes: list[tuple[int, int, int]] = []  # (group, part, position)
        done_nodes: list[tuple[int, int]] = []
        considered = 0
        offset = 0
        for g in range(self.groups):
            rows_g = [i for i, n in enumerate(beam) if first or self._group.get(n.id) == g]
            if not rows_g:
                continue
            hyps = [beam[i] for i in rows_g]
            raw = model.logprobs([states[i] for i in rows_g])
            lp, notes = (
                self.processors.apply(raw, hyps, self.prompt_ids)
                if self.processors.active
                else (np.array(raw, dtype=np.float64), np.zeros(raw.shape, np.int8))
            )
            if self.diversity and chosen.any():
                hit = (chosen > 0) & np.isfinite(lp)
                lp = lp - self.diversity * chosen[None, :]
                notes = np.where(hit & (notes == 0), DIVERSITY_NOTE, notes).astype(np.int8)
            arrays, kept_at, done_at, n = self._select(hyps, raw, lp, notes, self.group_width)
            considered += n
            arrays[0] = np.asarray(rows_g, dtype=np.int32)[arrays[0]]  # rows into the beam
            for i in (*kept_at, *done_at):
                chosen[int(arrays[1][i])] += 1
            kept_nodes += [(g, offset + i, 0) for i in kept_at]
            done_nodes += [(g, offset + i) for i in done_at]
            offset += len(arrays[1])
            parts.append(arrays)
        cat = [np.concatenate([p[k] for p in parts]) for k in range(5)]
        cands = Candidates(next_id, tuple(beam), cat[0], cat[1], cat[2], cat[3], cat[4], self._how)
        next_id += len(cands)
        kept = tuple(cands[i] for _, i, _ in kept_nodes)
        for (g, _, _), node in zip(kept_nodes, kept, strict=True):
            self._group[node.id] = g
        new_done = tuple(cands[i] for _, i in done_nodes)
        done = tuple(sorted(finished + new_done, key=lambda n: -n.score))
        index = beam[0].depth + 1
        stop = NO_LIVE if not kept else MAX_LENGTH if index >= self.max_len else None
        if stop is None:
            rows = [int(cat[0][i]) for _, i, _ in kept_nodes]
            new_states: tuple[Any, ...] = tuple(
                model.advance([states[b] for b in rows], [n.token for n in kept])
            )
        else:
            new_states = tuple(None for _ in kept)
        return Step(index, beam, cands, kept, done, stop, next_id, new_states, considered)
