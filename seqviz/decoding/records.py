"""Immutable records the decoders emit: tree nodes, search steps and final results."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, overload

import numpy as np

# Node.status values ("blocked": a logit processor made the token impossible, see Node.note)
ROOT, KEPT, FINISHED, PRUNED, BLOCKED = "root", "kept", "finished", "pruned", "blocked"
STATUSES = (ROOT, KEPT, FINISHED, PRUNED, BLOCKED)
# Length penalties: "plain" divides log P by |y|^alpha, "google" by ((5 + |y|) / 6)^alpha
# (Wu et al. 2016, the GNMT paper).
PENALTIES = ("plain", "google")


class TokenPath(Sequence[int]):
    """The token ids from the root to a node, sharing its parent's path (one link per node).

    A tuple per node would copy the whole prefix into every hypothesis, which makes a long
    search quadratic in memory; a path keeps one token and a pointer to the parent's path.
    It reads like a tuple (len, index, slice, iterate) and equals (and hashes like) the tuple
    of the same ids, so `node.tokens == (3, 5)` and dictionaries keyed by either both work.
    """

    __slots__ = ("_parent", "_token", "_len")
    _parent: TokenPath | None
    _token: int
    _len: int

    def __init__(self, parent: TokenPath | None = None, token: int = -1) -> None:
        # the empty path is stored as parent None, length 0
        self._parent = parent if parent is not None and parent._len else None
        self._token = int(token)
        self._len = 0 if parent is None else parent._len + 1

    def extend(self, token: int) -> TokenPath:
        """This path followed by `token` (the parent shares, nothing is copied)."""
        return TokenPath(self, token)

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    def to_tuple(self) -> tuple[int, ...]:
        out = [0] * self._len
        node: TokenPath | None = self
        i = self._len - 1
        while node is not None and i >= 0:
            out[i] = node._token
            node, i = node._parent, i - 1
        return tuple(out)

    def __iter__(self) -> Iterator[int]:
        return iter(self.to_tuple())

    @overload
    def __getitem__(self, i: int) -> int: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[int, ...]: ...

    def __getitem__(self, i: int | slice) -> int | tuple[int, ...]:
        if isinstance(i, slice):
            return self.to_tuple()[i]
        if i == -1 or i == self._len - 1:
            if not self._len:
                raise IndexError("token path index out of range")
            return self._token
        return self.to_tuple()[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TokenPath):
            return self._len == other._len and self.to_tuple() == other.to_tuple()
        if isinstance(other, (tuple, list)):
            return self._len == len(other) and self.to_tuple() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.to_tuple())

    def __add__(self, other: Sequence[int]) -> tuple[int, ...]:
        return self.to_tuple() + tuple(other)

    def __radd__(self, other: Sequence[int]) -> tuple[int, ...]:
        return tuple(other) + self.to_tuple()

    def __repr__(self) -> str:
        return repr(self.to_tuple())


EMPTY_PATH = TokenPath()


class Node(NamedTuple):
    """One hypothesis, i.e. one node of the decoding tree (a path from the root to here).

    `depth` is the number of tokens generated, the closing </s> included: the t of length
    normalisation. `logprob` is the cumulative log-probability of those tokens under the model
    (temperature 1, even when sampling). `score` is `logprob / depth**alpha` (= logprob when
    alpha is 0 or the node is the root).
    """

    id: int  # unique within one search; the root is 0
    parent: int  # id of the parent node; -1 for the root
    token: int  # token id (root: last prompt token, or <s>)
    text: str  # the token as a string
    depth: int  # tokens generated so far, this one included
    token_logprob: float  # log P(token | parent's path)
    logprob: float  # sum of token_logprob along the path
    score: float  # logprob / depth**alpha, what finished hypotheses are ranked by
    status: str  # "root" | "kept" | "finished" | "pruned" | "blocked"
    tokens: TokenPath  # generated token ids from the root to here (root excluded), shared
    note: str = ""  # why a logit processor blocked or changed this token ("" when none did)

    @property
    def token_prob(self) -> float:
        return math.exp(self.token_logprob)

    @property
    def prob(self) -> float:
        return math.exp(self.logprob)

    @property
    def finished(self) -> bool:
        return self.status == FINISHED


def length_penalty(depth: int, alpha: float, penalty: str = "plain") -> float:
    """The divisor of log P: t^alpha ("plain") or ((5 + t) / 6)^alpha ("google")."""
    if alpha == 0.0 or depth == 0:
        return 1.0
    if penalty == "google":
        return ((5.0 + depth) / 6.0) ** alpha
    return float(depth) ** alpha


def length_score(logprob: float, depth: int, alpha: float, penalty: str = "plain") -> float:
    """Length-normalised score logP / penalty(t) (t = tokens generated; alpha=0 gives logP)."""
    if alpha == 0.0 or depth == 0:
        return logprob
    return logprob / length_penalty(depth, alpha, penalty)


class Candidates(Sequence[Node]):
    """One step's ranked candidates, stored as arrays (a few bytes each); Nodes are made when
    read. Kept and finished candidates are made once, so they are the very objects in the
    step's `beam` and `finished`.
    """

    __slots__ = ("first_id", "parents", "rows", "toks", "lps", "codes", "notes", "_made", "_how")

    def __init__(
        self,
        first_id: int,
        parents: tuple[Node, ...],
        rows: np.ndarray,  # (n,) index into parents
        toks: np.ndarray,  # (n,) token ids
        lps: np.ndarray,  # (n,) token log-probabilities (after the logit processors)
        codes: np.ndarray,  # (n,) index into STATUSES
        notes: np.ndarray | None,  # (n,) index into `how[2]`, 0 = no note
        how: tuple[tuple[str, ...], tuple[float, str], tuple[str, ...]],  # vocab, score, notes
    ) -> None:
        self.first_id, self.parents = first_id, parents
        self.rows, self.toks, self.lps, self.codes, self.notes = rows, toks, lps, codes, notes
        self._how = how
        self._made: dict[int, Node] = {}

    def __len__(self) -> int:
        return len(self.toks)

    def make(self, i: int) -> Node:
        node = self._made.get(i)
        if node is not None:
            return node
        vocab, (alpha, penalty), note_names = self._how
        parent = self.parents[int(self.rows[i])]
        tok, lp = int(self.toks[i]), float(self.lps[i])
        depth, total = parent.depth + 1, parent.logprob + lp
        node = Node(
            self.first_id + i,
            parent.id,
            tok,
            vocab[tok],
            depth,
            lp,
            total,
            length_score(total, depth, alpha, penalty),
            STATUSES[int(self.codes[i])],
            parent.tokens.extend(tok),
            "" if self.notes is None else note_names[int(self.notes[i])],
        )
        if node.status in (KEPT, FINISHED):
            self._made[i] = node
        return node

    @overload
    def __getitem__(self, i: int) -> Node: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Node, ...]: ...

    def __getitem__(self, i: int | slice) -> Node | tuple[Node, ...]:
        if isinstance(i, slice):
            return tuple(self.make(j) for j in range(len(self))[i])
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("candidate index out of range")
        return self.make(i)

    def __iter__(self) -> Iterator[Node]:
        return (self.make(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash((self.first_id, len(self)))

    def count(self, status: str) -> int:  # type: ignore[override]
        """How many recorded candidates have `status`."""
        return int(np.count_nonzero(self.codes == STATUSES.index(status)))

    def with_status(self, status: str) -> tuple[Node, ...]:
        code = STATUSES.index(status)
        return tuple(self.make(int(i)) for i in np.flatnonzero(self.codes == code))


@dataclass(frozen=True)
class Step:
    """What one greedy or beam-search step did; the UI animates it (expand, score, prune, finish).

    `candidates` holds the extensions of the hypotheses in `expanded`, ranked by cumulative
    log-probability (best first), each with its status: "kept" (live in the next beam),
    "finished" (ended in </s> and set aside), "pruned", or "blocked" (a logit processor made it
    impossible; listed after the ranked ones). Every extension is listed while a step has at
    most `search.RECORD_ALL` of them; past that only the best ones down to the cut and a few
    pruned below it are, and `considered` counts them all. `beam` is the live set after the
    step, `finished` every finished hypothesis so far, best score first. `stop` says why the
    search ended at this step (search.NO_LIVE, MAX_LENGTH or WIDTH_FINISHED), else None.
    """

    index: int  # 1-based; after it, hypotheses hold `index` generated tokens
    expanded: tuple[Node, ...]
    candidates: Sequence[Node]
    beam: tuple[Node, ...]
    finished: tuple[Node, ...]
    stop: str | None
    next_id: int = field(repr=False)
    states: tuple[Any, ...] = field(repr=False, compare=False)  # model states of `beam`
    considered: int = -1  # extensions with a finite score (-1: as many as `candidates`)

    def _with(self, status: str) -> tuple[Node, ...]:
        if isinstance(self.candidates, Candidates):
            return self.candidates.with_status(status)
        return tuple(c for c in self.candidates if c.status == status)

    @property
    def kept(self) -> tuple[Node, ...]:
        return self._with(KEPT)

    @property
    def pruned(self) -> tuple[Node, ...]:
        """The pruned candidates recorded (all of them unless the step was too wide)."""
        return self._with(PRUNED)

    @property
    def blocked(self) -> tuple[Node, ...]:
        return self._with(BLOCKED)

    @property
    def n_pruned(self) -> int:
        """Every pruned extension, recorded or not."""
        if self.considered < 0:
            return len(self.pruned)
        return self.considered - len(self.kept) - len(self.new_finished)

    @property
    def new_finished(self) -> tuple[Node, ...]:
        """Candidates that ended in </s> at this step and made the cut."""
        return self._with(FINISHED)


@dataclass(frozen=True)
class DecodeResult:
    """The outcome of a search: finished hypotheses by score, then any still-live ones."""

    best: Node
    hypotheses: tuple[Node, ...]
    vocab: tuple[str, ...] = field(repr=False)
    stop: str | None = None  # why the search ended (None: it was not run to the end)

    def ranked(self, by: str = "score") -> tuple[Node, ...]:
        """Finished hypotheses first, best first by `score` (length-normalised) or `logprob`."""
        if by not in ("score", "logprob"):
            raise ValueError(f"rank by 'score' or 'logprob', not {by!r}.")
        return tuple(sorted(self.hypotheses, key=lambda n: (not n.finished, -getattr(n, by))))

    def words(self, node: Node) -> list[str]:
        return [self.vocab[t] for t in node.tokens]

    def to_json(self) -> dict[str, Any]:
        """The `seqviz decode --json` shape (tokens exclude <s>, include </s> when finished)."""
        return {
            "best": {"tokens": self.words(self.best), "logprob": self.best.logprob},
            "stopped": self.stop,
            "hypotheses": [
                {
                    "tokens": self.words(h),
                    "logprob": h.logprob,
                    "score": h.score,
                    "finished": h.finished,
                }
                for h in self.hypotheses
            ],
        }
