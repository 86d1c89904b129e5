"""Caps and validators for hostile input (sizes, numbers, paths, files): one sentence each."""

from __future__ import annotations

import math
import os
import stat
from pathlib import Path
from typing import Any

# The maximums are chosen for a 2-core, 24 GB machine shared with a projector: every refused
# input must be refused before an allocation, and every accepted one must finish in seconds to a
# minute with at most a few GB. docs/limits.md lists them; tests/test_limits.py checks each.
MiB = 1 << 20
MAX_SESSIONS = 32  # `serve --max-sessions`: each browser session is ~2 processes, ~200 MB
DEFAULT_SESSIONS = 4
MAX_STEPS = 100_000  # sequence length T of a trace (export --steps, run --steps)
MAX_HIDDEN = 2048  # hidden or embedding size d (a 4d x d LSTM block is 134 MB, eig ~10 s)
MAX_INPUT = 4096  # input size of a cell
MAX_LAYERS = 16  # stacked layers
MAX_MODEL_FLOATS = 25_000_000  # weights of one trained model; Adam keeps 3 more copies
MAX_TRACE_FLOATS = 50_000_000  # T x 4d floats kept by one trace (~400 MB per array family)
MAX_WIDTH = 100  # beam width
# The chapter's beam search settings: the defaults of both the decoding scene and `seqviz decode`
# (two hypotheses per step; length normalisation by t^alpha, "typically alpha = 0.6").
BEAM_WIDTH = 2
LENGTH_ALPHA = 0.6
MAX_SAMPLES = 10_000  # decode --samples
MAX_SAMPLE_TOKENS = 1_000_000  # samples x max-len of one decode run
MAX_LEN = 1_000  # decode --max-len, run beam --max-len
MAX_EPOCHS = 10_000
MAX_UPDATES = 1_000_000  # optimizer steps of one run (run training --steps)
MAX_SENTENCES = 1_000_000  # generated sentences (tagging)
MAX_BATCH = 4096
MAX_SEQ_LEN = 4096  # truncated BPTT length
MAX_LIST = 64  # values in a list option (--rho, --w, --widths, --forget-bias)
MAX_SEED = 2**32 - 1
MAX_ECHO = 60  # characters of a user's value repeated in an error message
# Distinct tokens of a vocabulary, checked where a corpus or a model file is read: a 200,000-word
# LM took 3.4 GB and 31 s to decode 20 tokens; the lessons' vocabularies are under a thousand.
MAX_VOCAB = 20_000

# File caps by kind: a shipped model is < 2 MB, the largest sensible weights are a few hundred MB.
FILE_CAPS: dict[str, int] = {
    "weights": 512 * MiB,  # .npz / .pt weights, traces and language models
    "array": 512 * MiB,  # an input .npy
    "text": 64 * MiB,  # a training corpus
    "json": 16 * MiB,  # a bigram table
    "toml": 1 * MiB,  # a demo script
}
MAX_NPZ_MEMBERS = 256
MAX_NPZ_RATIO = 1000  # uncompressed / compressed bytes of one member; zeros compress ~1000x
# dtype kinds an array of numbers or labels may have: bool, ints, floats, unicode text.
NUMBER_KINDS = "biuf"
LABEL_KINDS = "U"

# Served sessions (seqviz serve) pass the start folder here; "" turns file paths off.
ENV_FILE_ROOT = "SEQVIZ_FILE_ROOT"


class LimitError(ValueError):
    """An input outside seqviz's limits; the message is one sentence for the user."""


def shorten(value: object, limit: int = MAX_ECHO) -> str:
    """repr(value), cut to ``limit`` characters so a hostile value is not echoed whole."""
    text = repr(value) if not isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 1]}… ({len(str(value))} characters)"


def shown(path: str | os.PathLike[str]) -> str:
    """A file path for a message: quoted, cut only if absurdly long."""
    return shorten(os.fspath(path), 240)


