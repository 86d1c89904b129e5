"""Interventions in the scenes: the parameters that hold them and what a scene computes from
them (the forced units, and the held-out agreement accuracy beside the intact model's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from seqviz.inside.intervene import Intervention, Interventions, describe, from_text, to_text
from seqviz.scenes.base import ParamSpec

INTERVENTION_SPECS = (
    ParamSpec("intervene", "forced units", "text", "", min_length=0, max_length=200,
              help="units forced from a step on: c34 ablates c[34], h17=1.5 clamps h[17], @3 "
                   "starts at step 3; keys: a ablates the cursor unit, k clamps it to the "
                   "clamp value, x clears"),
    ParamSpec("clamp", "clamp value", "float", 1.0, -5.0, 5.0, 0.25, recompute=False,
              help="the value key k clamps the cursor unit to (choose it with +/-)"),
    ParamSpec("from_step", "forced from step", "int", 0, 0, 60, 1, recompute=False,
              help="the first step keys a and c force (0 reads <s>)"),
)  # fmt: skip
CURSOR_SPEC = ParamSpec(
    "cursor", "unit cursor", "int", 1, 1, 5, 1, recompute=False,
    help="which ranked unit (1 = best) keys a and c force",
)  # fmt: skip


@dataclass(frozen=True)
class Forcing:
    """The units a scene forces and, for an LM of the agreement grammar, the held-out effect."""

    interventions: Interventions
    effect: Any  # seqviz.inside.ablation.Effect, or None for a model outside the grammar

    @property
    def summary(self) -> str:
        return describe(self.interventions)

    def accuracy_lines(self) -> list[str]:
        """The held-out agreement accuracy, intact and forced: all sentences, then the long
        ones; empty for a model outside the agreement grammar."""
        e = self.effect
        if e is None:
            return []
        from seqviz.inside.ablation import SHORT_MAX

        return [
            f"agreement {e.intact['all']:.1%} intact, {e.forced['all']:.1%} forced",
            f"{SHORT_MAX + 1}+ words: {e.intact['long']:.1%} intact, {e.forced['long']:.1%} forced",
        ]


def forcing(values: Any, lm: Any, model: str | None) -> Forcing | None:
    """The scene's forced units checked against the model's cell (ValueError of one sentence),
    None without any; `lm` is a trained RNNLM (its cell) or a bare Params."""
    text = getattr(values, "intervene", "")
    if not text.strip():
        return None
    params = getattr(lm, "params", lm)
    ivs = from_text(text, params)
    eff = None
    if model is not None and hasattr(lm, "vocab"):
        from seqviz.inside.ablation import effect

        try:
            eff = effect(model, to_text(ivs))
        except ValueError:  # not an LM of the agreement grammar: no held-out set to measure
            eff = None
    return Forcing(ivs, eff)


def added(values: Any, state: str, unit: int, clamp: bool) -> str:
    """The record with the cursor unit ablated (or clamped to the clamp value) from the chosen
    step on."""
    from seqviz.inside.intervene import with_unit

    value = float(values.clamp) if clamp else 0.0
    return with_unit(values.intervene, Intervention(state, unit, value, int(values.from_step)))


@dataclass(frozen=True)
class ForcedStates:
    """The fields of a Trace a scene draws, from the forced forward pass (no gradients)."""

    h: Any  # (T, d)
    c: Any  # (T, d) or None
    gates: Any  # (T, G, d) or None
    h0: Any  # (d,)
    overflow: Any  # seqviz.core.trace.Overflow or None


def forced_states(params: Any, x: Any, forced: Forcing) -> ForcedStates:
    """The cell reading x with the forced units, and where a state first became inf or nan."""
    import numpy as np

    from seqviz.core.trace import Overflow
    from seqviz.inside.intervene import forced_forward

    h, c, gates = forced_forward(params, x, forced.interventions)
    overflow = None
    for name, arr in (("h", h), ("c", c), ("gates", gates)):
        if arr is None:
            continue
        bad = np.flatnonzero(~np.isfinite(arr.reshape(arr.shape[0], -1)).all(axis=1))
        if bad.size and (overflow is None or bad[0] < overflow.step):
            overflow = Overflow(int(bad[0]), "forward", name)
    return ForcedStates(h, c, gates, np.zeros(params.hidden_size), overflow)
