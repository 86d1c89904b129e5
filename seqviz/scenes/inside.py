"""Scene: inside the trained agreement LMs: predictions, number units, saliency, gate saturation.

A scene of its own rather than panels of the gates scene: it needs three trained models at once
(the saliency maps side by side), statistics over 500 held-out sentences (computed once per model
and cached), and four views that would not fit beside the gates scene's six heatmaps.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from seqviz import models
from seqviz.inside import AGREEMENT_MODELS
from seqviz.scenes import title_of
from seqviz.scenes.base import ParamSpec, Scene
from seqviz.scenes.forcing import CURSOR_SPEC, INTERVENTION_SPECS, Forcing, forcing

SALIENCY = AGREEMENT_MODELS  # the shipped models whose saliency maps stand side by side
# the choices: those, then the user's word-level LMs (`seqviz models add`) that can read the grammar
MODELS = (*AGREEMENT_MODELS, *(e.name for e in models.user_entries() if e.kind == "lm"))
LABELS = {
    name: models.get(name).cell.upper() if name in SALIENCY else name for name in MODELS
}  # LSTM, GRU, RNN; a user model by its name
PANELS = ("prediction", "units", "saliency", "saturation", "attractors")
TOP_UNITS = 5

SPECS = (
    ParamSpec("model", "model", "choice", "agreement", choices=MODELS,
              help="the trained LM whose prediction, units and gates are shown"),
    ParamSpec("text", "text", "text", "the keys to the cabinet are missing", max_length=120,
              help="a sentence of the agreement grammar, one word per step"),
    ParamSpec("track", "unit pattern", "text", "number", max_length=200, live=False,
              help="rank units by a pattern: number, distractor, distance, position or "
                   "regex:EXPR (1 on words inside a match)"),
    ParamSpec("target", "saliency row", "int", 5, 0, 60, 1, recompute=False,
              help="the output step whose dependence on each input word is highlighted"),
    ParamSpec("panel", "panel", "choice", "units", choices=PANELS, recompute=False,
              help="which view fills a small screen (all four show on a large one; attractors "
                   "takes the lower row)"),
    CURSOR_SPEC,
    *INTERVENTION_SPECS,
)  # fmt: skip


@dataclass(frozen=True)
class InsideResult:
    values: Any
    model: str
    cell: str
    words: tuple[str, ...]  # (T,) the token each step reads, <s> first
    probs: dict[str, np.ndarray]  # verb -> (T,) P(verb next) after each step
    right: str | None  # the verb that agrees with the subject
    subject: int | None  # the step that reads the subject noun
    verb: int | None  # the step that reads the main verb (is/are/was/were), if typed
    rank: np.ndarray  # (T,) rank of the right verb among all next words (0: no right verb)
    entropy: np.ndarray  # (T,) bits
    units: tuple[Any, ...]  # the best UnitScores for the track (held-out set)
    unit_traces: np.ndarray  # (TOP_UNITS, T) those units' values on this sentence
    sentences: int  # held-out sentences behind the ranking
    accuracy: float  # the model's agreement accuracy on them
    saliency: dict[str, np.ndarray]  # model -> (T, T) |d logit_target(t) / d x_s|
    targets: tuple[str, ...]  # (T,) the word each row's logit is of (the next word)
    saturation: Any  # Saturation of the model's sigmoid gates, or None (RNN)
    forcing: Forcing | None = None  # the units forced (keys a, c, x) and their held-out effect
    attractors: Any = None  # "plain"/"nested" -> model -> AttractorCurve (held-out, per count)
    contrast: Any = None  # which word pushed the right verb over the wrong one (Contrast)

    @property
    def T(self) -> int:
        return len(self.words)


def _lm(name: str) -> Any:
    from seqviz import models
    from seqviz.scenes.gates import _load_lm

    path = models.get(name).path
    return _load_lm(str(path), path.stat().st_mtime)


def compute(v: Any) -> InsideResult:
    from seqviz.inside.reading import predictions, read
    from seqviz.inside.saliency import lm_saliency
    from seqviz.inside.study import shipped_study

    lm = _lm(v.model)
    forced = forcing(v, lm, v.model)
    # refuses an unknown word, naming the closest ones; every view below reads these states
    reading = read(lm, v.text, forced.interventions if forced else ())
    pred = predictions(lm, reading)
    study = shipped_study(v.model)
    best = tuple(_ranked(v.model, v.track)[:TOP_UNITS])
    states = {"h": reading.h}
    if reading.c is not None:
        states["c"] = reading.c
    traces = np.array([states[u.state][:, u.unit] for u in best])  # (TOP_UNITS, T)
    maps = {}
    targets: tuple[str, ...] = ()
    for name in SALIENCY:
        other = _lm(name)
        maps[name], ids = lm_saliency(other, reading.tokens)
        targets = tuple(other.vocab[i] for i in ids)
    return InsideResult(
        values=v, model=v.model, cell=lm.params.cell, words=reading.tokens, probs=pred.probs,
        right=pred.right, subject=_subject_step(reading.tokens), verb=_verb_step(reading.tokens),
        rank=pred.rank, entropy=pred.entropy, units=best,
        unit_traces=traces, sentences=study.sentences, accuracy=study.accuracy,
        saliency=maps, targets=targets, saturation=study.saturation, forcing=forced,
        attractors=attractor_curves(), contrast=_contrast(lm, reading.tokens, pred.right, forced),
    )  # fmt: skip


@lru_cache(maxsize=8)
def _ranked(model: str, track: str) -> list[Any]:
    """The model's units ranked by a pattern over the held-out sentences (a grammar track's
    ranking comes with the study; any other pattern is computed here, once)."""
    from seqviz.inside.patterns import check
    from seqviz.inside.study import held_out_set, shipped_study
    from seqviz.inside.units import rank_by_pattern

    study = shipped_study(model)
    if track in study.units:
        return study.units[track]
    lm = _lm(model)
    check(track, lm.level)
    return rank_by_pattern(lm, track, sentences=held_out_set(study.sentences)).units


def _contrast(lm: Any, tokens: tuple[str, ...], right: str | None, forced: Any) -> Any:
    """The contrast right verb over wrong verb where the verb comes (or after the last word)."""
    from seqviz.inside.contrast import contrast
    from seqviz.inside.tracks import OTHER

    if right is None or right not in lm.index or OTHER[right] not in lm.index:
        return None
    verb = _verb_step(tokens)
    words = tokens[1 : (verb if verb is not None else len(tokens))]
    ivs = forced.interventions if forced else ()
    return contrast(lm, " ".join(words), right, OTHER[right], ivs)


def attractor_curves() -> dict[str, dict[str, Any]]:
    """Every shipped cell's accuracy per attractor count, plain and nested (computed once)."""
    from seqviz.inside.attractors import shipped_curve

    return {kind: {name: shipped_curve(name, nested=kind == "nested") for name in SALIENCY}
            for kind in ("plain", "nested")}  # fmt: skip


