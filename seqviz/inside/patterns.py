"""Patterns: text -> one number per position, for finding the units that follow them.

Character patterns read the text as code or prose (`string`, `comment`, `indent`, `brackets`,
`line-position`, `word-position`); word patterns are `position` and the agreement grammar's
`number`, `distractor`, `distance`; `regex:EXPR` is 1 inside a match and 0 outside. A value is
nan where the pattern is undefined (a word pattern before the subject, a space's word position).
`units`, the inside scene and the cells view all compute them here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from seqviz.inside import TRACK_HELP, TRACKS
from seqviz.limits import shorten

CHAR_HELP = {
    "string": "1 inside a string literal or quotes (the quote marks included), else 0",
    "comment": "1 inside a # comment, to the end of its line, else 0",
    "indent": "the indentation of the current line, in columns (a tab is 4)",
    "brackets": "how many (, [ and { are open (outside strings and comments)",
    "line-position": "the column: 0 at the first character of each line",
    "word-position": "the place within the current word, 0 at its first letter; nan on spaces",
}
WORD_HELP = {
    "position": "the word's place in the sentence: 1 for the first word",
    **TRACK_HELP,
}
REGEX_HELP = "regex:EXPR: 1 on characters (words) inside a match of the regular expression EXPR"
CHAR_PATTERNS = tuple(CHAR_HELP)
WORD_PATTERNS = tuple(WORD_HELP)
BRACKETS = {"(": ")", "[": "]", "{": "}"}
TAB = 4


def names(level: str) -> tuple[str, ...]:
    return CHAR_PATTERNS if level == "char" else WORD_PATTERNS


def check(pattern: str, level: str) -> str:
    """`pattern` if it applies to models of `level` ("char" or "word"); else a one-sentence
    ValueError naming the patterns that do."""
    if pattern.startswith("regex:"):
        _compile(pattern)
        return pattern
    if pattern in names(level):
        return pattern
    other = "word" if level == "char" else "char"
    if pattern in names(other):
        raise ValueError(
            f"the pattern {pattern!r} is for {other}-level models; this is a {level}-level "
            f"model, whose patterns are {', '.join(names(level))} and regex:EXPR."
        )
    raise ValueError(
        f"unknown pattern {shorten(pattern)}; for character models: {', '.join(CHAR_PATTERNS)}; "
        f"for word models: {', '.join(WORD_PATTERNS)}; or regex:EXPR for anything else."
    )


def _compile(pattern: str) -> re.Pattern[str]:
    expr = pattern[len("regex:") :]
    if not expr:
        raise ValueError("regex: needs an expression after the colon, such as regex:[0-9]+.")
    try:
        return re.compile(expr)
    except re.error as exc:
        raise ValueError(f"the regular expression {shorten(expr)} is not valid: {exc}.") from None
    except RecursionError:
        raise ValueError(f"the regular expression {shorten(expr)} is nested too deeply.") from None


# --- character patterns ---------------------------------------------------------------------


def code_state(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(string, comment, brackets) per character of Python-like text: inside a string literal
    (its quotes included; ', ", and triple quotes; a backslash escapes), inside a # comment,
    and the bracket depth after the character."""
    n = len(text)
    string, comment, depth = np.zeros(n), np.zeros(n), np.zeros(n)
    quote = ""  # the open string's delimiter, "" outside a string
    in_comment = False
    level = 0
    i = 0
    while i < n:
        ch = text[i]
        if in_comment:
            if ch == "\n":
                in_comment = False
            else:
                comment[i] = 1.0
        elif quote:
            string[i] = 1.0
            if ch == "\\" and i + 1 < n:
                string[i + 1] = 1.0
                depth[i + 1] = level
                depth[i] = level
                i += 2
                continue
            if text.startswith(quote, i):
                string[i : i + len(quote)] = 1.0
                depth[i : i + len(quote)] = level
                i += len(quote)
                quote = ""
                continue
            if ch == "\n" and len(quote) == 1:
                string[i] = 0.0  # an unclosed one-line string ends with its line
                quote = ""
        elif ch == "#":
            in_comment = True
            comment[i] = 1.0
        elif ch in "'\"":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            string[i : i + len(quote)] = 1.0
            depth[i : i + len(quote)] = level
            i += len(quote)
            continue
        elif ch in BRACKETS:
            level += 1
        elif ch in BRACKETS.values():
            level = max(level - 1, 0)
        depth[i] = level
        i += 1
    return string, comment, depth


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line, the newline counted in the line it ends."""
    out, start = [], 0
    for m in re.finditer("\n", text):
        out.append((start, m.end()))
        start = m.end()
    if start < len(text) or not out:
        out.append((start, len(text)))
    return out


def indent(text: str) -> np.ndarray:
    out = np.zeros(len(text))
    for a, b in _lines(text):
        width = 0
        for ch in text[a:b]:
            if ch == " ":
                width += 1
            elif ch == "\t":
                width += TAB
            else:
                break
        out[a:b] = width
    return out


def line_position(text: str) -> np.ndarray:
    out = np.zeros(len(text))
    for a, b in _lines(text):
        out[a:b] = np.arange(b - a)
    return out


def word_position(text: str) -> np.ndarray:
    out = np.full(len(text), np.nan)
    for m in re.finditer(r"\S+", text):
        out[m.start() : m.end()] = np.arange(m.end() - m.start())
    return out


def regex_chars(text: str, pattern: str) -> np.ndarray:
    out = np.zeros(len(text))
    for m in _compile(pattern).finditer(text):
        out[m.start() : m.end()] = 1.0
    return out


_CHAR: dict[str, Callable[[str], np.ndarray]] = {
    "string": lambda t: code_state(t)[0],
    "comment": lambda t: code_state(t)[1],
    "brackets": lambda t: code_state(t)[2],
    "indent": indent,
    "line-position": line_position,
    "word-position": word_position,
}


def char_values(pattern: str, text: str) -> np.ndarray:
    """The pattern's value at each character of `text` (len(text),)."""
    check(pattern, "char")
    if pattern.startswith("regex:"):
        return regex_chars(text, pattern)
    return _CHAR[pattern](text)


# --- word patterns ----------------------------------------------------------------------------


def word_values(pattern: str, words: Sequence[str]) -> np.ndarray:
    """The pattern's value at each input step of `<s> words` (len(words) + 1,): step 0 reads
    <s>, step t the t-th word."""
    check(pattern, "word")
    words = list(words)
    T = len(words) + 1
    if pattern == "position":
        return np.arange(T, dtype=np.float64)
    if pattern in TRACKS:
        from seqviz.inside.tracks import tracks

        return tracks(words)[pattern]
    text = " ".join(words)
    chars = regex_chars(text, pattern)
    out = np.zeros(T)
    out[0] = np.nan  # <s> is no text
    at = 0
    for t, w in enumerate(words, 1):
        out[t] = float(chars[at : at + len(w)].any())
        at += len(w) + 1
    return out


def values(pattern: str, text: str, level: str) -> np.ndarray:
    """Per input step of a model of `level` reading `<s> text` (step 0 nan for characters)."""
    if level == "char":
        return np.concatenate([[np.nan], char_values(pattern, text)])
    return word_values(pattern, text.split())


def describe(pattern: str) -> str:
    if pattern.startswith("regex:"):
        return f"1 inside a match of {pattern[6:]!r}, else 0"
    return {**CHAR_HELP, **WORD_HELP}.get(pattern, pattern)