def check_int(value: Any, option: str, lo: int, hi: int) -> int:
    """``value`` as an int in [lo, hi], or LimitError naming ``option`` and the range."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise LimitError(
            f"{option} must be a whole number from {lo} to {hi:,}, not {shorten(value)}."
        )
    try:
        number = float(value) if not isinstance(value, int) else value
    except (ValueError, OverflowError):
        number = math.nan
    if isinstance(number, float):
        if not math.isfinite(number) or not number.is_integer():
            raise LimitError(
                f"{option} must be a whole number from {lo} to {hi:,}, not {shorten(value)}."
            )
        number = int(number)
    if not lo <= number <= hi:
        raise LimitError(f"{option} must be from {lo} to {hi:,}, not {shorten(value)}.")
    return number


def check_float(
    value: Any, option: str, lo: float = -math.inf, hi: float = math.inf, *, what: str = "number"
) -> float:
    """``value`` as a finite float in [lo, hi], or LimitError naming ``option``."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        number = math.nan
    if not math.isfinite(number) or not lo <= number <= hi:
        span = (
            f" from {lo:g} to {hi:g}"
            if math.isfinite(lo) and math.isfinite(hi)
            else f" of at least {lo:g}"
            if math.isfinite(lo)
            else f" of at most {hi:g}"
            if math.isfinite(hi)
            else ""
        )
        raise LimitError(f"{option} must be a finite {what}{span}, not {shorten(value)}.")
    return number


def check_seed(value: Any, option: str = "seed") -> int:
    """A random seed: a whole number from 0 to 2**32-1 (what NumPy's generators accept)."""
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise LimitError(f"{option} must be a whole number from 0 to {MAX_SEED:,}, "
                         f"not {shorten(value)}.")  # fmt: skip
    return check_int(int(value), option, 0, MAX_SEED)


def check_list(values: Any, option: str) -> list[Any]:
    """A list option with at most MAX_LIST values."""
    values = list(values)
    if not values or len(values) > MAX_LIST:
        raise LimitError(f"{option} takes 1 to {MAX_LIST} values, not {len(values)}.")
    return values


def check_trace_size(steps: int, hidden: int, gates: int = 4, what: str = "the trace") -> None:
    """Refuse a trace whose arrays would pass MAX_TRACE_FLOATS before allocating them."""
    if steps * hidden * gates > MAX_TRACE_FLOATS:
        raise LimitError(
            f"{what} would keep {steps:,} steps x {hidden:,} units x {gates} gates; the limit is "
            f"{MAX_TRACE_FLOATS:,} values (about {MAX_TRACE_FLOATS * 8 // (1 << 30)} GB), so "
            "use fewer steps or a smaller hidden size."
        )


def check_vocab(size: int, what: str) -> None:
    """Refuse a vocabulary of more than MAX_VOCAB distinct tokens, before building on it."""
    if size > MAX_VOCAB:
        raise LimitError(
            f"{what} has {size:,} distinct tokens; the limit is {MAX_VOCAB:,}, so use a smaller "
            "corpus, --level char, or map rare words to one token."
        )


def check_model_size(n_floats: int, what: str = "the model") -> None:
    """Refuse a model of more than MAX_MODEL_FLOATS weights before allocating it."""
    if n_floats > MAX_MODEL_FLOATS:
        raise LimitError(
            f"{what} would have {n_floats:,} weights; the limit is {MAX_MODEL_FLOATS:,}, so use "
            "a smaller --hidden or --emb, or a corpus with fewer distinct tokens."
        )


# --- files ----------------------------------------------------------------------------------------


def files_allowed() -> bool:
    """False in a served session started without --allow-files (see confine)."""
    return os.environ.get(ENV_FILE_ROOT) != ""


def confine(path: str | os.PathLike[str], what: str = "file") -> Path:
    """``path`` as it may be used in this process: inside the served root, if one is set.

    `seqviz serve` starts each browser session with SEQVIZ_FILE_ROOT: the folder the server was
    started in (its paths are then kept inside it), or "" when file paths are off. The files
    shipped inside the seqviz package (models, demos) stay readable either way.
    """
    p = Path(path).expanduser()
    root = os.environ.get(ENV_FILE_ROOT)
    if root is None:
        return p
    package = Path(__file__).resolve().parent
    if package in p.resolve().parents:
        return p
    if not root:
        raise LimitError(
            f"this served session does not open or write files ({shown(path)}); the "
            "server was started without --allow-files."
        )
    base = Path(root).resolve()
    full = (base / p).resolve() if not p.is_absolute() else p.resolve()
    if full != base and base not in full.parents:
        raise LimitError(
            f"the {what} {shown(path)} is outside {base}, the only folder this served "
            "session may use."
        )
    return full


