"""SeqvizApp: scene switching, parameter controls, the compute worker and the animation cursor.

Driving it from code (tests, lecture scripts)::

    app = SeqvizApp(scene="vanishing", values={"rho": 1.2})
    async with app.run_test(size=(160, 50)) as pilot:
        await app.until_ready()            # the current parameters are computed and drawn
        app.set_scene("memory")            # validates now, redraws asynchronously
        app.set_param("forget_bias", 10)   # or a string: app.set_param("w", "1.5")
        await app.until_ready()
        app.play(); app.pause(); app.step(5); app.home(); app.end(); app.seek(12)
        app.set_banner("The forget gate keeps the pulse alive")   # None hides it

State is split on purpose: ``scene``/``values`` change synchronously (so scripted calls apply in
order and errors raise at once) and the screen catches up through the worker and messages.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult, ScreenStackError
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.command import CommandListItem, CommandPalette, Provider
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import get_current_worker

from seqviz.core import backend
from seqviz.scenes import get_scene, scene_names, scene_titles
from seqviz.scenes.base import Scene
from seqviz.scenes.stream import StreamControl
from seqviz.ui.compat_textual import (
    RegionScreen,
    SafeCommandPalette,
    alike_rows,
    being_removed,
    clear_styles_cache,
    install_input_fixes,
    install_strip_fix,
    paint_pending,
    settle,
)
from seqviz.ui.compute_job import KEPT, ComputeJob
from seqviz.ui.kernel_status import KernelStatus
from seqviz.ui.launch_probe import launch_probe
from seqviz.ui.messages import ComputeFailed, TraceReady
from seqviz.ui.playback import Playback, check_speed
from seqviz.ui.status import StatusLine, param_hint, play_state, status_text
from seqviz.ui.views.base import Panel, SceneView
from seqviz.ui.widgets.controls import ParamChanged, ParamFocused, ParamPanel, ParamRow
from seqviz.ui.widgets.footer import FittingFooter
from seqviz.ui.widgets.scenebar import SceneBar, SceneTabs

install_input_fixes()  # page keys before the palette draws, invalid UTF-8 (compat_textual)
install_strip_fix()  # strips placed whole no longer refer to themselves (compat_textual)

DEFAULT_SPEED = 20.0  # frames per second, unless the scene sets its own pace
COMPACT_WIDTH = 120
COMPACT_HEIGHT = 34
COMPILING = "compiling kernels (first launch only)…"
FIRST_FRAME_HOLD = 1.0  # seconds the first paint may wait for the first result
THAW_INTERVAL = 1.0  # seconds: scene switches collect the old views at most this often
YOUNG_OBJECTS = 20_000  # allocations between young collections while the app runs (Python: 700)
# A scene whose last compute took less than FAST_COMPUTE seconds of CPU is waited for in place,
# for at most FAST_WAIT (four times as long: a scene near the bar does not flip between the paths).
# Longer computes (inside's model switch, 8-14 ms) go to the worker: there the new value is
# painted while they run, which gained more than the hops cost (measured).
FAST_COMPUTE = 0.005
FAST_WAIT = 0.02


# The palette's providers, the help screen and the export keys are imported when first used:
# none of them is needed for the first frame.
def _param_commands() -> type[Provider]:
    from seqviz.ui.palette import ParamCommands

    return ParamCommands


def _export_commands() -> type[Provider]:
    from seqviz.ui.export import ExportCommands

    return ExportCommands


def _state_commands() -> type[Provider]:
    from seqviz.ui.share import StateCommands

    return StateCommands


class SeqvizApp(App[None]):
    """The seqviz terminal app. See the module docstring for the programmatic interface."""

    CSS_PATH = "app.tcss"
    TITLE = "seqviz"
    COMMANDS = App.COMMANDS | {_param_commands, _export_commands, _state_commands}
    ENABLE_COMMAND_PALETTE = True
    # A maximised panel (key m) keeps the demo caption, the status line and the key hints.
    ALLOW_IN_MAXIMIZED_VIEW = "#banner, #status, FittingFooter"

    BINDINGS = [
        Binding("space", "toggle_play", "play"),
        Binding("right", "step(1)", "step", key_display="→"),
        Binding("left", "step(-1)", "back", key_display="←"),
        Binding("home", "home", "start", show=False),
        Binding("end", "end", "end", show=False),
        Binding("r", "reset", "reset"),
        # One footer hint for the pair keeps every hint on an 80-column footer.
        Binding("plus,equals_sign,right_square_bracket", "nudge(1)", "param", key_display="+/-"),
        Binding("minus,left_square_bracket", "nudge(-1)", "param -", show=False),
        Binding("greater_than_sign,full_stop", "speed(1)", "faster", show=False),
        Binding("less_than_sign,comma", "speed(-1)", "slower", show=False),
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("m", "maximize_panel", "maximise panel", show=False),
        Binding("s", "screenshot", "SVG shot", show=False),
        Binding("e", "save_trace", "save trace", show=False),
        Binding("y", "share_state", "state string", show=False),
        Binding("q", "quit", "quit"),
        # interventions (inside and gates scenes): ablate, clamp the cursor unit; clear
        Binding("a", "view('force', 0)", "ablate unit", show=False),
        Binding("k", "view('force', 1)", "clamp unit", show=False),  # c: a demo's captions
        Binding("x", "view('clear_forced')", "clear forced units", show=False),
        *(Binding(str(i), f"scene({i})", f"scene {i}", show=False) for i in range(1, 10)),
        Binding("0", "scene(10)", "scene 10", show=False),  # 0 after 9, as on the keyboard
    ]

    def __init__(
        self,
        scene: str = "vanishing",
        values: Mapping[str, Any] | None = None,
        *,
        animate: bool = True,
        autoplay: bool = False,
        speed: float | None = None,
        warm_kernels: bool = False,
    ) -> None:
        """``warm_kernels``: do not wait for Numba; compute with the NumPy reference while the
        kernels compile in the background (what `seqviz` does; tests leave it off)."""
        super().__init__()
        first = get_scene(scene)
        # Values per scene visited; another scene's defaults are made when it is first shown, so
        # the launch imports only the first scene's module.
        self._values: dict[str, Any] = {first.name: first.make(values)}
        self.scene: Scene = first
        self.sub_title = first.title  # set now: once running, setting it repaints the screen
        self.animation_enabled = animate
        self._speed_given = speed  # an explicit speed holds in every scene
        self._speeds: dict[str, float] = {}  # speeds the user picked, per scene
        self.playback = Playback(self._scene_speed(first), follow_end=not autoplay)
        self._autoplay = autoplay
        self._generation = 0
        self._fast: dict[str, int] = {}  # scene -> backend revision its last compute was fast at
        self._shown_generation = -1
        self._failed_generation = -1  # the last change whose compute failed (its error is shown)
        self._result: Any = None
        self._pending: TraceReady | None = None
        self._view: SceneView | None = None
        self._timer: Timer | None = None
        self._compiled = False
        self._error = ""
        self._focused_param = first.specs[0].name
        self._result_ready = asyncio.Event()
        self._stream_finished = asyncio.Event()  # a steered stream showed its last result
        self._rebuilding = False
        self._draw_queued = False  # a live stream's newest result is about to be drawn
        self._stream: StreamControl | None = None  # steers the current scene's live compute
        self._stream_done = False
        self._kernel_status: KernelStatus | None = None
        self._held: Timer | None = None  # the first frame waits for the first result
        self._on_first_frame: list[Callable[[], Any]] = []
        self._settling: asyncio.Task[None] | None = None  # the first frame waits for the app
        # Made when first needed (most launches never show them): the line above an empty view
        # while the first result is not in, and the caption banner of lecture mode.
        self._notice: Static | None = None
        self._banner: Static | None = None
        if warm_kernels:
            self._kernel_status = KernelStatus(self)
        self._probe = launch_probe()  # `seqviz bench --ui` timing this launch, else None
        self._frozen_at: float | None = None  # when the heap was frozen (time.monotonic)
        self._gc_threshold: tuple[int, ...] | None = None  # the collector's own, while the app runs

    # --- layout --------------------------------------------------------------------------------
    def get_default_screen(self) -> RegionScreen:
        return RegionScreen(id="_default")  # a frame renders only its changed lines

    def compose(self) -> ComposeResult:
        yield SceneBar(list(scene_titles().items()), active=self.scene.name, id="scenebar")
        with Horizontal(id="body"):
            with alike_rows(Vertical(id="sidebar")):  # lines alike: a border on the right
                yield ParamPanel(id="controls")
                yield Static("", id="scene-info")
            with Vertical(id="main"):
                yield Vertical(id="view-slot")  # #notice goes above it while it is needed
        yield StatusLine("", id="status")  # #banner goes above it once a caption is set
        footer = FittingFooter()
        footer.waits_for_focus = True  # the first parameter row takes the focus as it mounts
        yield footer

    async def on_mount(self) -> None:
        self._hold_first_frame()
        self._timer = self.set_interval(1 / self.speed, self._tick, pause=True)
        self._apply_size_classes()
        # The first result computes while the view mounts, so the first frame shows it.
        self._request_compute()
        await self._sync_view()
        if self._autoplay:
            self.play()
        if self._kernel_status is not None:
            self._kernel_timer = self.set_interval(0.25, self._poll_kernels)

    def _hold_first_frame(self) -> None:
        """Paint nothing until the first result is in (at most FIRST_FRAME_HOLD seconds): the
        screen is drawn once, with the result, instead of empty and then again."""
        self._begin_batch()
        self._held = self.set_timer(FIRST_FRAME_HOLD, self._hold_ran_out)

    async def _hold_ran_out(self) -> None:
        """No first result within FIRST_FRAME_HOLD: paint, with the notice saying why the
        view is empty."""
        if self._held is not None and not self._compiled and self.screen_stack:
            self._notice = Static(self._notice_text(), id="notice")
            await self.screen_stack[0].query_one("#main").mount(self._notice, before=0)
        self._release_first_frame()

    def _notice_text(self) -> str:
        return self._kernel_status.notice() if self._kernel_status else COMPILING

    def after_first_frame(self, callback: Callable[[], Any]) -> None:
        """Call ``callback`` when the first frame goes to the screen (with the first result, or
        after FIRST_FRAME_HOLD seconds without it)."""
        self._on_first_frame.append(callback)

    def _release_first_frame(self) -> None:
        held, self._held = self._held, None
        if held is None:
            return
        held.stop()
        if not self.screen_stack:
            return  # the hold ran out while the app was closing: nothing to paint
        for callback in self._on_first_frame:
            callback()
        for footer in self.query(FittingFooter):
            footer.stop_waiting()  # nothing took the focus in time: the app's keys, then
        self._end_batch()
        self.screen.refresh()
        if self._result is not None and self._shown_generation == self._generation:
            self._result_ready.set()
            if self._probe is not None:
                self.call_after_refresh(self._probe.painted, self._shown_generation)

    async def _settle_and_release(self) -> None:
        try:
            await settle(self)
        except ScreenStackError:
            return  # the app is closing: nothing to paint
        if self.is_running and self.screen_stack:
            self._release_first_frame()
            # Drawn next, not at the screen's next update tick (up to 1/60 s later, spent idle):
            # the app has settled, so this is the frame the tick would draw.
            self.screen.call_next(self.screen._on_timer_update)

    def _poll_kernels(self) -> None:
        if self._kernel_status is not None and self._kernel_status.poll():
            self._kernel_timer.stop()  # switched, and the message has been read

    def refresh_kernel_status(self) -> None:
        """The background warm-up moved on (compiling, loading, switched): say so."""
        if self._notice is not None and not self._compiled:
            self._notice.update(self._notice_text())
        self._update_status()
        if self._probe is not None:
            self._probe.kernels(backend.phase()[0])

    def on_unmount(self) -> None:
        KEPT.stop()  # the kept compute thread ends after its job
        if self._kernel_status is not None:
            self._kernel_status.stop()  # ends a compiling child process with the app
        self._thaw_heap(collect=False)  # quitting: the objects go back to the collector
        if self._gc_threshold is not None:
            gc.set_threshold(*self._gc_threshold)
            self._gc_threshold = None

    # --- the garbage collector -------------------------------------------------------------------
    # A full collection walks every object (about 200,000 once a scene is up: Textual, the
    # widgets, NumPy, Numba) and took 250-880 ms, at a random moment: often right after a key.
    # Once a view shows its first result, everything alive is frozen (never walked again), so a
    # collection walks only what came after. A scene switch thaws and collects once (the old
    # view's objects are freed, memory stays flat), at most once a second: keys switching
    # scenes faster leave the heap frozen a little longer, which only delays the collection.
    #
    # The young generation is collected every YOUNG_OBJECTS allocations instead of Python's 700.
    # A frame or a new result makes and drops thousands of short-lived objects (segments,
    # strips); at 700 the collector walked each of them while it was still alive, several
    # times a frame (about 2 ms a first-play frame of the inside scene, up to 12 ms after a
    # parameter change). With a larger young generation most of them die, by reference count,
    # before a collection looks at them. The threshold is the app's while it runs.
    def _freeze_heap(self) -> None:
        if self._frozen_at is None and self.is_running:
            gc.freeze()
            self._frozen_at = time.monotonic()
            if self._gc_threshold is None:
                self._gc_threshold = gc.get_threshold()
                gc.set_threshold(YOUNG_OBJECTS, *self._gc_threshold[1:])

    def _thaw_heap(self, *, collect: bool = True) -> None:
        frozen_at = self._frozen_at
        if frozen_at is None or (collect and time.monotonic() - frozen_at < THAW_INTERVAL):
            return
        gc.unfreeze()
        self._frozen_at = None
        if collect:
            gc.collect()

    def _thaw_after_switch(self) -> None:
        """Free the old view: after the refresh that follows the switch, since until then the
        screen's compositor still holds the old widgets (collected before it, the old view
        stayed alive, frozen, until the next switch). The new view freezes after its first
        result, or here if that came first."""
        self._thaw_heap()
        if self._result is not None and self._frozen_at is None:
            self.call_after_refresh(self._freeze_heap)

    async def on_event(self, event: events.Event) -> None:
        # A key or mouse report still queued when the app has closed its last screen (quitting
        # while keys arrive) has nothing to go to: Textual reads the screen for it and raised
        # ScreenStackError from the random-keys test. Dropped here, as a closed window would.
        if isinstance(event, events.InputEvent) and not self.screen_stack:
            return
        await super().on_event(event)

    def on_resize(self, event: events.Resize) -> None:
        self._apply_size_classes(event.size)

    def _apply_size_classes(self, size: Size | None = None) -> None:
        width, height = size or self.size
        compact = width < COMPACT_WIDTH or height < COMPACT_HEIGHT
        if not self.screen_stack:
            return
        # One call: each class change restyles every widget on the screen (~0.1 s at 160x50).
        tiny = width < 60 or height < 16
        self.screen_stack[0].update_classes({"-compact": compact, "-tiny": tiny})
        if compact:  # the panels' short captions are made when first shown
            for panel in self.screen_stack[0].query(Panel):
                panel.show_short()
        try:
            self.query_one(SceneBar).set_short(width < 100)
        except Exception:
            pass  # not composed yet

    # --- the animation cursor (its state is self.playback) --------------------------------------
    @property
    def frame(self) -> int:
        return self.playback.frame

    @property
    def n_frames(self) -> int:
        return self.playback.n_frames

    @property
    def playing(self) -> bool:
        return self.playback.playing

    @property
    def speed(self) -> float:
        return self.playback.speed

    # --- the programmatic interface -------------------------------------------------------------
    @property
    def values(self) -> Any:
        """The current scene's parameter values (a frozen dataclass)."""
        return self._values[self.scene.name]

    @property
    def result(self) -> Any:
        """The result on screen (None until the first computation finishes)."""
        return self._result

    def set_scene(self, name: str, values: Mapping[str, Any] | None = None) -> None:
        """Switch scene (name or number); optional values apply on top of the scene's last ones."""
        scene = get_scene(str(name))
        if scene.name not in self._values:
            self._values[scene.name] = scene.defaults()
        if values:
            self._values[scene.name] = scene.make(values, self._values[scene.name])
        if scene.name == self.scene.name and not values:
            return
        self.scene = scene
        self._focused_param = scene.specs[0].name
        self.playback.follow_end = True
        self.pause()
        if self._scene_speed(scene) != self.speed:
            self._apply_speed(self._scene_speed(scene))
        self.call_next(self._sync_view)
        self._request_compute()

    def set_param(self, name: str, value: Any) -> None:
        """Set one parameter of the current scene; a string is parsed. ValueError if not allowed."""
        spec = self.scene.spec(name)
        value = spec.parse(value) if isinstance(value, str) and spec.kind != "text" else value
        new = self.scene.make({name: value}, self.values)
        self._apply_values(new, recompute=spec.recompute)

    def if_scene(self, scene_name: str, command: Callable[..., Any], *args: Any) -> None:
        """Run ``command(*args)`` only while ``scene_name`` is the current scene. A palette command
        runs after the keys already queued, and a view handles its last clicks after a switch:
        a parameter change meant for the scene just left is dropped, not applied to this one."""
        if scene_name == self.scene.name:
            command(*args)

    def set_params(self, values: Mapping[str, Any]) -> None:
        """Set several parameters at once (one recomputation)."""
        parsed = {}
        for name, value in values.items():
            spec = self.scene.spec(name)
            is_str = isinstance(value, str) and spec.kind != "text"
            parsed[name] = spec.parse(value) if is_str else value
        self._apply_values(self.scene.make(parsed, self.values), recompute=True)

    def reset_params(self) -> None:
        self._apply_values(self.scene.defaults(), recompute=True)

    def play(self) -> None:
        if self._stream is not None:
            if self._stream_done:
                self._request_compute()  # play after the end runs the stream again
            self._stream.resume()
            self.playback.playing = True
            self._update_status()
            return
        if self.frame >= self.n_frames:
            self.seek(0)
        self.playback.play()
        if self._timer is not None and self.animation_enabled:
            self._timer.resume()
        self._update_status()

    def pause(self) -> None:
        if self._stream is not None:
            self._stream.pause()
        self.playback.pause()
        if self._timer is not None:
            self._timer.pause()
        if self._view is not None:
            self._view.show_paused()
        self._update_status()

    def step(self, n: int = 1) -> None:
        """Move the frame cursor n frames (negative: back); pauses. A live scene does n units
        of work instead (one training update each) and cannot go back."""
        self.pause()
        if self._stream is not None:
            if not self._stream_done:
                self._stream.step(n)
            return
        self.seek(self.frame + n)

    def home(self) -> None:
        self.pause()
        self.seek(0)

    def end(self) -> None:
        self.pause()
        self.seek(self.n_frames)

    def seek(self, frame: int) -> None:
        """Show frame ``frame`` (clamped to 0..n_frames)."""
        self.playback.seek(frame)
        if self._view is not None and self._result is not None:
            self._view.show_frame(self.frame)
        self._update_status()

    def set_speed(self, speed: float) -> None:
        """Animation speed in frames per second (1..60); the current scene keeps it."""
        self._apply_speed(speed)
        self._speeds[self.scene.name] = self.speed

    def _scene_speed(self, scene: Scene) -> float:
        """The speed a scene plays at: the user's pick there, the app's, the scene's own pace."""
        if scene.name in self._speeds:
            return self._speeds[scene.name]
        if self._speed_given is not None:
            return float(self._speed_given)
        return float(scene.speed or DEFAULT_SPEED)

    def _apply_speed(self, speed: float) -> None:
        self.playback.set_speed(speed)
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_interval(1 / self.speed, self._tick, pause=not self.playing)
        self._update_status()

    check_speed = staticmethod(check_speed)

    def set_banner(self, text: str | Text | None) -> None:
        """A caption line above the status line (lecture mode); None or "" hides it. A str is
        shown as written (not read as markup: a caption may hold brackets)."""
        banner = self.banner if text else self._banner
        if banner is None:
            return  # nothing to hide
        banner.update(Text(text) if isinstance(text, str) else (text or ""))
        banner.display = bool(text)

    @property
    def banner(self) -> Static:
        """The caption banner (#banner), mounted above the status line when first asked for."""
        if self._banner is None:
            self._banner = Static("", id="banner")
            screen = self.screen_stack[0]
            screen.mount(self._banner, before=screen.query_one("#status"))
        return self._banner

    def focus_param(self, name: str) -> None:
        self.scene.spec(name)
        self._focused_param = name
        row = self.query_one(ParamPanel).row(name)
        if row is not None:
            row.focus()
        self._update_status()

    async def until_ready(self, timeout: float = 300.0) -> None:
        """Wait until the current parameters are computed and on screen. The first computation
        in a process may compile kernels: ~16 s on an idle machine, minutes on a busy one."""
        await asyncio.wait_for(self._result_ready.wait(), timeout)

    async def until_done(self, timeout: float = 600.0) -> None:
        """Like until_ready, but a live (steered) scene waits for its last result, e.g. the end
        of training: what a demo's numbers are read from."""
        if self.scene.stream is None or not self.scene.steered:
            await self.until_ready(timeout)
            return
        await asyncio.wait_for(self._stream_finished.wait(), timeout)

    @property
    def stream_idle(self) -> bool:
        """A live scene's stream waits (paused, no step asked) and its last result is shown."""
        control = self._stream
        return control is not None and control.waiting and self._result is control.last

    async def until_stream_idle(self, timeout: float = 60.0) -> None:
        """Wait until ``stream_idle`` (after a pause or a step): no result is on its way."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not self.stream_idle:
            if loop.time() > end:
                raise TimeoutError("the live scene's stream did not come to rest")
            await asyncio.sleep(0.01)

    # --- computing -----------------------------------------------------------------------------
    def _apply_values(self, values: Any, *, recompute: bool) -> None:
        if values == self.values:
            return
        self._values[self.scene.name] = values
        try:
            self.query_one(ParamPanel).show_values(values)
        except Exception:
            pass  # before compose: the panel is filled when mounted
        if recompute:
            self._request_compute()
        else:
            if self._stream is not None:
                self._stream.set_values(values)  # e.g. a learning rate, from the next update
            if self._view is not None:
                self._view.show_values(values)

    def _request_compute(self) -> None:
        self._generation += 1
        self._result_ready.clear()
        self._stream_finished.clear()
        if self._stream is not None:
            self._stream.cancel()  # wakes a paused stream so that its worker ends
            self._stream = None
        if self.scene.stream is not None and self.scene.steered:
            self._stream = StreamControl(self.values)
            self._stream_done = False
            self.playback.playing = True
        if self._stream is None and self._fast.get(self.scene.name) == backend.revision():
            # After the changes already queued (a burst of keys computes only its last value);
            # until then nothing is painted: the new value is painted with its result, once.
            self._begin_batch()
            self.call_later(self._compute_now, self._generation)
            return
        self._compute(self._generation, self.scene, self.values, self._stream)
        self._update_status()

    def _compute_now(self, generation: int) -> None:
        """Compute a scene known to be fast (its last compute took less than FAST_COMPUTE, on
        the same kernels) and show the result in this turn of the event loop: one paint with the
        new value and its result, and no worker start or message in between (ComputeJob). If
        it takes longer than FAST_WAIT after all (a kernel compiling), the result comes as a
        message."""
        try:
            if generation == self._generation:  # else a newer change is queued behind this one
                self._compute_and_show(generation)
        finally:
            self._end_batch()
        if self._shown_generation == generation:
            paint_pending(self)  # now, in one update, not at the screen's next tick

    def _compute_and_show(self, generation: int) -> None:
        scene = self.scene
        job = ComputeJob(self.post_message, generation, scene, self.values, backend.revision())
        job.start()
        message = job.wait(FAST_WAIT)
        if isinstance(message, TraceReady):
            self.on_trace_ready(message)
        elif isinstance(message, ComputeFailed):
            self.on_compute_failed(message)
        else:
            self._fast.pop(scene.name, None)  # slow now: the next change goes to the worker
            self._update_status()  # "computing…"

    def restart(self) -> None:
        """Compute the current values again; a live scene starts over from scratch."""
        self._request_compute()

    @work(thread=True, exclusive=True, group="compute", exit_on_error=False)
    def _compute(
        self, generation: int, scene: Scene, values: Any, control: StreamControl | None = None
    ) -> None:
        """Post each result of the scene for ``values`` (one, or a stream's successive ones);
        a stream stops at its next result once newer parameters or another scene were asked
        (a steered one also while it waits, paused, through its control)."""
        worker = get_current_worker()
        if control is not None:
            control.watch(lambda: worker.is_cancelled or generation != self._generation)
        results = scene.results(values, control)  # a generator: close() ends a stream early
        start, revision = time.thread_time(), backend.revision()  # CPU time (TraceReady.cost)
        try:
            for result in results:
                # a single result's compute time tells whether the next can be waited for
                cost = None if scene.stream else (time.thread_time() - start, revision)
                if worker.is_cancelled or generation != self._generation:
                    break
                if control is not None:
                    control.delivered(result)
                self.post_message(TraceReady(generation, scene.name, values, result, cost))
        except Exception as exc:  # a bad combination must show as text, never crash the app
            self.post_message(ComputeFailed.of(generation, exc))
        finally:
            results.close()

    def on_trace_ready(self, message: TraceReady) -> None:
        if message.cost is not None:
            seconds, revision = message.cost
            if seconds < FAST_COMPUTE:
                self._fast[message.scene_name] = revision
            else:
                self._fast.pop(message.scene_name, None)
        if message.generation != self._generation:
            return  # stale: parameters changed while it was computing
        self._pending = message
        if self._stream is None:
            self._show_pending()
        elif not self._draw_queued:
            # A live stream's results may come faster than frames are drawn: draw only the
            # newest, once the messages already queued (maybe newer results) have been read.
            self._draw_queued = True
            self.call_later(self._show_newest)

    def _show_newest(self) -> None:
        self._draw_queued = False
        self._show_pending()

    def on_compute_failed(self, message: ComputeFailed) -> None:
        if message.generation != self._generation:
            return
        self._error = message.error
        self._failed_generation = message.generation  # ended: not "computing…" any more
        self._compiled = True
        if self._notice is not None:
            self._notice.display = False
        self._result_ready.set()
        self._update_status()
        self._release_first_frame()

    def _show_pending(self) -> None:
        message = self._pending
        view = self._view
        if message is None or view is None or self._rebuilding or self._quitting():
            return  # (a result that comes in as the app quits is not shown on its way out)
        if message.scene_name != getattr(view, "scene_name", None):
            return  # the view for this scene is being mounted; it shows the result afterwards
        self._pending = None
        self._result = message.result
        self._error = ""
        if not self._compiled:
            self._compiled = True
            if self._notice is not None:
                self._notice.display = False
            if self._kernel_status is not None:
                self.call_after_refresh(self._kernel_status.first_paint)
        self.playback.set_frames(self.scene.frames(message.result))
        opening = self.scene.opening_frame and self.scene.opening_frame(message.result)
        if opening and self.playback.follow_end:  # a scene's own first frame (inside: the verb)
            self.playback.frame = min(opening, self.playback.n_frames)
        if self._frozen_at is None:
            self.call_after_refresh(self._freeze_heap)
        with self.batch_update():
            view.show_result(message.result)
            view.show_values(self.values)
            view.show_frame(self.frame)
        try:
            focused = self.focused
        except ScreenStackError:  # no screen: the app is closing while results still arrive
            focused = None
        if focused is not None and not focused.focusable:
            # The result hid the focused widget (the dynamics chaos map hides the phase
            # portrait): hand the keys to the parameter now, not whenever Textual's Hide
            # event blurs it (that race left the focus on nothing or on the parameter).
            self._focus_param_row()
        self._shown_generation = message.generation
        if self._held is None:  # else once the first frame is painted
            self._result_ready.set()
            if self._probe is not None:
                self.call_after_refresh(self._probe.painted, message.generation)
        if self._stream is not None:
            self._stream_done = bool(getattr(message.result, "done", True))
            if self._stream_done:
                self.playback.playing = False
                self._stream_finished.set()
        if view.status_due:
            self._update_status()
        if self._stream is None and self._held is None:
            paint_pending(self)  # a worker's result: painted now, not at the screen's next tick
        if self._held is not None:
            # Painted once the app has handled what showing the result set off (the widgets'
            # first sizes, the focused row's style and the footer's hints for it, the status
            # line): one render, not one and then the rest.
            self._settling = asyncio.get_running_loop().create_task(self._settle_and_release())

    def _quitting(self) -> bool:
        """Whether the app has begun to exit (a quit key, the palette's Quit, a shutdown): its
        screen is being taken down, and nothing may be mounted or looked up on it any more."""
        stack = self.screen_stack
        return self.return_code is not None or not stack or being_removed(stack[0])

    async def _sync_view(self) -> None:
        """Mount the current scene's view and controls if another scene's are showing.

        A switch is queued behind the key that asked for it and awaits its removals and mounts:
        a quit can come first or in between, and then the switch stops (mounting on a screen
        being taken down raised MountError, looking up its widgets NoMatches)."""
        scene = self.scene
        if self._quitting():
            return
        if self._view is not None and getattr(self._view, "scene_name", None) == scene.name:
            return
        self._rebuilding = True
        try:
            module_name, _, class_name = scene.view.partition(":")
            view_class = getattr(importlib.import_module(module_name), class_name)
            slot = self.query_one("#view-slot", Vertical)
            self._restore_maximized(slot, self.query_one(ParamPanel))
            await slot.remove_children()
            clear_styles_cache()
            if self._quitting():
                return
            view = view_class(id=f"view-{scene.name}")
            view.scene_name = scene.name
            self._result = None
            await slot.mount(view)
            self._view = view
            self.call_after_refresh(self._thaw_after_switch)
            if self._quitting():
                return
            # this switch's scene's values: another switch may have changed self.scene while
            # the view mounted (rows of one scene given another's values: AttributeError)
            await self.query_one(ParamPanel).show_scene(scene, self._values[scene.name])
            if self._quitting():
                return
            # After the view's own focus request (a widget's focus() is a call_later too), and
            # before the next paint: the first frame shows the focused row, painted once.
            self.call_later(self._focus_first_param)
            self.query_one(SceneBar).set_active(scene.name)
            self.query_one("#scene-info", Static).update(
                Text.assemble(
                    (scene.title, "bold"),
                    "\n",
                    scene.summary,
                    "\n\n",
                    ("? help · ctrl+p set by name", "dim"),
                )  # fmt: skip
            )
            if self.sub_title != scene.title:
                self.sub_title = scene.title
        finally:
            self._rebuilding = False
        if self._quitting():
            return
        if self.scene.name != scene.name:
            await self._sync_view()  # switched again while mounting
            return
        self._show_pending()

    def _restore_maximized(self, *leaving: Widget) -> None:
        """Restore the normal layout if the maximised widget is inside what a scene switch
        removes (a panel maximised with `m`): the screen went on showing the removed widget
        alone, an empty hatched screen with only the status line."""
        screen = self.screen_stack[0]
        maximized = screen.maximized
        if maximized is not None and any(node in leaving for node in maximized.ancestors_with_self):
            screen.minimize()

    def _focus_first_param(self) -> None:
        """Give the parameter that +/- changes the focus, so the highlight says which one."""
        if self.focused is not None and self.focused.focusable:
            return  # e.g. the view focused its own widget for its keys (a phase portrait)
        self._focus_param_row()

    def _focus_param_row(self) -> None:
        row = self.query_one(ParamPanel).row(self._focused_param)
        if isinstance(row, ParamRow) and self.screen is self.screen_stack[0]:
            row.focus()

    # --- animation -----------------------------------------------------------------------------
    def _tick(self) -> None:
        if not self.playing or self._result is None:
            return  # play pressed before the first result: it starts when the result is in
        if self.playback.tick():
            self.seek(self.frame)  # draws the frame and the status line
        if not self.playing:
            self.pause()  # at the end: stop the timer

    # --- status --------------------------------------------------------------------------------
    def _update_status(self) -> None:
        try:
            status = self.query_one("#status", Static)
            bar = self.query_one(SceneBar)
        except Exception:
            return
        play = (bar, *play_state(self.playing, self.speed))
        if play != getattr(self, "_play_shown", None):  # an update forces a layout pass
            self._play_shown = play
            bar.set_play_state(play[1], play[2])
        view, hint = self._view, None
        spec = next((s for s in self.scene.specs if s.name == self._focused_param), None)
        if spec is not None:
            hint = param_hint(spec, self.scene.inactive_params(self.values).get(spec.name))
        text = status_text(
            computing=self._generation not in (self._shown_generation, self._failed_generation)
            and self._compiled,
            frame_label=view.frame_label(self.frame)
            if view is not None and self._result is not None
            else None,
            overflow=getattr(self._result, "overflow", None),
            error=self._error,
            hint=hint,
            kernels=self._kernel_status.text() if self._kernel_status else None,
        )
        # #status is one line of fixed height and 1fr width: no layout pass needed per frame.
        status.update(text, layout=False)

    # --- messages from widgets -----------------------------------------------------------------
    @on(ParamChanged)
    def _param_changed(self, message: ParamChanged) -> None:
        # A row of the scene just left may share the parameter's name: if_scene drops its change.
        if message.name in self.scene.param_names:
            self.if_scene(message.scene or self.scene.name, self._set_param_or_warn, message)

    def _set_param_or_warn(self, message: ParamChanged) -> None:
        try:
            self.set_param(message.name, message.value)
        except ValueError as exc:
            self.notify(str(exc), severity="warning", markup=False)

    @on(ParamFocused)
    def _param_focused(self, message: ParamFocused) -> None:
        if message.name not in self.scene.param_names:
            return  # a row of the scene being replaced
        self._focused_param = message.name
        self._update_status()

    @on(SceneTabs.Picked)
    def _scene_picked(self, message: SceneTabs.Picked) -> None:
        self.set_scene(message.name)

    # --- actions (key bindings) ----------------------------------------------------------------
    def action_command_palette(self) -> None:
        """Textual's palette action, with the palette that survives closing mid-search, and no
        fixed id: ctrl+p right after choosing a command would otherwise meet the closing palette
        still registered under that id (DuplicateIds ended the app)."""
        if self.use_command_palette and not isinstance(self.screen, CommandPalette):
            self.push_screen(SafeCommandPalette())

    def search_themes(self) -> None:
        """Textual's theme picker (the palette's "Change theme"), in the palette that survives a
        burst of keys: Textual's own palette, closed twice, ended the app (10,000-key test)."""
        from textual.theme import ThemeProvider

        self.push_screen(
            SafeCommandPalette(providers=[ThemeProvider], placeholder="Search for themes…")
        )

    def search_commands(
        self, commands: Sequence[CommandListItem], placeholder: str = "Search for commands…"
    ) -> Any:
        """Textual's list of commands, in the same safe palette as the others."""
        from textual.command import SimpleProvider

        return self.push_screen(
            SafeCommandPalette(  # an instance, as Textual passes it (its annotation says a type)
                providers=[SimpleProvider(self.screen, list(commands))],  # type: ignore[list-item]
                placeholder=placeholder,
            )
        )

    def action_maximize_panel(self) -> None:
        """Fill the screen with one panel (the one under the mouse, else the first), or restore."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
            return
        hovered = self.mouse_over
        chain = [hovered, *hovered.ancestors] if hovered is not None else []
        panel = next((w for w in chain if isinstance(w, Panel)), None)
        if panel is None and self._view is not None:
            panel = next(iter(self._view.query(Panel)), None)
        if panel is not None:
            screen.maximize(panel, container=False)

    def action_toggle_play(self) -> None:
        self.pause() if self.playing else self.play()

    def action_step(self, n: int) -> None:
        self.step(n)

    def action_home(self) -> None:
        self.home()

    def action_end(self) -> None:
        self.end()

    def action_reset(self) -> None:
        if self.scene.stream is not None and self.scene.steered:
            self.restart()  # a live scene: train again from scratch with the same knobs
        else:
            self.reset_params()

    def action_nudge(self, direction: int) -> None:
        if self._focused_param not in self.scene.param_names:
            self._focused_param = self.scene.specs[0].name
        spec = self.scene.spec(self._focused_param)
        new = spec.nudge(getattr(self.values, spec.name), direction)
        self.set_param(spec.name, new)

    def action_view(self, name: str, *args: Any) -> None:
        """A key only some scenes' views act on (a, c, x: interventions); others ignore it."""
        handler = getattr(self._view, f"action_{name}", None)
        if handler is not None:
            handler(*args)

    def action_speed(self, direction: int) -> None:
        speed = self.playback.next_speed(direction)
        if speed is not None:
            self.set_speed(speed)

    def action_scene(self, number: int) -> None:
        names = scene_names()
        if 1 <= number <= len(names):
            self.set_scene(names[number - 1])

    def action_help(self) -> None:
        from seqviz.ui.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        # Installed once and reused: a popped installed screen is kept, not removed, which
        # also avoids a hang seen when a fresh help screen was removed during fast key input.
        if not self.is_screen_installed("help"):
            titles = list(scene_titles().values())
            self.install_screen(HelpScreen(self.scene, titles), name="help")
        help_screen = self.get_screen("help")
        assert isinstance(help_screen, HelpScreen)
        help_screen.show_scene(self.scene)
        self.push_screen("help")

    shots_dir: Path | None = None
    """Folder for the screenshot and trace keys (None: $SEQVIZ_SHOTS or ./seqviz-shots)."""

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """Save the screen as SVG in the shots folder under a scene-and-time name (`s` key).

        `filename` and `path` are only accepted so the signature matches Textual's
        App.action_screenshot; they are ignored (the shots folder decides where files go).
        """
        from seqviz.ui.export import screenshot_action

        screenshot_action(self)

    def action_share_state(self) -> None:
        """Show and copy the state string that reopens this screen (`seqviz --state`)."""
        from seqviz.ui.share import share_state

        share_state(self)

    def shared_step(self) -> tuple[str | None, int | None]:
        """The demo and step (1-based) a state string of this screen names: none here; a demo
        app names its step."""
        return None, None

    def open_demo_step(self, state: Any) -> bool:
        """Show the demo step ``state`` names, if this app runs that demo (a demo app does);
        False if it does not, and the caller opens the scene instead."""
        return False

    def action_save_trace(self) -> None:
        from seqviz.ui.export import trace_action

        trace_action(self)

    def pop_screen(self) -> AwaitComplete:
        """Pop a modal screen; a second dismiss from fast repeated keys (enter, escape on the
        command palette) must not pop the main screen and stop the app."""
        if len(self.screen_stack) <= 1:

            async def nothing() -> None:
                return None

            return AwaitComplete(nothing()).call_next(self)
        return super().pop_screen()
