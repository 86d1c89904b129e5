"""Sampling (temperature, top-k, top-p) as a seeded, step-able state machine that can step back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seqviz.decoding.filters import Distribution, check_sampling, filter_distribution
from seqviz.decoding.models import LanguageModel
from seqviz.decoding.records import EMPTY_PATH, FINISHED, KEPT, ROOT, Node
from seqviz.decoding.search import MAX_LENGTH, check_search, node_distribution


@dataclass(frozen=True)
class SampleStep:
    """One drawn token: the node it extends, the filtered distribution it came from, the result.

    Samples share a tree: drawing a token already drawn from the same node reuses that node
    (`new_node` is False), so the tree shows which branches sampling visits how often.
    `stop` is "finished" (drew </s>) or "max length" when this draw ends sample number `sample`.
    """

    index: int  # 0-based position in the history
    sample: int  # 0-based number of the sample this draw belongs to
    parent: Node
    distribution: Distribution
    node: Node  # the child reached (status "finished" if it is </s>)
    draw: float  # the uniform number in [0, 1) that chose the token
    new_node: bool
    stop: str | None
    # the generator's state before the draw
    rng_state: Mapping[str, Any] = field(repr=False, compare=False)
    state: Any = field(repr=False, compare=False)  # model state after `node`


@dataclass(frozen=True)
class SampleResult:
    """The finished samples (each a leaf node; its `tokens` are the whole sample)."""

    samples: tuple[Node, ...]
    vocab: tuple[str, ...] = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "samples": [
                {"tokens": [self.vocab[t] for t in s.tokens], "logprob": s.logprob}
                for s in self.samples
            ]
        }


class Sampler:
    """Draw `samples` sequences token by token from the filtered next-token distributions.

    Reproducible: the same seed gives the same samples, and `back()` restores the random
    generator, so stepping back and forward again redraws the same tokens.
    """

    def __init__(
        self,
        model: LanguageModel,
        prompt: str = "",
        *,
        temperature: float = 1.0,
        top_k: int | None = None,
        top_p: float | None = None,
        seed: int | None = 0,
        samples: int = 1,
        max_len: int = 20,
    ) -> None:
        check_sampling(temperature, top_k, top_p)
        check_search(max_len, 0.0)
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise ValueError(f"the number of samples must be a whole number >= 1, got {samples}.")
        self.model = model
        self.temperature, self.top_k, self.top_p = float(temperature), top_k, top_p
        self.n_samples, self.max_len = samples, int(max_len)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.prompt_ids = tuple(model.encode(prompt))
        root_tok = self.prompt_ids[-1] if self.prompt_ids else model.bos_id
        self.root = Node(0, -1, root_tok, model.vocab[root_tok], 0, 0.0, 0.0, 0.0, ROOT, EMPTY_PATH)
        self._root_state = model.start(self.prompt_ids)
        self._history: list[SampleStep] = []
        self._children: dict[tuple[int, int], Node] = {}
        self._dist_cache: dict[int, Distribution] = {}

    @property
    def history(self) -> tuple[SampleStep, ...]:
        return tuple(self._history)

    @property
    def current(self) -> SampleStep | None:
        return self._history[-1] if self._history else None

    @property
    def finished_samples(self) -> tuple[Node, ...]:
        return tuple(s.node for s in self._history if s.stop is not None)

    @property
    def done(self) -> bool:
        return len(self.finished_samples) >= self.n_samples

    def _position(self) -> tuple[int, Node, Any]:
        """(sample number, node to extend, its model state) for the next draw."""
        if not self._history:
            return 0, self.root, self._root_state
        last = self._history[-1]
        if last.stop is not None:
            return last.sample + 1, self.root, self._root_state
        return last.sample, last.node, last.state

    def step(self) -> SampleStep | None:
        """Draw one token; returns its record, or None once all samples are complete."""
        if self.done:
            return None
        sample, parent, state = self._position()
        dist = self._dist_cache.get(parent.id)
        if dist is None:
            lp = self.model.logprobs([state])[0]
            dist = filter_distribution(
                lp, self.model.vocab, self.temperature, self.top_k, self.top_p
            )
            self._dist_cache[parent.id] = dist
        rng_state = self.rng.bit_generator.state
        u = float(self.rng.random())
        support = dist.support
        cum = np.cumsum(dist.final[support])
        k = int(np.searchsorted(cum, u * cum[-1], side="right"))
        tok = int(support[min(k, len(support) - 1)])
        key = (parent.id, tok)
        node = self._children.get(key)
        new_node = node is None
        if node is None:
            lp_tok = float(np.log(dist.probs[tok]))
            depth = parent.depth + 1
            node = Node(
                len(self._children) + 1,
                parent.id,
                tok,
                self.model.vocab[tok],
                depth,
                lp_tok,
                parent.logprob + lp_tok,
                parent.logprob + lp_tok,
                FINISHED if tok == self.model.eos_id else KEPT,
                parent.tokens.extend(tok),
            )
            self._children[key] = node
        if node.finished:
            stop: str | None = "finished"
            new_state = None
        else:
            stop = MAX_LENGTH if node.depth >= self.max_len else None
            new_state = None if stop else self.model.advance([state], [tok])[0]
        rec = SampleStep(
            len(self._history), sample, parent, dist, node, u, new_node, stop, rng_state, new_state
        )
        self._history.append(rec)
        return rec

    def back(self) -> SampleStep | None:
        """Undo the last draw (the generator is rewound too); returns the now-current record."""
        if self._history:
            rec = self._history.pop()
            self.rng.bit_generator.state = rec.rng_state
            if rec.new_node:
                del self._children[(rec.parent.id, rec.node.token)]
                self._dist_cache.pop(rec.node.id, None)
        return self.current

    def distribution(self, node_id: int) -> Distribution:
        """The filtered next-token distribution sampling uses after `node_id`."""
        node = self.nodes()[node_id]
        return node_distribution(
            self.model, self.prompt_ids, node, self.temperature, self.top_k, self.top_p
        )

    def seek(self, n_draws: int) -> SampleStep | None:
        """Draw or step back until exactly `n_draws` draws are in the history (or all are done)."""
        while len(self._history) > max(n_draws, 0):
            self.back()
        while len(self._history) < n_draws and self.step() is not None:
            pass
        return self.current

    def nodes(self) -> dict[int, Node]:
        """Every node of the sampling tree so far, by id (the root is 0)."""
        out = {0: self.root}
        out.update((n.id, n) for n in self._children.values())
        return out

    def visits(self) -> dict[int, int]:
        """How many draws reached each node so far."""
        counts: dict[int, int] = {}
        for s in self._history:
            counts[s.node.id] = counts.get(s.node.id, 0) + 1
        return counts

    def run(self) -> SampleResult:
        while self.step() is not None:
            pass
        return self.result()

    def result(self) -> SampleResult:
        return SampleResult(self.finished_samples, self.model.vocab)