def check_regular(path: str | os.PathLike[str], what: str, cap: int | None = None) -> Path:
    """``path`` if it is an existing regular file within ``cap`` bytes; LimitError otherwise.

    A FIFO, device or directory is refused without opening it (opening a FIFO blocks until a
    writer comes; /dev/zero never ends).
    """
    p = confine(path, what)
    try:
        st = os.stat(p)
    except OSError as exc:
        reason = "no such file" if isinstance(exc, FileNotFoundError) else exc.strerror
        raise LimitError(f"cannot read the {what} {shown(p)}: {reason}.") from None
    if stat.S_ISDIR(st.st_mode):
        raise LimitError(f"cannot read the {what} {shown(p)}: it is a folder, not a file.")
    if not stat.S_ISREG(st.st_mode):
        raise LimitError(
            f"cannot read the {what} {shown(p)}: it is not a regular file (but a pipe, device "
            "or socket); give a file on disk."
        )
    if cap is not None and st.st_size > cap:
        raise LimitError(
            f"cannot read the {what} {shown(p)}: it is {st.st_size / MiB:,.1f} MB, more than "
            f"the {cap // MiB} MB limit."
        )
    return p


def read_bytes(path: str | os.PathLike[str], what: str, kind: str) -> bytes:
    """The bytes of a regular file no larger than FILE_CAPS[kind]; one-sentence errors."""
    cap = FILE_CAPS[kind]
    p = check_regular(path, what, cap)
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO after the check, open does not block.
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise LimitError(f"cannot read the {what} {shown(p)}: {exc.strerror}.") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise LimitError(f"the {what} {shown(p)} is not a regular file.")
        data = f.read(cap + 1)
    if len(data) > cap:
        raise LimitError(f"the {what} {shown(p)} is larger than {cap // MiB} MB.")
    return data


def read_text(path: str | os.PathLike[str], what: str, kind: str) -> str:
    """A capped regular file as UTF-8 text; one-sentence errors."""
    data = read_bytes(path, what, kind)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LimitError(
            f"the {what} {shown(path)} is not UTF-8 text (byte {exc.start})."
        ) from None


def check_output(path: str | os.PathLike[str], option: str = "--out") -> Path:
    """A file path that can be written: not empty, not a folder, in a writable folder."""
    text = os.fspath(path)
    if not text.strip():
        raise LimitError(f"{option} is empty; give a file name.")
    p = confine(text, "output file")
    if p.is_dir() or text.endswith(os.sep):
        raise LimitError(f"{option} {shorten(text)} is a folder; give a file name inside it.")
    if p.exists() and not p.is_file():
        raise LimitError(f"{option} {shorten(text)} exists and is not a regular file.")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise LimitError(f"the folder of {option}, {shown(folder)}, does not exist.")
    if not os.access(folder, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise LimitError(f"{option} {shorten(text)} cannot be written (permission denied).")
    # os.access says yes to root and on some file systems that still refuse a new file (/proc,
    # a read-only mount): create and remove a file where the save will put its temp file
    import tempfile

    try:
        fd, probe = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".probe", dir=folder)
    except OSError as exc:
        reason = (exc.strerror or type(exc).__name__).lower()
        raise LimitError(f"{option} {shorten(text)} cannot be written ({reason}).") from None
    os.close(fd)
    os.unlink(probe)
    return p


# --- argparse option types: the range is checked while parsing, before any work ----------------


def _option(check: Any, name: str, lo: Any, hi: Any) -> Any:
    """An argparse ``type=`` running ``check(text, option, lo, hi)``; argparse names the option
    and says "invalid <name> value" around the one-sentence reason."""

    def parse(text: str) -> Any:
        try:
            return check(text.strip(), "the value", lo, hi)
        except LimitError as exc:
            import argparse  # on first use: a bare `seqviz` never imports it

            raise argparse.ArgumentTypeError(str(exc).replace("the value ", "", 1)) from None

    parse.__name__ = name
    parse.bounds = (lo, hi)  # type: ignore[attr-defined]  # read by the option fuzz tests
    return parse


def int_option(lo: int, hi: int) -> Any:
    """An argparse ``type=`` for a whole number in [lo, hi] ("1e3" is accepted as 1000)."""
    return _option(check_int, "whole number", lo, hi)


def float_option(lo: float = -math.inf, hi: float = math.inf) -> Any:
    """An argparse ``type=`` for a finite number in [lo, hi]."""
    return _option(check_float, "number", lo, hi)


SEED = int_option(0, MAX_SEED)
