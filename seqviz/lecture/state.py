"""Opening a state string: the demo step it names, and the app that shows it."""

from __future__ import annotations

from typing import Any

from seqviz.scenes.state import State, StateError


def demo_of(state: State) -> Any:
    """The shipped demo whose step ``state`` names (None for a plain scene); StateError (one
    sentence) if that demo or step does not exist or shows another scene."""
    if state.demo is None:
        return None
    from seqviz.lecture.script import demo_names, find_demo

    if state.demo not in demo_names():
        raise StateError(f"the state names demo {state.demo!r}, which is not shipped; shipped "
                         f"demos are {', '.join(demo_names())}")  # fmt: skip
    demo = find_demo(state.demo)
    step = state.step or 1
    if not 1 <= step <= len(demo):
        raise StateError(f"the state names step {step} of demo {demo.name}, which has "
                         f"{len(demo)} steps")  # fmt: skip
    if demo.steps[step - 1].scene != state.scene:
        raise StateError(f"the state names the {state.scene} scene for step {step} of demo "
                         f"{demo.name}, which shows {demo.steps[step - 1].scene}")  # fmt: skip
    return demo


def open_app(state: State, **kwargs: Any) -> Any:
    """The app that shows ``state``: a DemoApp at its step, or a SeqvizApp on its scene;
    StateError as demo_of() says."""
    demo = demo_of(state)
    if demo is None:
        from seqviz.ui.app import SeqvizApp

        return SeqvizApp(scene=state.scene, values=state.values, **kwargs)
    from seqviz.lecture.runner import DemoApp

    return DemoApp(demo, start=state.step or 1, state_values=state.values, **kwargs)
