"""A line of terminal cells stored as styled runs, so any cell range is cut out with a bisect.

Heatmaps and plots reveal their columns one animation step at a time. Building a line's runs is
done once per data or size change; each frame then only slices the runs it shows, which keeps
the per-frame cost to a few segment objects per line.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar, cast

import numpy as np
from rich.segment import Segment
from rich.style import Style

K = TypeVar("K", bound=Hashable)
RUN_BITS = 16  # a run's length in the low bits of its code (``repeated_lines``)
RUN_MASK = (1 << RUN_BITS) - 1


class RunLine:
    """Cells of one line grouped into runs of equal style; ``cells(a, b)`` cuts a range."""

    __slots__ = ("_ends", "_segments")

    def __init__(self, segments: list[Segment], ends: list[int]) -> None:
        self._segments = segments
        self._ends = ends  # exclusive end cell of each run

    @classmethod
    def from_cells(
        cls,
        chars: str | Sequence[str],
        keys: Sequence[K],
        style_of: Callable[[K], Style | None],
    ) -> RunLine:
        """Group cell ``x`` (character ``chars[x]``, style key ``keys[x]``) into runs.

        Every character must be one cell wide.
        """
        segments: list[Segment] = []
        ends: list[int] = []
        n = len(keys)
        start = 0
        for x in range(1, n + 1):
            if x == n or keys[x] != keys[start]:
                part = chars[start:x]
                text = part if isinstance(part, str) else "".join(part)
                segments.append(Segment(text, style_of(keys[start])))
                ends.append(x)
                start = x
        return cls(segments, ends)

    @classmethod
    def repeated(cls, char: str, keys: np.ndarray, style_of: Callable[[int], Style | None],
                 made: dict[tuple[int, int], Segment] | None = None) -> RunLine:  # fmt: skip
        """Cell ``x`` is ``char`` in the style of the integer key ``keys[x]`` (# (cells,)):
        ``from_cells`` with the runs found by NumPy instead of a comparison per cell.
        ``made``: segments already made, by (key, run length), shared while ``char`` and
        ``style_of`` stay the same (a new map's runs are mostly ones seen before)."""
        n = len(keys)
        if not n:
            return cls([], [])
        cuts = np.flatnonzero(keys[1:] != keys[:-1]) + 1
        ends = [*cuts.tolist(), n]
        firsts = keys[np.concatenate(([0], cuts))].tolist()
        made = {} if made is None else made
        segments = []
        start = 0
        for end, key in zip(ends, firsts, strict=True):
            segment = made.get((key, end - start))
            if segment is None:
                segment = made[key, end - start] = Segment(char * (end - start), style_of(key))
            segments.append(segment)
            start = end
        return cls(segments, ends)

    @classmethod
    def repeated_lines(cls, char: str, keys: np.ndarray, style_of: Callable[[int], Style | None],
                       made: dict[int, Segment]) -> list[RunLine]:  # fmt: skip
        """``repeated`` for every line of ``keys`` (# (lines, cells), non-negative integers)
        at once: the runs of all lines found in one pass of NumPy, not a dozen calls per line
        (a heatmap's new data builds every line). ``made``: segments already made, by run
        code (key << RUN_BITS | length), shared while ``char`` and ``style_of`` stay the same."""
        lines, n = keys.shape
        if not n or not lines:
            return [cls([], []) for _ in range(lines)]
        if n >= 1 << RUN_BITS:
            raise ValueError(f"a line of {n} cells is longer than a run code holds")
        starts = np.empty(keys.shape, dtype=bool)  # (lines, cells) a run starts here
        starts[:, 0] = True
        np.not_equal(keys[:, 1:], keys[:, :-1], out=starts[:, 1:])
        at = np.flatnonzero(starts)  # (runs,) line * n + first cell, in line order
        first = at % n
        ends = np.empty_like(first)
        ends[:-1] = first[1:]
        ends[ends == 0] = n  # the next run starts the next line: this one ends the line
        ends[-1] = n
        run_keys = keys.ravel()[at]
        codes = ((run_keys << RUN_BITS) | (ends - first)).tolist()
        found = [made.get(code) for code in codes]
        if None in found:
            for i, code in enumerate(codes):
                if found[i] is None:
                    segment = made.get(code)
                    if segment is None:
                        segment = made[code] = Segment(char * (code & RUN_MASK),
                                                       style_of(code >> RUN_BITS))  # fmt: skip
                    found[i] = segment
        segments = cast(list[Segment], found)  # every one found or made
        bounds = np.cumsum(np.bincount(at // n, minlength=lines)).tolist()
        ends_list = ends.tolist()
        out, a = [], 0
        for b in bounds:
            out.append(cls(segments[a:b], ends_list[a:b]))
            a = b
        return out

    @property
    def length(self) -> int:
        return self._ends[-1] if self._ends else 0

    def cells(self, start: int, stop: int) -> list[Segment]:
        """Segments covering cells ``start`` to ``stop`` (clipped to the line). The runs inside
        are the line's own segments (a list slice); only a run cut at either end is new."""
        start, stop = max(0, start), min(stop, self.length)
        if start >= stop:
            return []
        ends, segments = self._ends, self._segments
        first = bisect_right(ends, start)
        last = bisect_left(ends, stop)
        first_start = ends[first - 1] if first else 0
        if first == last:
            segment = segments[first]
            if start == first_start and stop == ends[first]:
                return [segment]
            return [Segment(segment.text[start - first_start : stop - first_start], segment.style)]
        out = segments[first : last + 1]
        if start > first_start:
            segment = out[0]
            out[0] = Segment(segment.text[start - first_start :], segment.style)
        if stop < ends[last]:
            segment = out[-1]
            out[-1] = Segment(segment.text[: stop - ends[last - 1]], segment.style)
        return out


def joined(left: list[Segment], right: list[Segment]) -> list[Segment]:
    """``left + right``, with the two segments at the seam merged when their styles match (one
    text run per style, as if the line had been built whole; SVG screenshots show seams)."""
    if left and right and left[-1].style == right[0].style and not left[-1].control:
        seam = Segment(left[-1].text + right[0].text, left[-1].style)
        return [*left[:-1], seam, *right[1:]]
    return left + right
