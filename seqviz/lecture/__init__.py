"""Lecture mode: demo scripts (TOML) that drive the app step by step, like slides.

``script`` reads and validates a demo without Textual; ``runner`` plays it in the app;
``traces`` rebuilds the recurrent traces behind a scene (for the .npz export key).
"""

from __future__ import annotations

from seqviz.lecture.script import (
    ACTIONS,
    Action,
    Demo,
    DemoError,
    Step,
    demo_names,
    find_demo,
    load_demo,
    parse_demo,
)

__all__ = [
    "ACTIONS",
    "Action",
    "Demo",
    "DemoError",
    "Step",
    "demo_names",
    "find_demo",
    "load_demo",
    "parse_demo",
]
