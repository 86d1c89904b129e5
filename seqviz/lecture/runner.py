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
        Binding("c", "toggle_large_captions", "large captions", show=False),
    ]

    def __init__(self, demo: Demo, *, start: int = 1, large_captions: bool = False,
                 state_values: dict[str, Any] | None = None, **kwargs: Any) -> None:  # fmt: skip
        """``state_values``: the values a state string gave for step ``start`` (they may differ
        from the step's own, if the lecturer changed a knob before sharing it)."""
        if not 1 <= start <= len(demo):
            raise ValueError(f"--start must be a step from 1 to {len(demo)}, not {start}")
        first = demo.steps[start - 1]
        super().__init__(scene=first.scene, values=state_values or first.values, **kwargs)
        self._state_values = {start - 1: dict(state_values)} if state_values else {}
        self.revealed = False  # the current step's question has been answered
        self.measured: dict[int, list[float]] = {}  # step index -> its claims' measured values
        self.demo = demo
        self.index = start - 1  # 0-based step on screen
        self.step_errors: list[str] = []  # actions that could not run (e.g. select a missing node)
        self.large_captions = large_captions

    async def on_mount(self) -> None:  # the app's own on_mount (async) runs too
        self.banner.set_class(self.large_captions, "-large")

    def action_toggle_large_captions(self) -> None:
        """Presenter style: a roomier, high-contrast caption banner (and back)."""
        self.large_captions = not self.large_captions
        self.banner.set_class(self.large_captions, "-large")

    @property
    def current(self) -> Any:
        return self.demo.steps[self.index]

    def shared_step(self) -> tuple[str | None, int | None]:
        """A shipped demo's step while its own scene is shown: a lecturer who wandered off to
        another scene shares that scene alone (and a demo from a file has no name to share)."""
        from seqviz.lecture.script import demo_names

        if self.demo.name in demo_names() and self.current.scene == self.scene.name:
            return self.demo.name, self.index + 1
        return None, None

    def open_demo_step(self, state: Any) -> bool:
        """Go to the step of this demo that ``state`` names, with the state's values."""
        if state.demo != self.demo.name:
            return False
        index = (state.step or 1) - 1
        if not (0 <= index < len(self.demo) and self.demo.steps[index].scene == state.scene):
            return False
        self._state_values[index] = dict(state.values)
        self.run_worker(self.goto(index), exclusive=True, group="demo", exit_on_error=False)
        return True

    def on_ready(self) -> None:
        self.run_worker(self.goto(self.index), exclusive=True, group="demo", exit_on_error=False)

    def action_slide(self, direction: int) -> None:
        if direction > 0 and self.current.question is not None and not self.revealed:
            self.reveal()  # a checkpoint: the next key answers before it moves on
            return
        target = min(max(self.index + direction, 0), len(self.demo) - 1)
        if target == self.index:
            self.bell()
            return
        self.run_worker(self.goto(target), exclusive=True, group="demo", exit_on_error=False)

    async def goto(self, index: int) -> None:
        """Show step ``index`` (0-based): banner, scene and values, then its actions."""
        self.index = index
        self.revealed = False
        step = self.demo.steps[index]
        values = self._state_values.pop(index, None) or step.values
        self.set_banner(self.banner_text())
        scene_changed = self.scene.name != step.scene
        if scene_changed:
            self.set_scene(step.scene, values)
        else:
            self.set_params({k: v for k, v in values.items()
                             if getattr(self.values, k) != v})  # fmt: skip
        try:
            await self.until_ready(timeout=600)  # a first launch may still be compiling
        except asyncio.TimeoutError:  # (3.10: not the builtin TimeoutError)
            self.notify(f"step {step.number} is still computing; its actions were skipped",
                        severity="warning")  # fmt: skip
            return
        if self.scene.steered:  # a live scene (training): its numbers are the finished run's
            try:
                await self.until_done(timeout=600)
            except asyncio.TimeoutError:
                self.notify(f"step {step.number} is still running; its actions were skipped",
                            severity="warning")  # fmt: skip
                return
        self.end()  # a step starts from the finished picture unless its actions say otherwise
        if step.claims:  # verdicts come from the result now on screen
            self.measured[index] = [claim.measured(self.result) for claim in step.claims]
            self.set_banner(self.banner_text())
        for action in step.actions:
            try:
                self.run_action_step(action)
            except ValueError as exc:  # validated on load; a live change could still clash
                self.step_errors.append(f"step {step.number}: {action}: {exc}")
                self.notify(str(exc), severity="warning", markup=False)

    def reveal(self) -> None:
        """Answer the current step's question: the answer, the caption and measured values."""
        self.revealed = True
        self.set_banner(self.banner_text())

    def banner_text(self) -> Text:
        step = self.current
        text = Text()
        text.append(f" {step.number}/{len(self.demo)} ", style="reverse")
        if step.question is not None and not self.revealed:
            text.append(f" {step.question.prompt()}", style="bold")
            text.append("   n: the answer", style="dim")
            return text
        if step.question is not None:
            text.append(f" {step.question.reveal()}", style="bold")
        text.append(f" {step.caption}")
        measured = self.measured.get(self.index)
        for i, claim in enumerate(step.claims):
            if measured is None:
                text.append(f"\n… measuring: {claim.says}", style="dim")
            else:
                good = claim.holds(measured[i])
                text.append(f"\n{claim.line(measured[i])}", style="green" if good else "red")
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
        """Point the scene's cursor through its select hook (a unit, a tree node's words...)."""
        hook = self.scene.select
        if hook is None:
            raise ValueError(f"the {self.scene.name} scene has nothing to select")
        try:
            changes = hook.apply(self.result, what)
        except LookupError as exc:
            message = str(exc.args[0]) if exc.args else str(exc)
            self.step_errors.append(f"step {self.current.number}: {message}")
            self.notify(message, severity="warning", markup=False)
            return
        for name, value in changes.items():  # one by one: each keeps its spec's recompute rule
            self.set_param(name, value)