def _subject_step(tokens: tuple[str, ...]) -> int | None:
    from seqviz.inside.tracks import PLURAL_NOUNS, SINGULAR_NOUNS

    return next((t for t, w in enumerate(tokens) if w in PLURAL_NOUNS | SINGULAR_NOUNS), None)


def _verb_step(tokens: tuple[str, ...]) -> int | None:
    from seqviz.inside.tracks import parse

    p = parse(list(tokens[1:]))
    return None if p is None else p.verb + 1


def frames(result: InsideResult) -> int:
    """One frame per word read."""
    return result.T


def opening_frame(result: InsideResult) -> int | None:
    """The frame that has read every word before the verb: the readout then shows the
    probabilities of the verbs, the model's choice (after the verb they are all about 0)."""
    return result.verb


def traces(result: InsideResult) -> dict[str, Any]:
    """Each model's core trace reading the sentence (for the .npz export)."""
    from seqviz.core import trace

    out = {}
    for name in dict.fromkeys((*SALIENCY, result.model)):
        lm = _lm(name)
        out[LABELS[name].lower()] = trace(lm.params, lm.inputs(result.values.text)[1])
    return out


SCENE = Scene(
    name="inside",
    title=title_of("inside"),
    summary="The trained agreement LMs word by word: where they know the number, which unit "
    "holds it, what each output depends on, how saturated the gates are.",
    specs=SPECS,
    compute=compute,
    frames=frames,
    view="seqviz.ui.views.inside:InsideView",
    traces=traces,
    opening_frame=opening_frame,
)
