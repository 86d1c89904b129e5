"""No file of the project narrates its own making: history lives in git and in the issues.

Every tracked (and new, not ignored) text file is read; wording that tells the story of how the
code was written, rather than what it does, fails the test with the file and line. "Sessions" on
their own are allowed: `seqviz serve` has browser sessions.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_ORDINALS = (
    "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
    "thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|"
    r"\d+(?:st|nd|rd|th)|nth"
)
NARRATION = [
    (r"\bthis session\b", "a work session"),
    (rf"\b(?:{_ORDINALS})[- ]sessions?\b", "a numbered work session"),
    (r"\b(?:post|pre)-session\b", "a work session"),
    (r"\b(?:earlier|previous|later|past) sessions\b", "work sessions"),
    (r"\bsession's (?:start|day|machine|code|end)\b", "a work session"),
    (r"\buntil this file was replaced\b", "the file's history"),
    (r"\bwhere it stands after\b", "a progress report"),
    # a commit hash in prose: 7-40 hex digits with both digits and letters, standing alone
    (r"(?<![#\w/.\-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w\-])", "a commit hash"),
]
_PATTERN = re.compile("|".join(f"(?:{p})" for p, _ in NARRATION), re.IGNORECASE)
_BINARY = {".npz", ".npy", ".pt", ".png", ".jpg", ".gif", ".ico", ".woff", ".woff2"}


def narration(text: str) -> list[tuple[int, str]]:
    """(line number, the words) of every piece of narration in ``text``."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        found += [(number, m.group(0)) for m in _PATTERN.finditer(line)]
    return found


def project_files() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    me = Path(__file__).resolve()
    files = [ROOT / name for name in out.splitlines()]
    return [f for f in files if f.is_file() and f.suffix not in _BINARY and f.resolve() != me]


@pytest.mark.parametrize(
    "text",
    [
        "Where it stands after the fourteenth and fifteenth sessions",
        "The thirteenth session's post-session CI failed",
        "In this session the launch lost three more pieces of work.",
        "(Until this file was replaced, the shipped LSTM came from an earlier build.)",
        "measured on a8f1e4b and bdd6ada",
        "after the 3rd session",
        "as the earlier sessions' machine managed",
    ],
)
def test_the_finder_catches_narration(text):
    assert narration(text)


@pytest.mark.parametrize(
    "text",
    [
        "--max-sessions N (default 4) caps the browser sessions at once",
        "the first browser session is open",
        'DIVERGING = ["#2166ac", "#4393c3"]',
        "a loss of 1.352 nats per token, 3.2e-17 at k = 59, 0x7fffffff",
        "seqviz/data/agreement_lstm.npz and tests/__snapshots__/test_x/abc1234def.svg",
        "accede, decade, facade",
    ],
)
def test_the_finder_leaves_ordinary_text_alone(text):
    assert narration(text) == []


def test_no_file_narrates_the_projects_making():
    files = project_files()
    assert any(f.name == "README.md" for f in files) and len(files) > 100
    found = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{path.relative_to(ROOT)}:{n}: {words!r}" for n, words in narration(text)]
    assert found == [], "narration of the project's making:\n" + "\n".join(found)
