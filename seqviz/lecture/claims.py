"""Claims and checkpoints: what a demo step checks against a paper, and what it asks the room.

A claim names a *measure* (a function of the result on screen), the published value, a
tolerance and the source; its verdict (✓/✗) is computed from the measured value, never written
in the script. A question offers choices and names its answer; the runner reveals the answer
and the step's measured values on the next key.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

COMPARES = ("within", "at least", "at most")
CLAIM_KEYS = ("says", "measure", "published", "tolerance", "compare", "source")
QUESTION_KEYS = ("ask", "choices", "answer")
MAX_CHOICES = 6
LETTERS = "ABCDEF"


@dataclass(frozen=True)
class Measure:
    """A number read off one scene's result: ``read(result, arg)``; ``unit`` formats it."""

    scene: str
    read: Callable[[Any, str], float]
    what: str  # for the reference in docs and errors
    digits: int = 2  # decimals shown (0: a count)
    args: tuple[str, ...] = ()  # allowed arguments (cells, models); empty: none taken


# --- measures --------------------------------------------------------------------------------
def _stable(result: Any, arg: str) -> float:
    return float(len(result.fixed.stable))


def _saddles(result: Any, arg: str) -> float:
    return float(len(result.fixed.saddles))


def _chaos_edge(result: Any, arg: str) -> float:
    """The spectral radius where the largest Lyapunov exponent at input 0 crosses zero, linearly
    interpolated between the two radii around the sign change (nan without one)."""
    rhos, lam = result.grid.rhos, result.grid.lyap[:, 0]
    for i in range(len(lam) - 1):
        if lam[i] < 0 <= lam[i + 1]:
            a, b = float(lam[i]), float(lam[i + 1])
            return float(rhos[i] + (rhos[i + 1] - rhos[i]) * (-a) / (b - a))
    return float("nan")


def _lyap_at(rho: float) -> Callable[[Any, str], float]:
    def read(result: Any, arg: str) -> float:
        i = int(np.argmin(np.abs(result.grid.rhos - rho)))
        if abs(float(result.grid.rhos[i]) - rho) > 1e-9:
            return float("nan")
        return float(result.grid.lyap[i, 0])

    return read


def _curve(model: str, which: str) -> Callable[[Any, str], float]:
    """Exact match (%) of a seq2seq model on the length table: at the longest bin, or its drop
    from the shortest bin to the longest (in points)."""

    def read(result: Any, arg: str) -> float:
        rows = result.curve or ()
        if not rows:
            return float("nan")
        first, last = rows[0].exact.get(model), rows[-1].exact.get(model)
        if first is None or last is None:
            return float("nan")
        return 100 * (float(last) if which == "longest" else float(first) - float(last))

    return read


def _cell(result: Any, name: str) -> Any:
    cell = result.cell(name)
    if cell is None:
        raise LookupError(f"the training step trains no {name.upper()}")
    return cell


def _accuracy(result: Any, arg: str) -> float:
    acc = _cell(result, arg).accuracy
    return float(acc[-1]) if len(acc) else float("nan")


def _gap(result: Any, arg: str) -> float:
    """Final accuracy of the first named cell minus the second's ("gru-lstm")."""
    a, b = arg.split("-")
    return _accuracy(result, a) - _accuracy(result, b)


def _spikes(result: Any, arg: str) -> float:
    """1 if the cell's loss spiked (the training scene's magenta x), else 0."""
    return 0.0 if _cell(result, arg).first_spike is None else 1.0


CELLS = ("rnn", "lstm", "gru")
MEASURES: dict[str, Measure] = {
    "stable fixed points": Measure("dynamics", _stable, "stable fixed points found", 0),
    "saddles": Measure("dynamics", _saddles, "saddle points found", 0),
    "chaos edge": Measure("dynamics", _chaos_edge,
                          "spectral radius where λ_max at input 0 crosses 0"),  # fmt: skip
    "lyapunov at 0.90": Measure("dynamics", _lyap_at(0.9), "λ_max at ρ 0.90, input 0", 3),
    "lyapunov at 3.00": Measure("dynamics", _lyap_at(3.0), "λ_max at ρ 3.00, input 0", 3),
    "attention exact drop": Measure("seq2seq", _curve("attention", "drop"),
                                    "attention's exact match (%), shortest minus longest sources",
                                    0),
    "bottleneck exact drop": Measure("seq2seq", _curve("bottleneck", "drop"),
                                     "bottleneck's exact match (%), shortest minus longest "
                                     "sources", 0),
    "bottleneck exact longest": Measure("seq2seq", _curve("bottleneck", "longest"),
                                        "bottleneck's exact match (%) on the longest sources", 0),
    "final accuracy": Measure("training", _accuracy, "running accuracy after the last update",
                              3, CELLS),
    "loss spike": Measure("training", _spikes, "1 if the loss spiked, else 0", 0, CELLS),
    "accuracy gap": Measure("training", _gap, "final accuracy of one cell minus another's", 3,
                            tuple(f"{a}-{b}" for a in CELLS for b in CELLS if a != b)),
}  # fmt: skip


