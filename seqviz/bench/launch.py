"""Launch times for `seqviz bench --ui`: cold (empty Numba cache) and warm, to a usable frame.

Each launch is a fresh `python -m seqviz` in a pseudo-terminal of 160x50, timed from just before
the process is started. The app reports through an inherited pipe (``launch_probe``) each result
it painted. "First frame": the first scene's first result is on screen. "Usable": after that
first frame the bench presses `+` (raise the focused parameter) and the result for the new value
is on screen, i.e. a key was handled, recomputed and painted. "Kernels": the compiled kernels
are in use (after the background compile on a cold cache, after loading them on a warm one).
The floor beside them: a Textual app that imports NumPy and paints one line, launched and timed
the same way (what no seqviz launch can beat on this machine at this moment).
"""

from __future__ import annotations

import compileall
import fcntl
import os
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Any

from seqviz.ui.launch_probe import ENV

SIZE = (160, 50)
KEY = b"+"  # raises the focused parameter (the first one): a recompute and a repaint
TIMEOUT = 900.0  # seconds; a cold compile on a loaded two-core machine took ~110 s


class LaunchError(RuntimeError):
    pass


def _pty(size: tuple[int, int]) -> tuple[int, int]:
    master, slave = os.openpty()
    cols, rows = size
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    return master, slave


def launch_once(cache_dir: str | None, *, wait_kernels: bool = True, floor: bool = False,
                timeout: float = TIMEOUT, quit_at_first_frame: bool = False,
                ) -> dict[str, float | None]:  # fmt: skip
    """One launch: seconds from process start to the first frame, to usable, to the kernels,
    and from q to the end.

    cache_dir: NUMBA_CACHE_DIR for the launch (None: this environment's cache). floor: launch
    the one-line Textual app instead of seqviz. quit_at_first_frame: press q as soon as the
    first frame is out (no `+`, nothing waited for), as a user who quits at once.
    """
    read_end, write_end = os.pipe()
    master, slave = _pty(SIZE)
    env = dict(os.environ, **{ENV: str(write_end)}, TERM=os.environ.get("TERM", "xterm-256color"))
    env.pop("TEXTUAL_DRIVER", None)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "seqviz.bench.launch", "--floor-app"] if floor
        else [sys.executable, "-m", "seqviz"], stdin=slave, stdout=slave, stderr=slave, env=env,
        pass_fds=(write_end,), start_new_session=True, close_fds=True,
    )  # fmt: skip
    os.close(slave)
    os.close(write_end)
    times: dict[str, float | None] = {"first_frame": None, "usable": None, "kernels": None}
    times["quit"] = None  # seconds from q to the end (None: it had to be terminated)
    first_generation = -1
    buffer = b""
    quits = False
    try:
        while time.perf_counter() - t0 < timeout:
            ready, _, _ = select.select([read_end, master], [], [], 0.5)
            if master in ready:
                try:
                    os.read(master, 65536)  # the screen: drained so the app never blocks
                except OSError:
                    pass
            if read_end in ready:
                chunk = os.read(read_end, 4096)
                if not chunk:
                    break
                buffer += chunk
                now = time.perf_counter() - t0
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    kind, _, arg = line.decode().partition(" ")
                    if kind == "painted" and times["first_frame"] is None:
                        first_generation = int(arg)
                        times["first_frame"] = now
                        if not quit_at_first_frame:
                            os.write(master, KEY)
                    elif kind == "painted" and times["usable"] is None:
                        if int(arg) > first_generation:
                            times["usable"] = now
                    elif kind == "kernels" and arg in ("ready", "failed"):
                        times["kernels"] = now if arg == "ready" else None
            waits = wait_kernels and not floor and times["kernels"] is None
            done = times["usable"] is not None and not waits
            quits = quit_at_first_frame and times["first_frame"] is not None
            if done or quits or proc.poll() is not None:
                break
        if times["usable"] is None and not quits:
            raise LaunchError(f"the app did not become usable within {timeout:.0f} s")
    finally:
        times["quit"] = _quit(proc, master)
        os.close(read_end)
        os.close(master)
    return times


def _quit(proc: subprocess.Popen[bytes], master: int, bound: float = 10.0) -> float | None:
    """Press q: seconds until the app ended, or None if it had to be terminated after ``bound``.

    The screen is read meanwhile, as a terminal does: the app's last frame and its exit
    sequences (about 20 KB) fill the pty's buffer, and an unread pty blocked the app's write,
    so q seemed to hang in about half the launches (4 of 8 at load 5.4)."""
    start = time.perf_counter()
    try:
        os.write(master, b"q")
        while proc.poll() is None and time.perf_counter() - start < bound:
            if select.select([master], [], [], 0.1)[0]:
                os.read(master, 65536)
    except OSError:  # the pty closed: the app is ending
        pass
    try:
        proc.wait(max(0.0, bound - (time.perf_counter() - start)))
        return time.perf_counter() - start
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return None


