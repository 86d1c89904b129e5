"""Sharing states in the app: the y key shows and copies the state string, the palette opens one."""

from __future__ import annotations

from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from seqviz.scenes.state import SVG_KEY, State, StateError, decode, describe, state_of
from seqviz.ui.palette import plain


def app_state(app: Any) -> str:
    """The state string of what ``app`` shows now: its scene, values and the demo step the app
    says it shows (SeqvizApp.shared_step: a shipped demo's, while its scene is on screen)."""
    demo, step = app.shared_step()
    return state_of(app.scene.name, app.values, demo, step)


def svg_metadata(app: Any) -> str:
    """The <metadata> element an SVG screenshot carries (empty when the state is too long)."""
    try:
        state = app_state(app)
    except (StateError, ValueError, AttributeError):
        return ""
    return f"<metadata><{SVG_KEY}>{state}</{SVG_KEY}></metadata>"


def share_state(app: Any) -> str | None:
    """Show the current state string in a notification and copy it to the clipboard (OSC 52,
    where the terminal allows it); returns the string, None if it could not be made."""
    try:
        text = app_state(app)
    except StateError as exc:
        app.notify(str(exc), severity="warning", markup=False)
        return None
    app.copy_to_clipboard(text)
    app.notify(f"{text}\nseqviz --state {text}", title="state (copied)", markup=False,
               timeout=30)  # fmt: skip
    return text


def open_state(app: Any, state: State) -> None:
    """Show ``state`` in the running app: its scene and values, and its step when the app runs
    that demo."""
    if app.open_demo_step(state):
        return
    app.set_scene(state.scene, state.values)
    if state.demo is not None:
        app.notify(f"opened the scene and values of demo {state.demo}, step {state.step}; "
                   "`seqviz --state STRING` opens the demo itself", markup=False)  # fmt: skip


class StateCommands(Provider):
    """Palette: "state" shows and copies the current state; "state STRING" opens one."""

    async def discover(self) -> Hits:
        yield DiscoveryHit("state: copy this screen's state string", partial(share_state, self.app),
                           help="key y; open one here by typing 'state STRING'")  # fmt: skip

    async def search(self, query: str) -> Hits:
        word, _, rest = query.strip().partition(" ")
        rest = rest.strip()
        if word == "state" and rest:
            try:
                state = decode(rest)
            except StateError as exc:
                yield Hit(0.5, plain(str(exc)), self.app.bell, help="not opened", text=query)
                return
            shown = f"open {describe(state)}"
            yield Hit(1.0, plain(shown), partial(open_state, self.app, state), text=shown)
            return
        matcher = self.matcher(query)
        text = "state: copy this screen's state string"
        score = matcher.match(text)
        if score > 0:
            yield Hit(score, matcher.highlight(text), partial(share_state, self.app),
                      help=escape("key y; or type 'state STRING' to open one"))  # fmt: skip
