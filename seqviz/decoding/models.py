"""The language-model protocol of the decoders, and bigram models (the lesson's toy built in)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from seqviz.limits import shorten

BOS = "<s>"
EOS = "</s>"
ROW_TOLERANCE = 1e-6

# The lesson's toy next-word model: probabilities depend only on the previous word.
TOY_BIGRAM: dict[str, dict[str, float]] = {
    "<s>": {"the": 0.5, "a": 0.4, "</s>": 0.1},
    "the": {"dog": 0.4, "cat": 0.35, "</s>": 0.25},
    "a": {"small": 0.9, "</s>": 0.1},
    "small": {"cat": 0.9, "</s>": 0.1},
    "dog": {"barked": 0.3, "</s>": 0.7},
    "cat": {"</s>": 0.9, "sat": 0.1},
    "barked": {"</s>": 1.0},
    "sat": {"</s>": 1.0},
}


@runtime_checkable
class LanguageModel(Protocol):
    """What a decoder needs from a model. States are opaque to the decoders and never mutated.

    `start(prompt_ids)` is the state after reading `<s>` and the prompt; `logprobs(states)` gives
    the next-token log-probabilities of a batch of states as a (B, V) array (-inf for impossible
    tokens); `advance(states, tokens)` feeds one token to each state and returns the new states.
    """

    # Read-only: models may expose these as plain attributes, properties or frozen fields.
    @property
    def name(self) -> str: ...

    @property
    def level(self) -> str: ...  # "word" | "char": how `encode` splits text and tokens are joined

    @property
    def vocab(self) -> tuple[str, ...]: ...

    @property
    def bos_id(self) -> int: ...

    @property
    def eos_id(self) -> int: ...

    def encode(self, text: str) -> list[int]: ...

    def start(self, prompt_ids: Sequence[int]) -> Any: ...

    def logprobs(self, states: Sequence[Any]) -> np.ndarray: ...

    def advance(self, states: Sequence[Any], tokens: Sequence[int]) -> list[Any]: ...


def join_tokens(model: LanguageModel, tokens: Sequence[str]) -> str:
    """Tokens as text: words joined by spaces, characters concatenated."""
    return ("" if model.level == "char" else " ").join(tokens)


def closest(word: str, known: Sequence[str], n: int = 5) -> list[str]:
    """Up to `n` known tokens nearest to `word`: completions of it first (a word half typed),
    then the most similar spellings (difflib), then the first in alphabetical order."""
    import difflib

    pool = sorted(set(known))
    out = [k for k in pool if word and k.startswith(word)][:n]
    for k in difflib.get_close_matches(word, pool, n=n, cutoff=0.5):
        if k not in out:
            out.append(k)
    for k in pool:
        if len(out) >= n:
            break
        if k not in out:
            out.append(k)
    return out[:n]


def encode_words(text: str, index: Mapping[str, int], bos_id: int, what: str) -> list[int]:
    """Word ids of `text` (split on whitespace, leading <s> dropped); unknown words raise."""
    words = text.split()
    if words and words[0] == BOS:
        words = words[1:]
    ids = []
    for w in words:
        if w not in index or index[w] == bos_id:
            near = ", ".join(closest(w, [k for k in index if k not in (BOS, EOS)]))
            raise ValueError(
                f"the word {shorten(w)} is not in the vocabulary of {what}; closest: {near}."
            )
        ids.append(index[w])
    return ids


class BigramModel:
    """A next-token table P(next | previous); the state is simply the previous token's id."""

    level = "word"

    def __init__(self, table: Mapping[str, Mapping[str, float]], name: str = "bigram") -> None:
        _validate_table(table, name)
        vocab: list[str] = [BOS]
        for prev, row in table.items():
            for tok in (prev, *row):
                if tok not in vocab:
                    vocab.append(tok)
        if EOS not in vocab:
            vocab.append(EOS)
        self.name = name
        self.vocab = tuple(vocab)
        self.index = {t: i for i, t in enumerate(self.vocab)}
        self.bos_id = self.index[BOS]
        self.eos_id = self.index[EOS]
        V = len(self.vocab)
        probs = np.zeros((V, V))  # (prev, next)
        for prev, row in table.items():
            for tok, p in row.items():
                probs[self.index[prev], self.index[tok]] = float(p)
        self.table = {k: dict(v) for k, v in table.items()}
        self.probs = probs
        with np.errstate(divide="ignore"):
            self.log_table = np.log(probs)  # (V, V), -inf where the table has no entry

    def encode(self, text: str) -> list[int]:
        ids = encode_words(text, self.index, self.bos_id, f"the bigram model {self.name!r}")
        if ids and ids[-1] == self.eos_id:
            raise ValueError("the prompt ends with </s>, so there is nothing left to decode.")
        return ids

    def start(self, prompt_ids: Sequence[int]) -> int:
        return int(prompt_ids[-1]) if len(prompt_ids) else self.bos_id

    def logprobs(self, states: Sequence[int]) -> np.ndarray:
        return self.log_table[np.asarray(states, dtype=np.intp)]

    def advance(self, states: Sequence[int], tokens: Sequence[int]) -> list[int]:
        return [int(t) for t in tokens]

    def to_json(self) -> str:
        return json.dumps(self.table, indent=2)


def toy_model() -> BigramModel:
    """The lesson's toy bigram model (the default model of `seqviz decode`)."""
    return BigramModel(TOY_BIGRAM, name="toy")


def load_bigram(path: str | Path) -> BigramModel:
    """Read a bigram table from JSON; any problem is a ValueError of one sentence."""
    from seqviz.limits import read_text

    path = Path(path)
    text = read_text(path, "bigram file", "json")
    try:
        table = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"the bigram file {str(path)!r} is not valid JSON ({exc.msg} at line {exc.lineno}, "
            f"column {exc.colno})."
        ) from None
    except RecursionError:
        raise ValueError(
            f"the bigram file {str(path)!r} is nested too deeply; a bigram table is "
            "{prev: {next: prob}}, two levels."
        ) from None
    return BigramModel(table, name=path.stem)


def _validate_table(table: Any, name: str) -> None:
    where = f"bigram table {name!r}"
    if not isinstance(table, Mapping) or not all(isinstance(r, Mapping) for r in table.values()):
        raise ValueError(
            f"the {where} must be a JSON object mapping each token to an object of next-token "
            'probabilities, like {"<s>": {"the": 0.5, "a": 0.5}, ...}.'
        )
    if BOS not in table:
        raise ValueError(f"the {where} has no row for the start token <s>.")
    if EOS in table:
        raise ValueError(f"the {where} has a row for </s>, but </s> ends a sentence and has none.")
    for prev, row in table.items():
        for tok, p in row.items():
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p):
                raise ValueError(
                    f"in the {where}, P({tok!r} | {prev!r}) is {p!r}, not a number in [0, 1]."
                )
            if not 0.0 <= p <= 1.0:
                raise ValueError(
                    f"in the {where}, P({tok!r} | {prev!r}) = {p} lies outside [0, 1]."
                )
            if tok == BOS:
                raise ValueError(f"in the {where}, <s> follows {prev!r}, but <s> may only start.")
            if tok != EOS and tok not in table:
                raise ValueError(
                    f"in the {where}, the token {tok!r} follows {prev!r} but has no row of its "
                    "own (every token except </s> needs one)."
                )
        total = math.fsum(row.values())
        if abs(total - 1.0) > ROW_TOLERANCE:
            raise ValueError(
                f"in the {where}, the row {prev!r} sums to {total:.6g}, not 1 "
                f"(allowed tolerance {ROW_TOLERANCE:g})."
            )