SIZES = ((100, 30), (120, 40), (160, 50))  # the sizes a lecture hall uses; --check runs all three
MIN_PLOT_ROWS = 6  # a plot a caption talks about, at every size --check runs

# A cited number: a decimal (0.73) or e-notation (3.2e-17); bare integers are counts and settings.
CITED = re.compile(r"(?<![\w.])-?(?:\d+\.\d+(?:e[-+]?\d+)?|\d+e[-+]?\d+)(?![\w.]*\d)")
SHOWN = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def cited_numbers(caption: str) -> list[str]:
    """The measured numbers a caption cites (decimals and e-notation), in order."""
    return CITED.findall(caption)


def is_visible(cited: str, shown: list[str]) -> bool:
    """Whether ``cited`` is on screen: verbatim, or a shown number rounds to it at the precision
    the caption uses (0.73 cites 0.727; 0.13 cites 1.3e-01)."""
    text = " ".join(shown)
    value = float(cited)
    mantissa, _, exponent = cited.lower().partition("e")
    for token in SHOWN.findall(text):
        if token == cited:
            return True
        try:
            number = float(token)
        except ValueError:
            continue
        if exponent:
            digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
            if f"{number:.{digits}e}" == f"{value:.{digits}e}":
                return True
        else:
            decimals = len(mantissa.split(".")[1])
            if f"{number:.{decimals}f}" == f"{value:.{decimals}f}" and number != 0:
                return True
    return False


def _lines_without_banner(app: Any) -> list[str]:
    """The screen's text lines with the caption banner's rows left out (a caption must not
    count as showing its own numbers)."""
    from seqviz.ui.export import screen_text

    lines = screen_text(app).splitlines()
    banner = app.banner.region
    hidden = set(range(banner.y, banner.y + banner.height))
    return [normalize(line) for i, line in enumerate(lines) if i not in hidden]


def caption_rows(app: Any) -> tuple[int, int]:
    """(rows the step's caption needs at the banner's width, rows the banner shows)."""
    from rich.console import Console

    banner = app.banner
    width = banner.content_region.width
    if width <= 0:
        return (1, 0)
    console = Console(width=width, color_system=None)
    needed = len(app.banner_text().wrap(console, width))
    return needed, banner.content_region.height


def layout_problems(app: Any) -> list[str]:
    """What a lecture hall would not see whole: the caption cut, the tab bar cut, a plot a
    caption talks about squeezed below MIN_PLOT_ROWS rows."""
    from seqviz.scenes import scene_titles
    from seqviz.ui.widgets.scenebar import APP_NAME, SceneTabs

    problems = []
    needed, shown = caption_rows(app)
    if needed > shown:
        problems.append(f"the caption needs {needed} rows, the banner shows {shown}: it is cut")
    tabs = app.query_one(SceneTabs)
    labels = "".join(tabs.labels)
    numbers = [int(n) for n in re.findall(r"(?<!\S)(\d+)(?= |$)", labels)]
    if (tabs.region.width < len(APP_NAME) + len(labels) or tabs.region.right > app.size.width
            or numbers != list(range(1, len(scene_titles()) + 1))):  # fmt: skip
        problems.append("the tab bar is cut: not every scene number shows")
    view = getattr(app, "_view", None)
    cited = [] if view is None else [(p, view.query(f"#{p}")) for p in view.cited_plots()]
    for plot_id, found in cited:
        plot = found.first() if found else None
        if plot is None or not all(w.display for w in (plot, *plot.ancestors)):
            continue  # this mode of the scene does not show it (its step talks of another)
        rows = plot.region.height
        if rows < MIN_PLOT_ROWS:
            problems.append(f"the plot #{plot_id}, which the captions talk about, has {rows} rows "
                            f"(at least {MIN_PLOT_ROWS})")  # fmt: skip
    return problems


