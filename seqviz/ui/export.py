"""Exports from the running app: SVG screenshots, the scene's traces as .npz, the screen as text.

Files go to the app's ``shots_dir``: ``seqviz --shots DIR`` style options set it, else the
environment variable ``SEQVIZ_SHOTS``, else ``./seqviz-shots``. Names are
``<scene>-<YYYYmmdd-HHMMSS>.svg`` and ``<scene>-<part>-<YYYYmmdd-HHMMSS>.npz`` (a ``-2``, ``-3``
suffix if that second is taken); every file is written to a temp file beside it, then renamed.
"""

from __future__ import annotations

import io
import os
import re
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rich.console import Console
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from seqviz.files import atomic_write
from seqviz.ui.compat_textual import render_screen
from seqviz.ui.palette import plain

if TYPE_CHECKING:
    from seqviz.ui.app import SeqvizApp

DEFAULT_FOLDER = "seqviz-shots"
ENV_FOLDER = "SEQVIZ_SHOTS"


def shots_folder(app: Any) -> Path:
    """Where this app writes screenshots and traces (LimitError if a served session may not)."""
    from seqviz.limits import confine

    folder = getattr(app, "shots_dir", None) or os.environ.get(ENV_FOLDER) or DEFAULT_FOLDER
    return confine(folder, "screenshot folder")


def set_shots_folder(app: Any, folder: str | os.PathLike[str]) -> Path:
    """Point the app's exports at ``folder`` (created when the first file is written)."""
    from seqviz.limits import confine

    path = confine(folder, "screenshot folder")  # a served session stays in its start folder
    if path.exists() and not path.is_dir():
        raise ValueError(f"{path} is a file; the screenshot folder must be a directory")
    app.shots_dir = path
    return path


def unique_path(folder: Path, stem: str, suffix: str, now: float | None = None) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    path = folder / f"{stem}-{stamp}{suffix}"
    n = 2
    while path.exists():
        path = folder / f"{stem}-{stamp}-{n}{suffix}"
        n += 1
    return path


def screenshot_svg(app: Any) -> str:
    """The current screen as SVG, titled with the scene (the title is the SVG's window caption)."""
    from seqviz.ui.share import svg_metadata

    svg = str(app.export_screenshot(title=f"seqviz · {app.scene.title}"))
    # The state string rides along, so `seqviz --state shot.svg` reopens the slide live.
    return re.sub(r"(<svg\b[^>]*>)", lambda m: m.group(1) + svg_metadata(app), svg, count=1)


def save_screenshot(app: Any, path: str | os.PathLike[str] | None = None) -> Path:
    """Write the screen as SVG to ``path`` or a new file in the shots folder; returns the path."""
    from seqviz.limits import files_allowed

    svg = screenshot_svg(app)
    if path is None and getattr(app, "is_web", False) and not files_allowed():
        # A served session without --allow-files: the browser gets the file, the server none.
        name = unique_path(Path("."), app.scene.name, ".svg").name
        app.deliver_text(io.StringIO(svg), save_filename=name, mime_type="image/svg+xml")
        return Path(name)
    if path is None:
        folder = shots_folder(app)
        folder.mkdir(parents=True, exist_ok=True)
        target = unique_path(folder, app.scene.name, ".svg")
    else:
        target = Path(path)
    atomic_write(target, svg)
    if getattr(app, "is_web", False):  # in a browser (seqviz serve) the file goes to the user too
        app.deliver_text(io.StringIO(svg), save_filename=target.name, mime_type="image/svg+xml")
    return target


def on_screen(app: Any) -> tuple[Any, Any]:
    """(scene, result) as shown now; the result only if it is that scene's.

    A save started by a key takes these at once: its worker runs later, when the next key may
    already have switched scenes (`e` then `1` saved the vanishing scene under gradflow's name).
    """
    scene = app.scene
    view = getattr(app, "_view", None)
    result = app.result if getattr(view, "scene_name", scene.name) == scene.name else None
    return scene, result


