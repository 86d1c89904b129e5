"""Decoding engine: greedy, beam search and sampling as step-able state machines.

Headless (NumPy only). Typical use:

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
