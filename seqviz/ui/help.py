"""Help screen (``?``): the keys, and the current scene's parameters with what they allow."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from seqviz.scenes.base import Scene

KEYS = (
    ("space", "play / pause (at the end, plays again from the start)"),
    ("right / left", "one frame forward / back"),
    ("home / end", "first / last frame"),
    ("r", "reset this scene's parameters to their defaults"),
    ("+ / -  or  ] / [", "change the focused parameter by one step"),
    ("tab / up / down", "move between parameters (the mouse works too: click the arrows, scroll)"),
    ("enter / escape", "in a text field: apply the typed text / restore the applied one"),
    ("> / <", "faster / slower animation"),
    ("1 - 9, 0", "switch scene (0: scene 10)"),
    ("ctrl+p", "command palette: type a parameter and a value, e.g. 'rho 1.2'"),
    ("m", "maximise the panel under the mouse (else the first) for a projector; m restores"),
    ("s / e", "save an SVG screenshot / this scene's traces (.npz) into ./seqviz-shots"),
    ("y", "show and copy the state string that reopens this screen (seqviz --state)"),
    ("?", "this help"),
    ("q", "quit"),
)


class HelpScreen(ModalScreen[None]):
    """Keys and parameters; any of escape, q or ? closes it."""

    BINDINGS = [
        Binding("escape,q,question_mark", "close", "close help"),
    ]

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
    }
    HelpScreen > VerticalScroll {
        width: 90%;
        max-width: 110;
        height: 90%;
        border: thick $accent;
        background: $surface;
        padding: 0 1;
    }
    """

    def __init__(self, scene: Scene, scene_titles: list[str]) -> None:
        super().__init__()
        self._dismissing = False
        self.scene = scene
        self.scene_titles = scene_titles

    def show_scene(self, scene: Scene) -> None:
        """Show another scene's parameters (the screen is installed once and reused)."""
        self.scene = scene
        self._dismissing = False
        if self.is_mounted:
            self.query_one("#help-scene", Static).update(self._scene_text())
            self.query_one("#help-params", Static).update(self._params())

    def _scene_text(self) -> Text:
        return Text(f"\n{self.scene.title}: {self.scene.summary}", style="bold")

    def _params(self) -> Table:
        params = Table(box=None, padding=(0, 2), header_style="bold")
        params.add_column("parameter", style="bold", no_wrap=True)
        params.add_column("allowed")
        params.add_column("meaning")
        for spec in self.scene.specs:
            params.add_row(spec.name, spec.allowed(), spec.help)
        self.params_table = params
        return params

    def compose(self) -> ComposeResult:
        keys = Table(box=None, show_header=False, padding=(0, 2))
        keys.add_column(style="bold #ffa62b", no_wrap=True)
        keys.add_column()
        for key, what in KEYS:
            keys.add_row(key, what)
        scenes = "   ".join(f"{i} {t}" for i, t in enumerate(self.scene_titles, start=1))
        with VerticalScroll():
            yield Static(Text("seqviz keys", style="bold underline"))
            yield Static(keys)
            yield Static(Text(f"\nScenes: {scenes}", style="bold"))
            yield Static(self._scene_text(), id="help-scene")
            yield Static(self._params(), id="help-params")
            yield Static(Text("\nescape, q or ? closes this help", style="dim italic"))

    def action_close(self) -> None:
        # Two quick escapes must not pop the screen below this one.
        if not self._dismissing and self.app.screen is self:
            self._dismissing = True
            self.dismiss(None)