def save_traces(
    app: Any,
    folder: str | os.PathLike[str] | None = None,
    shown: tuple[Any, Any] | None = None,
) -> list[Path]:
    """Write the traces of ``shown`` (default: the scene on screen now; its ``traces`` hook)."""
    scene, result = shown or on_screen(app)
    traces = scene.export_traces(result)
    target = Path(folder) if folder is not None else shots_folder(app)
    target.mkdir(parents=True, exist_ok=True)
    now = time.time()
    paths = []
    for part, tr in traces.items():
        path = unique_path(target, f"{scene.name}-{part}", ".npz", now)
        tr.save(path)
        paths.append(path)
    return paths


def screen_text(app: Any) -> str:
    """The current screen as plain text, one line per row (what a reader of the SVG would see)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True,
                      force_terminal=True, color_system="truecolor", legacy_windows=False,
                      safe_box=False)  # fmt: skip
    # The same render App.export_screenshot uses, exported as text instead of SVG.
    console.print(render_screen(app))
    return console.export_text(styles=False)


# --- actions the app binds to keys -------------------------------------------------------------
SHOT_NOTICE_SECONDS = 1.5  # long enough to read a file name, short enough to be gone for the next


def screenshot_action(app: Any) -> None:
    """Save the screen as SVG; notifications on screen are cleared first and the picture taken
    after the next refresh, so no toast (this one's predecessor included) ends up in the image."""
    app.clear_notifications()

    def shoot() -> None:
        try:
            path = save_screenshot(app)
        except (OSError, ValueError) as exc:
            app.notify(f"screenshot not saved: {exc}", severity="error", markup=False)
            return
        app.notify(f"saved {path.name}", markup=False, timeout=SHOT_NOTICE_SECONDS)

    app.call_after_refresh(shoot)


def trace_action(app: Any) -> None:
    """Compute the traces in a thread (they can take a moment) and report where they went."""
    shown = on_screen(app)

    def work() -> None:
        try:
            paths = save_traces(app, shown=shown)
        except (OSError, ValueError) as exc:
            app.call_from_thread(
                app.notify, f"trace not saved: {exc}", severity="warning", markup=False
            )
            return
        names = ", ".join(p.name for p in paths)
        app.call_from_thread(
            app.notify, f"saved to {paths[0].parent}: {names}", title="trace .npz", markup=False
        )

    app.run_worker(work, thread=True, group="export", exit_on_error=False)


class ExportCommands(Provider):
    """Palette: "screenshot", "save trace", "shots DIR" (the folder both write to)."""

    @property
    def _app(self) -> SeqvizApp:
        return cast("SeqvizApp", self.app)

    def _commands(self) -> list[tuple[str, Any, str]]:
        app = self._app
        try:
            into = f"into {shots_folder(app)}/"
        except ValueError:
            into = "(this server writes no files)"
        return [
            ("save SVG screenshot", partial(screenshot_action, app), into),
            ("save trace .npz", partial(trace_action, app),
             f"the {app.scene.name} scene's traces {into}, for numpy.load"),
        ]  # fmt: skip

    async def discover(self) -> Hits:
        for text, callback, help_text in self._commands():
            yield DiscoveryHit(text, callback, help=escape(help_text))
        try:
            shots = f"shots {shots_folder(self._app)}"
        except ValueError:
            return  # a served session without --allow-files: no folder to change
        yield DiscoveryHit(plain(shots), self._app.bell, text=shots,
                           help="type 'shots DIR' to change the folder")  # fmt: skip

    async def search(self, query: str) -> Hits:
        word, _, rest = query.strip().partition(" ")
        if word == "shots" and rest.strip():
            shown = f"save screenshots and traces in {rest.strip()}"
            yield Hit(1.0, plain(shown), partial(self._set_folder, rest.strip()), text=shown)
            return
        matcher = self.matcher(query)
        for text, callback, help_text in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), callback, help=escape(help_text))

    def _set_folder(self, folder: str) -> None:
        try:
            path = set_shots_folder(self._app, folder)
        except ValueError as exc:
            self._app.notify(str(exc), severity="warning", markup=False)
            return
        self._app.notify(f"screenshots and traces now go to {path}/", markup=False)