def warm_cache() -> None:
    """Fill this environment's caches (untimed), so that warm launches are warm: Numba's cache
    of the kernels, and Python's bytecode of seqviz. An installed seqviz has its bytecode from
    the installer; a checkout run with PYTHONDONTWRITEBYTECODE set (as on the project's machine)
    compiled its ~90 modules from source at every launch, about 0.1 s of an idle machine."""
    subprocess.run([sys.executable, "-m", "seqviz.scenes.warm"], check=True)
    package = Path(__file__).resolve().parents[1]
    compileall.compile_dir(str(package), quiet=1)  # an unwritable folder: left as it is


def bench_launch(quick: bool = False, warm_runs: int = 3) -> dict[str, Any]:
    """One cold launch (a fresh, empty NUMBA_CACHE_DIR) and several warm ones."""
    with tempfile.TemporaryDirectory(prefix="seqviz-cold-") as empty:
        cold = launch_once(empty, wait_kernels=not quick)
    warm_cache()
    ticks = cpu_times()
    warm = [launch_once(None) for _ in range(1 if quick else warm_runs)]

    floor = [launch_once(None, floor=True) for _ in range(len(warm))]
    stolen = steal_percent(ticks, cpu_times())  # over the warm and floor launches

    def summary(runs: list[dict[str, float | None]], key: str) -> dict[str, float | None]:
        values = [v for r in runs if (v := r[key]) is not None]
        if not values:
            return {"median": None, "max": None}
        return {"median": statistics.median(values), "max": max(values)}

    return {
        "size": list(SIZE),
        "usable": "first result painted, then `+` pressed and the new result painted",
        "cold": cold,
        "warm": {k: summary(warm, k) for k in ("first_frame", "usable", "kernels")},
        "floor": {k: summary(floor, k) for k in ("first_frame", "usable")},
        "warm_runs": len(warm),
        "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "steal_percent": stolen,
    }


def cpu_times(stat: str = "/proc/stat") -> tuple[int, int] | None:
    """(steal, total) clock ticks of all CPUs since boot, from Linux's /proc/stat; None where
    there is none. Steal is the time a virtual machine's CPUs were ready to run but the host
    ran something else: on a shared machine it slows every frame, the ceiling's too."""
    try:
        with open(stat) as f:
            fields = f.readline().split()
    except OSError:
        return None
    if len(fields) < 9 or fields[0] != "cpu" or not all(x.isdigit() for x in fields[1:]):
        return None
    ticks = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal
    return ticks[7], sum(ticks)


def steal_percent(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """The share of CPU time the host stole between two ``cpu_times`` readings, in percent."""
    if before is None or after is None or after[1] <= before[1]:
        return None
    return round(100.0 * (after[0] - before[0]) / (after[1] - before[1]), 1)


def stolen_text(percent: float | None) -> str:
    return "" if percent is None else f"; {percent:g}% of the CPU time stolen by the host"


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


def format_launch(result: dict[str, Any]) -> str:
    cold, warm = result["cold"], result["warm"]
    n = result["warm_runs"]
    lines = [
        f"launch to the first usable frame ({result['usable']}), "
        f"{result['size'][0]}x{result['size'][1]}, load {result['load']:.1f}"
        f"{stolen_text(result.get('steal_percent'))}:",
        f"  cold (empty Numba cache): first frame {_s(cold['first_frame'])}, usable "
        f"{_s(cold['usable'])}, compiled kernels in use after {_s(cold['kernels'])}",
        f"  warm (median of {n}, max): first frame {_s(warm['first_frame']['median'])} "
        f"({_s(warm['first_frame']['max'])}), usable {_s(warm['usable']['median'])} "
        f"({_s(warm['usable']['max'])}), kernels loaded after {_s(warm['kernels']['median'])}",
        f"  floor (NumPy + Textual painting one line, same harness): first frame "
        f"{_s(result['floor']['first_frame']['median'])}, usable "
        f"{_s(result['floor']['usable']['median'])}",
    ]
    return "\n".join(lines)


def _floor_app() -> None:
    """The floor: NumPy imported, Textual painting one line, `+` handled, `q` quits."""
    import numpy  # noqa: F401  (every seqviz frame needs it)
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    from seqviz.ui.launch_probe import launch_probe

    probe = launch_probe()

    class Floor(App[None]):
        BINDINGS = [("q", "quit", "quit"), ("plus", "plus", "plus")]

        def compose(self) -> ComposeResult:
            yield Static("one line")

        def on_mount(self) -> None:
            if probe is not None:
                self.call_after_refresh(probe.painted, 0)

        def action_plus(self) -> None:
            self.query_one(Static).update("one line +")
            if probe is not None:
                self.call_after_refresh(probe.painted, 1)

    Floor().run()


if __name__ == "__main__":
    if "--floor-app" in sys.argv:
        _floor_app()
    else:
        print(format_launch(bench_launch(quick="--quick" in sys.argv)))