async def check_demo(demo: Demo, sizes: Any = SIZES) -> list[str]:
    """Run every step headless at each size and return what went wrong: errors, expected text not
    shown, numbers the caption cites that the screen does not show, and what is not seen whole
    (layout_problems: the caption, the tab bar, the plots the captions talk about)."""
    if isinstance(sizes, tuple) and len(sizes) == 2 and isinstance(sizes[0], int):
        sizes = (sizes,)  # one (width, height)
    problems: list[str] = []
    for size in sizes:
        problems.extend(await _check_at(demo, tuple(size), len(sizes) > 1))
    return problems


async def _check_at(demo: Demo, size: tuple[int, int], label: bool) -> list[str]:
    problems: list[str] = []
    app = DemoApp(demo, animate=False)
    at = f" at {size[0]}x{size[1]}" if label else ""
    async with app.run_test(size=size) as pilot:
        for index, step in enumerate(demo.steps):
            await app.goto(index)
            if app.playing:  # what the screen shows once the animation has run out
                app.end()
            await pilot.pause()
            await pilot.pause()
            where = f"{demo.path}:{step.line}: step {step.number}{at}"
            error = getattr(app, "_error", "")
            if error:
                problems.append(f"{where}: the scene failed: {error}")
            # A scene may draw a user mistake as text instead of failing (the decoding scene's
            # model file that did not load): for a scripted step that is still a failure.
            result_error = getattr(app.result, "error", None)
            if result_error and not error:
                problems.append(f"{where}: the step did not run: {result_error}")
            problems.extend(await _check_checks(app, pilot, where))
            shown = _lines_without_banner(app)
            for expected in step.expect:
                if not any(normalize(expected) in line for line in shown):
                    problems.append(f"{where}: the screen does not show {expected!r}")
            for number in cited_numbers(step.caption):
                if not is_visible(number, shown):
                    problems.append(f"{where}: the caption cites {number}, the screen does not "
                                    "show it")  # fmt: skip
            problems.extend(f"{where}: {problem}" for problem in layout_problems(app))
        problems.extend(f"{e}{at}" for e in app.step_errors)
    return problems


async def _check_checks(app: DemoApp, pilot: Any, where: str) -> list[str]:
    """A step's claims must be measurable on the result shown, and its question must show, then
    its answer after the next key (which must not leave the step)."""
    problems = []
    step = app.current
    for claim, value in zip(step.claims, app.measured.get(app.index, []), strict=False):
        if value != value:  # nan: the result on screen does not hold the number
            problems.append(f"{where}: the claim {claim.says!r} could not be measured "
                            f"({claim.measure} is not in the result)")  # fmt: skip
    if step.claims and app.index not in app.measured:
        problems.append(f"{where}: the claims were not measured (the step did not finish)")
    if step.question is not None:
        banner = normalize(app.banner_text().plain)
        if normalize(step.question.ask) not in banner or normalize(step.caption) in banner:
            problems.append(f"{where}: the question does not show alone before its answer")
        index = app.index
        app.action_slide(1)
        await pilot.pause()
        banner = normalize(app.banner_text().plain)
        if app.index != index or normalize(step.question.reveal()) not in banner:
            problems.append(f"{where}: the next key does not reveal the answer")
    return problems


async def verify_demo(demo: Demo, size: tuple[int, int] = (120, 40)) -> list[dict[str, Any]]:
    """Run the steps that carry claims headless and report each claim: measured, published,
    verdict (computed from the result on screen)."""
    reports: list[dict[str, Any]] = []
    if not any(step.claims for step in demo.steps):
        return reports
    app = DemoApp(demo, animate=False)
    async with app.run_test(size=size) as pilot:
        for index, step in enumerate(demo.steps):
            if not step.claims:
                continue
            await app.goto(index)
            await pilot.pause()
            error = getattr(app, "_error", "") or getattr(app.result, "error", None) or ""
            measured = app.measured.get(index, [float("nan")] * len(step.claims))
            for claim, value in zip(step.claims, measured, strict=True):
                report = {"demo": demo.name, "step": step.number, **claim.report(value)}
                if error:
                    report["error"] = str(error)
                reports.append(report)
    return reports
