"""Scene: a BIO tagger reads a typed sentence both ways; the left-to-right one guesses too early."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from seqviz import models
from seqviz.scenes import title_of
from seqviz.scenes.base import ParamSpec, Scene

# the registry's taggers; the first (bidirectional) is the reference the others are held to
MODELS = tuple(e.name for e in models.entries("tagger"))
SPECS = (
    ParamSpec("text", "sentence", "text", "Morgan Labs sees the dog near Austin Street",
              max_length=160, help="any words; one never seen is tagged by its shape and context"),
    ParamSpec("model", "tagger", "choice", "tagger-bi", choices=MODELS,
              help="whose states and tags to show: bidirectional or left to right"),
    ParamSpec("layer", "layer", "int", 1, 0, 1, 1, recompute=False,
              help="which layer's states the heatmaps show (tags come from the top layer)"),
)  # fmt: skip


@dataclass(frozen=True)
class Mistake:
    """A word the shown tagger tags differently from the bidirectional one."""

    index: int
    word: str
    tag: str  # the shown tagger's tag
    prob: float
    right_tag: str  # the bidirectional tagger's tag
    decider: str  # the next word: what decides an ambiguous name ("" at the end)


@dataclass(frozen=True)
class TaggingResult:
    values: Any
    model: str
    network: str  # e.g. "2-layer bidirectional lstm (hidden 24), embedding 16"
    words: tuple[str, ...]
    tags: tuple[str, ...]
    probs: np.ndarray  # (T,) probability of each chosen tag
    bidirectional: bool
    layers: int
    forward: tuple[np.ndarray, ...]  # per layer (T, d): forward states, time order
    backward: tuple[np.ndarray, ...]  # per layer (T, d): reverse states, time order; () if uni
    reference_tags: tuple[str, ...]  # the bidirectional tagger's tags on the same words
    mistakes: tuple[Mistake, ...]
    unknown: tuple[str, ...] = ()  # words the tagger never saw, read as <unk> and their shape

    @property
    def T(self) -> int:
        return len(self.words)

    def concatenated(self, layer: int) -> np.ndarray:
        """(T, 2d) [forward; backward] of one layer, what the layer above (or the tags) read."""
        if not self.bidirectional:
            return self.forward[layer]
        return np.concatenate([self.forward[layer], self.backward[layer]], axis=1)


@lru_cache(maxsize=4)
def _tagger(name: str) -> Any:
    from seqviz.models.tagger import load_tagger

    return load_tagger(name)


def compute(v: Any) -> TaggingResult:
    from seqviz.tasks.tagging import AMBIGUOUS, tokenize

    shown, reference = _tagger(v.model), _tagger(MODELS[0])
    words = tokenize(v.text, shown.vocab)
    out = shown.tag_words(words)
    ref = reference.tag_words(words) if v.model != MODELS[0] else out
    st, stack = out.trace, out.trace.params
    forward = tuple(np.array(st.states(layer, 0)) for layer in range(stack.num_layers))
    backward = (
        tuple(np.array(st.states(layer, 1)) for layer in range(stack.num_layers))
        if stack.bidirectional else ()
    )  # fmt: skip
    mistakes = tuple(
        Mistake(t, w, out.tags[t], float(out.confidence[t]), ref.tags[t],
                words[t + 1] if t + 1 < len(words) and w in AMBIGUOUS else "")
        for t, w in enumerate(words) if out.tags[t] != ref.tags[t]
    )  # fmt: skip
    return TaggingResult(
        values=v, model=v.model, network=shown.describe(), words=tuple(words), tags=out.tags,
        probs=np.array(out.confidence), bidirectional=stack.bidirectional,
        layers=stack.num_layers, forward=forward, backward=backward,
        reference_tags=ref.tags, mistakes=mistakes,
        unknown=tuple(w for w, u in zip(words, out.unknown, strict=True) if u),
    )  # fmt: skip


def frames(result: TaggingResult) -> int:
    """Bidirectional: T frames of both sweeps, then T frames of tags; left to right: T frames."""
    return 2 * result.T if result.bidirectional else result.T


def explain(result: TaggingResult) -> str:
    """One sentence on what went wrong (or that nothing did), from the result; then the words
    read as unknown, if any."""
    text = _explain(result)
    if result.unknown:
        names = ", ".join(f"'{w}'" for w in result.unknown)
        text += f" Never seen, so tagged by their shape and context: {names}."
    return text


def _explain(result: TaggingResult) -> str:
    if result.bidirectional:
        return (
            f"Every tag is read off [forward; backward] at its word: {result.T} words, "
            "both directions have seen the whole sentence."
        )
    if not result.mistakes:
        return "The left-to-right tagger agrees with the bidirectional one on this sentence."
    m = result.mistakes[0]
    why = (
        f"'{m.decider}', the word that decides, comes after it"
        if m.decider
        else "it has not read what follows"
    )
    n = len(result.mistakes)
    verb = "differs" if n == 1 else "differ"
    return (
        f"{n} of {result.T} tags {verb} from the bidirectional tagger: "
        f"'{m.word}' gets {m.tag} ({m.prob:.2f}) instead of {m.right_tag}, because {why}."
    )


SCENE = Scene(
    name="tagging",
    title=title_of("tagging"),
    summary="A BIO tagger reads both ways; the left-to-right one tags names before it sees them.",
    specs=SPECS,
    compute=compute,
    frames=frames,
    view="seqviz.ui.views.tagging:TaggingView",
)
