"""DemoApp: the seqviz app driven by a demo script, one step per key press, like slides."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.binding import Binding

from seqviz.lecture.script import Action, Demo
from seqviz.ui import app as app_module
from seqviz.ui.app import SeqvizApp

HINT = "PgDn/n next · PgUp/N back"


class DemoApp(SeqvizApp):
    """SeqvizApp plus a step cursor: PgDn/n and PgUp/N move it; the caption shows as a banner.

    Each step sets its scene and full parameter values, waits until they are on screen, then
    runs its actions. Everything else (keys, palette, live parameters) works as usual, so a
    lecturer can wander off and the next key press brings the script back.
    """

    # Textual resolves CSS_PATH beside the subclass's module; point it back at the app's sheet.
    CSS_PATH = str(Path(app_module.__file__).with_name("app.tcss"))

    BINDINGS = [
        # Priority so a focused control (a text box, the decoding tree) cannot swallow them.
        Binding("pagedown", "slide(1)", "next", show=False, priority=True),
        Binding("pageup", "slide(-1)", "back", show=False, priority=True),
        Binding("n", "slide(1)", "next step"),
        Binding("N", "slide(-1)", "step back", key_display="N"),
    ]

    def __init__(self, demo: Demo, *, start: int = 1, **kwargs: Any) -> None:
        if not 1 <= start <= len(demo):
            raise ValueError(f"--start must be a step from 1 to {len(demo)}, not {start}")
        first = demo.steps[start - 1]
        super().__init__(scene=first.scene, values=first.values, **kwargs)
        self.demo = demo
        self.index = start - 1  # 0-based step on screen
        self.step_errors: list[str] = []  # actions that could not run (e.g. select a missing node)

    @property
    def current(self) -> Any:
        return self.demo.steps[self.index]

    def on_ready(self) -> None:
        self.run_worker(self.goto(self.index), exclusive=True, group="demo", exit_on_error=False)

    def action_slide(self, direction: int) -> None:
        target = min(max(self.index + direction, 0), len(self.demo) - 1)
        if target == self.index:
            self.bell()
            return
        self.run_worker(self.goto(target), exclusive=True, group="demo", exit_on_error=False)

    async def goto(self, index: int) -> None:
        """Show step ``index`` (0-based): banner, scene and values, then its actions."""
        self.index = index
        step = self.demo.steps[index]
        self.set_banner(self.banner_text())
        scene_changed = self.scene.name != step.scene
        if scene_changed:
            self.set_scene(step.scene, step.values)
        else:
            self.set_params({k: v for k, v in step.values.items()
                             if getattr(self.values, k) != v})  # fmt: skip
        try:
            await self.until_ready(timeout=600)  # a first launch may still be compiling
        except asyncio.TimeoutError:  # (3.10: not the builtin TimeoutError)
            self.notify(f"step {step.number} is still computing; its actions were skipped",
                        severity="warning")  # fmt: skip
            return
        self.end()  # a step starts from the finished picture unless its actions say otherwise
        for action in step.actions:
            try:
                self.run_action_step(action)
            except ValueError as exc:  # validated on load; a live change could still clash
                self.step_errors.append(f"step {step.number}: {action}: {exc}")
                self.notify(str(exc), severity="warning", markup=False)

    def banner_text(self) -> Text:
        step = self.current
        text = Text()
        text.append(f" {step.number}/{len(self.demo)} ", style="reverse")
        text.append(f" {step.caption}")
        if step.number == 1:
            text.append(f"   {HINT}", style="dim")
        elif step.number == len(self.demo):
            text.append("   (last step)", style="dim")
        return text

    def run_action_step(self, action: Action) -> None:
        """Apply one scripted action to the app."""
        name, arg = action.name, action.arg
        if name == "play":
            self.play()
        elif name == "pause":
            self.pause()
        elif name == "home":
            self.home()
        elif name == "end":
            self.end()
        elif name == "step":
            self.step(arg)
        elif name == "seek":
            self.pause()
            self.seek(arg)
        elif name == "speed":
            self.set_speed(arg)
        elif name == "focus":
            self.focus_param(arg)
        elif name == "select":
            self.select(arg)
        else:  # pragma: no cover - the loader refuses unknown actions
            raise ValueError(f"unknown action {name}")

    def select(self, what: Any) -> None:
        """Point the scene's cursor: a unit of the gates scene, a tree node (by its words)."""
        if self.scene.name == "gates":
            self.set_param("unit", int(what))
            return
        if self.scene.name == "decoding":
            result = self.result
            nodes = getattr(result, "nodes", {}) or {}
            want = " ".join(str(what).split())
            if want == "<s>":  # the root: what the model predicts right after the prompt
                self.set_param("node", 0)
                return
            for node_id, node in sorted(nodes.items()):
                if " ".join(result.words(node).split()) == want:
                    self.set_param("node", node_id)
                    return
            self.step_errors.append(f"step {self.current.number}: no tree node reads {want!r}")
            self.notify(f"no tree node reads {want!r}", severity="warning", markup=False)
            return
        raise ValueError(f"select works in the gates and decoding scenes, not {self.scene.name}")


def normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


async def check_demo(demo: Demo, size: tuple[int, int] = (160, 50)) -> list[str]:
    """Run every step headless and return what went wrong: errors and expected text not shown."""
    from seqviz.ui.export import screen_text

    problems: list[str] = []
    app = DemoApp(demo, animate=False)
    async with app.run_test(size=size) as pilot:
        for index, step in enumerate(demo.steps):
            await app.goto(index)
            if app.playing:  # what the screen shows once the animation has run out
                app.end()
            await pilot.pause()
            await pilot.pause()
            where = f"{demo.path}:{step.line}: step {step.number}"
            error = getattr(app, "_error", "")
            if error:
                problems.append(f"{where}: the scene failed: {error}")
            shown = [normalize(line) for line in screen_text(app).splitlines()]
            for expected in step.expect:
                if not any(normalize(expected) in line for line in shown):
                    problems.append(f"{where}: the screen does not show {expected!r}")
        problems.extend(app.step_errors)
    return problems
