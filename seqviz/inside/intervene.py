"""Interventions: ablate (set to 0) or clamp (set to a value) one unit's c or h from a step on.

An intervention is a small record the forward pass takes. `forced_forward` is the one path every
view goes through: without interventions it is a single kernel call; with them, the steps before
the first intervention are one kernel call and every later step is one kernel call of its own,
after which the forced units are overwritten, so the readout at that step and the next step both
see the forced value. Forcing an LSTM's c[u] also makes h[u] = o[u] * tanh(c[u]) at that step
(the cell's output follows its forced memory); forcing h[u] overrides that. GRU and RNN cells
have h only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from seqviz.core.api import _codes, _readonly, _sequence
from seqviz.core.backend import kernels
from seqviz.core.params import Params

STATES = ("c", "h")
O_GATE = 3  # the LSTM's gates are stored i, f, g, o
_UNIT = re.compile(r"^\s*([ch])\s*\[?\s*(\d+)\s*\]?\s*$")


@dataclass(frozen=True)
class Intervention:
    """Force `state`[`unit`] to `value` after every step t >= `from_step` (value 0: ablation)."""

    state: str  # "c" (LSTM only) or "h"
    unit: int
    value: float = 0.0
    from_step: int = 0

    @property
    def ablates(self) -> bool:
        return self.value == 0.0

    def label(self) -> str:
        what = "ablated" if self.ablates else f"= {self.value:+.2f}"
        since = f" from step {self.from_step}" if self.from_step else ""
        return f"{self.state}[{self.unit}] {what}{since}"


Interventions = tuple[Intervention, ...]


def check(interventions: Iterable[Intervention], params: Params) -> Interventions:
    """The interventions, validated against a cell: ValueError of one sentence otherwise."""
    out = tuple(interventions)
    d = params.hidden_size
    for iv in out:
        if iv.state not in STATES:
            raise ValueError(f"the state to force must be 'c' or 'h', got {iv.state!r}.")
        if iv.state == "c" and params.cell != "lstm":
            raise ValueError(
                f"c[{iv.unit}] names a cell state, which only an lstm has; this {params.cell} "
                "has h units only."
            )
        if not 0 <= iv.unit < d:
            raise ValueError(f"unit {iv.unit} is out of range; this cell has units 0 to {d - 1}.")
        if not math.isfinite(iv.value):
            raise ValueError(f"a clamp value must be a finite number, got {iv.value!r}.")
        if iv.from_step < 0:
            raise ValueError(f"the first forced step must be 0 or later, got {iv.from_step}.")
    return out


def parse_units(spec: str, params: Params) -> tuple[tuple[str, int], ...]:
    """'c34,h17' -> (('c', 34), ('h', 17)), checked against the cell (ValueError otherwise)."""
    units: list[tuple[str, int]] = []
    for part in spec.split(","):
        m = _UNIT.match(part)
        if m is None:
            raise ValueError(
                f"{part.strip()!r} is not a unit; write c or h and a unit number, e.g. c34,h17."
            )
        unit = (m.group(1), int(m.group(2)))
        if unit in units:
            raise ValueError(f"the unit {unit[0]}{unit[1]} is listed twice.")
        units.append(unit)
    check([Intervention(s, u) for s, u in units], params)
    return tuple(units)


def forced_forward(
    params: Params, x: np.ndarray, interventions: Sequence[Intervention] = ()
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """(h (T, d), c (T, d) or None, gates (T, G, d) or None) of `params` reading x (T, e) with
    the interventions applied; the same kernel as every other forward pass in seqviz."""
    ivs = check(interventions, params)
    x = _sequence(params, x)
    T, d, G = x.shape[0], params.hidden_size, params.n_gates
    lstm = params.cell == "lstm"
    h = np.empty((T, d))
    c = np.zeros((T, d))
    gates = np.zeros((T, G, d))
    aux = np.empty((T, d))
    args = (*_codes(params), params.weight_ih, params.weight_hh, params.bias_ih, params.bias_hh)
    run = kernels().forward_kernel
    zero = _readonly(np.zeros(d))
    start = min((iv.from_step for iv in ivs), default=T)
    start = min(start, T)
    if start > 0:  # the untouched prefix in one call
        run(*args, _readonly(x[:start]), zero, zero, h[:start], c[:start], gates[:start],
            aux[:start])  # fmt: skip
    for t in range(start, T):
        h0 = zero if t == 0 else _readonly(h[t - 1].copy())
        c0 = zero if t == 0 or not lstm else _readonly(c[t - 1].copy())
        run(*args, _readonly(x[t : t + 1]), h0, c0, h[t : t + 1], c[t : t + 1],
            gates[t : t + 1], aux[t : t + 1])  # fmt: skip
        _force(ivs, t, h[t], c[t], gates[t], lstm)
    return h, (c if lstm else None), (gates if G > 1 else None)


def _force(ivs: Interventions, t: int, h: np.ndarray, c: np.ndarray, gates: np.ndarray,
           lstm: bool) -> None:  # fmt: skip
    """Overwrite the forced units of step t in place: c first (and the h it gives), then h."""
    for iv in ivs:
        if iv.state == "c" and t >= iv.from_step:
            c[iv.unit] = iv.value
            if lstm:
                h[iv.unit] = gates[O_GATE, iv.unit] * np.tanh(iv.value)
    for iv in ivs:
        if iv.state == "h" and t >= iv.from_step:
            h[iv.unit] = iv.value


def ablate(units: Iterable[tuple[str, int]], from_step: int = 0,
           value: float = 0.0) -> Interventions:  # fmt: skip
    """Interventions forcing each (state, unit) to `value` (0: ablation) from `from_step` on."""
    return tuple(Intervention(s, int(u), float(value), int(from_step)) for s, u in units)


def describe(interventions: Sequence[Intervention]) -> str:
    """A status-line summary: 'c[34] ablated, h[17] = +1.00', or 'none'."""
    return ", ".join(iv.label() for iv in interventions) or "none"


# --- the record as text: what a scene parameter holds ("c34, h17=1.5@3") --------------------
_ENTRY = re.compile(
    r"^([ch])\[?(\d+)\]?(?:=([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?))?(?:@(\d+))?$", re.I
)


def to_text(interventions: Sequence[Intervention]) -> str:
    """'c34, h17=1.5@3': each unit, its value unless 0 (ablation), its first step unless 0."""
    parts = []
    for iv in interventions:
        value = "" if iv.ablates else f"={iv.value:g}"
        since = f"@{iv.from_step}" if iv.from_step else ""
        parts.append(f"{iv.state}{iv.unit}{value}{since}")
    return ", ".join(parts)


def from_text(text: str, params: Params | None = None) -> Interventions:
    """The record in `text` (inverse of to_text; empty: none), checked against `params` if
    given; ValueError of one sentence naming the entry that is wrong."""
    out: list[Intervention] = []
    for part in text.split(","):
        entry = "".join(part.split())
        if not entry:
            continue
        m = _ENTRY.match(entry)
        if m is None:
            raise ValueError(
                f"{entry!r} is not an intervention; write a unit with an optional value and first "
                "step, e.g. c34 (ablate), h17=1.5 (clamp) or c34@3 (from step 3)."
            )
        state, unit, value, since = m.groups()
        iv = Intervention(state.lower(), int(unit), float(value or 0.0), int(since or 0))
        out = [o for o in out if (o.state, o.unit) != (iv.state, iv.unit)] + [iv]
    return check(out, params) if params is not None else tuple(out)


def with_unit(text: str, iv: Intervention) -> str:
    """The record `text` with `iv` added (replacing an earlier entry for the same unit)."""
    kept = [o for o in from_text(text) if (o.state, o.unit) != (iv.state, iv.unit)]
    return to_text([*kept, iv])
