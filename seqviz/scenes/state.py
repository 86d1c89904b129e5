"""State strings: a short, checksummed text naming a scene, its parameters and a demo step.

``encode`` keeps only the parameters that differ from the scene's defaults, writes them as
``name=value`` pairs (the values as ``--set`` would read them), compresses the text when that is
shorter and appends a CRC-32 of the version and payload, all in URL-safe base64 behind ``sv1``.
``decode`` undoes that and sends every value through the scene's own ``--set`` parsing and
validation: nothing is evaluated or unpickled, and a string that was cut, mistyped or edited
is refused with one sentence.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

PREFIX = "sv1"  # the format's version: a later format gets a new prefix
MAX_LENGTH = 200
_RAW, _DEFLATE = b"r", b"z"
_SAFE = "-._~:/,+ "  # kept as is inside a value: common in numbers, paths and sentences
_BODY = re.compile(r"[A-Za-z0-9_-]+")
_DEMO = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
SVG_KEY = "seqviz-state"  # the SVG metadata element that carries a screenshot's state


class StateError(ValueError):
    """A state string that cannot be opened; the message is one sentence."""


@dataclass(frozen=True)
class State:
    """What a state string names: a scene, its full validated values, and maybe a demo step."""

    scene: str
    values: dict[str, Any] = field(default_factory=dict)
    demo: str | None = None
    step: int | None = None


def _text(spec: Any, value: Any) -> str:
    """A value as --set reads it back exactly (repr keeps every bit of a float)."""
    if spec.kind == "float":
        return repr(float(value))
    if spec.kind == "int":
        return str(int(value))
    return str(value)


def _payload(state: State) -> str:
    from seqviz.scenes import get_scene

    scene = get_scene(state.scene)
    values = scene.make(state.values)
    defaults = asdict(scene.defaults())
    parts = [scene.name]
    if state.demo is not None:
        parts.append(f"@{state.demo}:{state.step or 1}")
    for spec in scene.specs:
        value = getattr(values, spec.name)
        if value != defaults[spec.name]:
            parts.append(f"{spec.name}={quote(_text(spec, value), safe=_SAFE)}")
    return "&".join(parts)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def encode(state: State) -> str:
    """The state string for ``state``; StateError if its values are not allowed or it would
    take more than MAX_LENGTH characters."""
    try:
        payload = _payload(state).encode("utf-8")
    except UnicodeEncodeError:
        raise StateError("a parameter holds characters that cannot be written as UTF-8") from None
    packed = zlib.compress(payload, 9)[2:-4]  # raw deflate: the CRC below guards it instead
    body = _DEFLATE + packed if len(packed) < len(payload) else _RAW + payload
    crc = zlib.crc32(PREFIX.encode("ascii") + body).to_bytes(4, "big")
    text = PREFIX + _b64(body + crc)
    if len(text) > MAX_LENGTH:
        raise StateError(
            f"this state takes {len(text)} characters, more than the {MAX_LENGTH} a state string "
            "may have; shorten the longest text parameter"
        )
    return text


def state_of(scene: str, values: Any, demo: str | None = None, step: int | None = None) -> str:
    """encode() for a scene name and its values (a dataclass or a mapping)."""
    mapping = values if isinstance(values, dict) else asdict(values)
    return encode(State(scene, dict(mapping), demo, step))


def _bad(reason: str) -> StateError:
    return StateError(f"not a seqviz state string ({reason}); make one with `seqviz state` or "
                      "the y key in the app")  # fmt: skip


def decode(text: str) -> State:
    """The State a string names, its values validated like --set; StateError in one sentence
    (nothing opened) if the string is malformed, tampered with or names what is not allowed."""
    from seqviz.limits import shorten
    from seqviz.scenes import get_scene

    text = text.strip() if isinstance(text, str) else ""
    if not text.startswith(PREFIX):
        raise _bad(f"it should start with {PREFIX}")
    if len(text) > MAX_LENGTH:
        raise _bad(f"it has {len(text)} characters, at most {MAX_LENGTH} are allowed")
    body64 = text[len(PREFIX) :]
    if not _BODY.fullmatch(body64):
        raise _bad("it holds characters other than letters, digits, - and _")
    try:
        raw = base64.urlsafe_b64decode(body64 + "=" * (-len(body64) % 4))
    except (binascii.Error, ValueError):
        raise _bad("it was cut short or mistyped") from None
    if _b64(raw) != body64 or len(raw) < 6:  # unused low bits of the last character changed
        raise _bad("it was cut short or mistyped")
    body, crc = raw[:-4], raw[-4:]
    if zlib.crc32(PREFIX.encode("ascii") + body).to_bytes(4, "big") != crc:
        raise _bad("its checksum does not match: it was cut short, mistyped or edited")
    kind, data = body[:1], body[1:]
    try:
        if kind == _DEFLATE:
            inflater = zlib.decompressobj(-15)
            data = inflater.decompress(data, 4 * MAX_LENGTH * 4)
            if inflater.unconsumed_tail or not inflater.eof:
                raise _bad("its payload does not unpack")
        elif kind != _RAW:
            raise _bad("its payload kind is unknown")
        payload = data.decode("utf-8")
    except (zlib.error, UnicodeDecodeError):
        raise _bad("its payload does not unpack") from None
    parts = payload.split("&")
    try:
        scene = get_scene(parts[0]) if not parts[0].isdigit() else None
    except ValueError as exc:
        raise StateError(f"the state names {exc}") from None
    if scene is None:
        raise _bad("it names no scene")
    demo = step = None
    settings = []
    for part in parts[1:]:
        if part.startswith("@"):
            name, _, number = part[1:].rpartition(":")
            if not _DEMO.fullmatch(name) or not number.isdigit() or demo is not None:
                raise _bad(f"its demo step {shorten(part)} is not NAME:STEP")
            demo, step = name, int(number)
            continue
        name, sep, value = part.partition("=")
        if not sep:
            raise _bad(f"its part {shorten(part)} is not NAME=VALUE")
        settings.append(f"{name}={unquote(value)}")
    try:
        values = scene.parse_settings(settings)  # the same parsing and checks as --set
    except ValueError as exc:
        raise StateError(f"the state's values are not allowed: {exc}") from None
    return State(scene.name, asdict(values), demo, step)


def read(text_or_svg: str) -> State:
    """decode() a state string, or the state carried by an SVG screenshot's metadata."""
    text = text_or_svg.strip()
    if text.lower().endswith(".svg"):
        path = Path(text)
        if not path.is_file():
            raise StateError(f"no such SVG screenshot: {path}")
        from seqviz.limits import read_text

        try:
            svg = read_text(path, "SVG screenshot", "text")
        except ValueError as exc:
            raise StateError(str(exc).rstrip(".")) from None
        found = re.search(rf"<{SVG_KEY}[^>]*>\s*([A-Za-z0-9_-]+)\s*</{SVG_KEY}>", svg)
        if found is None:
            raise StateError(f"{path.name} carries no seqviz state (saved by an older seqviz?)")
        text = found.group(1)
    return decode(text)


def describe(state: State) -> str:
    """The state as the `seqviz` command line that opens the same screen."""
    import shlex

    from seqviz.scenes import get_scene

    scene = get_scene(state.scene)
    defaults = asdict(scene.defaults())
    words = ["seqviz", "--scene", scene.name]
    for spec in scene.specs:
        value = state.values[spec.name]
        if value != defaults[spec.name]:
            words += ["--set", f"{spec.name}={_text(spec, value)}"]
    line = shlex.join(words)
    if state.demo is not None:
        line += f"  (demo {state.demo}, step {state.step})"
    return line
