"""Running a Textual app from the command line: a terminal is required, a crash is not status 0."""

from __future__ import annotations

import os
import sys
from typing import Any

from seqviz.commands import UsageError


def check_terminal() -> None:
    """UsageError unless stdin and stdout are a terminal (served sessions use pipes on purpose).

    Without this, `seqviz < /dev/null` spun at 100% CPU reading end-of-file forever.
    """
    if os.environ.get("TEXTUAL_DRIVER"):  # textual-serve's web driver: pipes are expected
        return
    for name, stream in (("standard input", sys.stdin), ("standard output", sys.stdout)):
        try:
            tty = stream is not None and stream.isatty()
        except (ValueError, OSError):  # closed
            tty = False
        if not tty:
            raise UsageError(
                f"seqviz needs a terminal, but its {name} is not one (redirected or closed); "
                "run it in a terminal window, or use `seqviz screenshot` or `seqviz serve`"
            )


def run_app(app: Any) -> int:
    """Run ``app`` in this terminal; its exit status (1 if it stopped on an error, never 0)."""
    check_terminal()
    # Textual's panic (an error in its input thread, e.g. undecodable stdin) ends the app with
    # return_code None, i.e. status 0: count it as the crash it is.
    panicked: list[bool] = []
    panic = app.panic

    def panic_and_record(*renderables: Any) -> None:
        panicked.append(True)
        panic(*renderables)

    app.panic = panic_and_record
    app.run()
    code = app.return_code or (1 if panicked else 0)
    if code:
        print(f"seqviz: error: the app stopped on an internal error (exit status {code}); "
              "the report above says where.", file=sys.stderr)  # fmt: skip
    return int(code or 0)