# --- claims --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Claim:
    says: str
    measure: str
    arg: str
    published: float
    tolerance: float
    compare: str
    source: str

    def measured(self, result: Any) -> float:
        """The claim's number read off ``result`` (nan if the result does not hold it)."""
        try:
            value = MEASURES[self.measure].read(result, self.arg)
        except (LookupError, AttributeError, TypeError, ValueError, IndexError):
            return float("nan")
        return float(value)

    def holds(self, measured: float) -> bool:
        """The verdict: the measured value agrees with the published one under the comparison
        (nan never agrees)."""
        if not math.isfinite(measured):
            return False
        if self.compare == "at least":
            return measured >= self.published - self.tolerance
        if self.compare == "at most":
            return measured <= self.published + self.tolerance
        return abs(measured - self.published) <= self.tolerance

    def fmt(self, value: float) -> str:
        if not math.isfinite(value):
            return str(value)  # nan or inf, shown as such
        digits = MEASURES[self.measure].digits
        return f"{value:.{digits}f}"

    def published_text(self) -> str:
        p, t = self.fmt(self.published), self.fmt(self.tolerance)
        if self.compare == "at least":
            return f"≥ {self.fmt(self.published - self.tolerance)}"
        if self.compare == "at most":
            return f"≤ {self.fmt(self.published + self.tolerance)}"
        return p if self.tolerance == 0 else f"{p} ± {t}"

    def line(self, measured: float) -> str:
        mark = "✓" if self.holds(measured) else "✗"
        return (f"{mark} {self.says}: measured {self.fmt(measured)}, published "
                f"{self.published_text()} ({self.source})")  # fmt: skip

    def report(self, measured: float) -> dict[str, Any]:
        finite = math.isfinite(measured)
        return {
            "says": self.says,
            "measure": f"{self.measure} {self.arg}".strip(),
            "measured": measured if finite else str(measured),
            "published": self.published,
            "tolerance": self.tolerance,
            "compare": self.compare,
            "source": self.source,
            "verdict": "✓" if self.holds(measured) else "✗",
            "reproduced": self.holds(measured),
            "line": self.line(measured),
        }


def _text(raw: Any, key: str, where: str, limit: int = 120) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise ValueError(f'{where} needs {key} = "..." (text of at most {limit} characters)')
    return " ".join(value.split())


def _number(raw: Any, key: str, where: str, default: float | None = None) -> float:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where}: {key} must be a finite number")
    return float(value)


def parse_claim(raw: Any, scene: str, where: str) -> Claim:
    """A claim table from a demo step; ValueError (one sentence) naming what is wrong."""
    if not isinstance(raw, dict):
        raise ValueError(f"{where} must be a table with {', '.join(CLAIM_KEYS)}")
    for key in raw:
        if key not in CLAIM_KEYS:
            raise ValueError(f"{where} has unknown key {key!r}; a claim has "
                             f"{', '.join(CLAIM_KEYS)}")  # fmt: skip
    says = _text(raw, "says", where)
    text = raw.get("measure")
    name, arg = "", ""
    if isinstance(text, str):
        for known in MEASURES:
            if text == known or text.startswith(known + " "):
                name, arg = known, text[len(known) :].strip()
    here = [n for n, m in MEASURES.items() if m.scene == scene]
    if not name:
        listed = ", ".join(here) if here else "none"
        raise ValueError(f"{where}: measure must be one of the {scene} scene's ({listed}), "
                         f"not {text!r}")  # fmt: skip
    measure = MEASURES[name]
    if measure.scene != scene:
        raise ValueError(f"{where}: measure {name!r} reads the {measure.scene} scene, but the "
                         f"step shows {scene}")  # fmt: skip
    if measure.args and arg not in measure.args:
        raise ValueError(f"{where}: measure {name!r} needs one of {', '.join(measure.args)}")
    if not measure.args and arg:
        raise ValueError(f"{where}: measure {name!r} takes no argument")
    compare = raw.get("compare", "within")
    if compare not in COMPARES:
        raise ValueError(f"{where}: compare must be one of {', '.join(COMPARES)}")
    tolerance = _number(raw, "tolerance", where, 0.0)
    if tolerance < 0:
        raise ValueError(f"{where}: tolerance must be 0 or more")
    return Claim(says, name, arg, _number(raw, "published", where), tolerance, compare,
                 _text(raw, "source", where))  # fmt: skip


# --- questions -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Question:
    ask: str
    choices: tuple[str, ...]
    answer: str

    def prompt(self) -> str:
        options = "  ".join(f"{LETTERS[i]}) {c}" for i, c in enumerate(self.choices))
        return f"? {self.ask}  {options}"

    def reveal(self) -> str:
        i = self.choices.index(self.answer)
        return f"Answer: {LETTERS[i]}) {self.answer}."


def parse_question(raw: Any, where: str) -> Question:
    if not isinstance(raw, dict):
        raise ValueError(f"{where} must be a table with {', '.join(QUESTION_KEYS)}")
    for key in raw:
        if key not in QUESTION_KEYS:
            raise ValueError(f"{where} has unknown key {key!r}; a question has "
                             f"{', '.join(QUESTION_KEYS)}")  # fmt: skip
    ask = _text(raw, "ask", where)
    choices = raw.get("choices")
    if (not isinstance(choices, list) or not 2 <= len(choices) <= MAX_CHOICES
            or not all(isinstance(c, str) and c.strip() and len(c) <= 40 for c in choices)
            or len(set(choices)) != len(choices)):  # fmt: skip
        raise ValueError(f"{where}: choices must be a list of 2 to {MAX_CHOICES} different "
                         "texts of at most 40 characters")  # fmt: skip
    answer = raw.get("answer")
    if answer not in choices:
        raise ValueError(f"{where}: answer must be one of the choices ({', '.join(choices)}), "
                         f"not {answer!r}")  # fmt: skip
    return Question(ask, tuple(choices), str(answer))
