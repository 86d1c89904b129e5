"""Decoding engine: greedy, beam search and sampling as step-able state machines.

Headless (NumPy only). Models: `toy_model()` (the lesson's bigram), `load_bigram(path)`,
`seqviz.models.load(path or "agreement")`; all follow `LanguageModel`.

Searches (`Greedy`, `BeamSearch(width, alpha, max_len, keep_live)`) and `Sampler(temperature,
top_k, top_p, seed, samples)` share one shape: `step()` appends an immutable record to
`history` and returns it (None once done), `back()` undoes one, `seek(n)` goes to step n,
`run()` finishes and returns the result, `nodes()` maps node id -> `Node` (the whole tree,
pruned nodes included), `distribution(node_id, ...)` gives a node's next-token `Distribution`
with the cut-off stage of every token. A search `Step` lists `expanded` (parents), `candidates`
(ranked, each with status kept/finished/pruned), `beam`, `finished` and `stop`; a `SampleStep`
the parent, its `Distribution`, the drawn `node` and the uniform `draw`.

    >>> from seqviz.decoding import BeamSearch, toy_model
    >>> search = BeamSearch(toy_model(), width=2, max_len=6)
    >>> rec = search.step()          # a Step: expanded, candidates (kept/finished/pruned), beam
    >>> search.back()                # undo it
    >>> search.run().best.tokens     # token ids of the best hypothesis
"""

from __future__ import annotations

from seqviz.decoding.filters import Distribution, check_sampling, filter_distribution
from seqviz.decoding.models import (
    BOS,
    EOS,
    TOY_BIGRAM,
    BigramModel,
    LanguageModel,
    join_tokens,
    load_bigram,
    toy_model,
)
from seqviz.decoding.records import DecodeResult, Node, Step, length_score
from seqviz.decoding.sampling import Sampler, SampleResult, SampleStep
from seqviz.decoding.search import BeamSearch, Greedy, check_search, node_distribution

__all__ = [
    "BOS",
    "EOS",
    "TOY_BIGRAM",
    "BeamSearch",
    "BigramModel",
    "DecodeResult",
    "Distribution",
    "Greedy",
    "LanguageModel",
    "Node",
    "SampleResult",
    "SampleStep",
    "Sampler",
    "Step",
    "check_sampling",
    "check_search",
    "filter_distribution",
    "join_tokens",
    "length_score",
    "load_bigram",
    "node_distribution",
    "toy_model",
]
