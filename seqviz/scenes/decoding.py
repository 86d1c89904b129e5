"""Scene 5, decoding tree: beam search grows step by step beside greedy; sampling cut-offs."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType, SimpleNamespace
from typing import Any

from seqviz import models
from seqviz.limits import BEAM_WIDTH, LENGTH_ALPHA
from seqviz.scenes import title_of
from seqviz.scenes.base import ParamSpec, Scene, SelectHook

# the toy bigram, every shipped language model from the registry, the attention seq2seq model
# (its prompt is the source sentence), and a file
MODELS = ("toy", *(e.key for e in models.entries("lm")), "seq2seq", "file")
MODEL_LABELS = {
    "toy": "toy bigram (lesson)",
    **{e.key: e.label for e in models.entries("lm")},
    "seq2seq": "seq2seq with attention (the prompt is the source)",
}

SPECS = (
    ParamSpec("width", "beam width", "int", BEAM_WIDTH, 1, 16, 1,
              help="hypotheses kept per step; 1 is greedy"),
    ParamSpec("alpha", "length norm alpha", "float", LENGTH_ALPHA, 0.0, 2.0, 0.1,
              help="finished hypotheses rank by logP / t^alpha (the chapter's 0.6); 0 is plain"),
    ParamSpec("max_len", "max length", "int", 10, 1, 40, 1,
              help="most tokens generated, </s> included (the lesson's code uses 6)"),
    ParamSpec("variant", "beam variant", "choice", "lesson", choices=("lesson", "keep_live"),
              help="lesson: a finished hypothesis uses up a slot; keep_live: width live ones kept"),
    ParamSpec("search", "exact search", "choice", "beam", choices=("beam", "exact"),
              help="exact: the most probable sentence, the beam's search error, both penalties"),
    ParamSpec("min_len", "min length", "int", 0, 0, 40, 1,
              help="</s> is blocked until this many tokens are generated (0: off)"),
    ParamSpec("no_repeat", "no-repeat n-gram", "int", 0, 0, 5, 1,
              help="block a token that would repeat an n-gram of this size (0: off)"),
    ParamSpec("rep_penalty", "repetition penalty", "float", 1.0, 1.0, 5.0, 0.1,
              help="log P of a token already seen is multiplied by this (1: off)"),
    ParamSpec("groups", "diverse groups", "int", 1, 1, 4, 1,
              help="diverse beam search: groups of width/groups (width must divide)"),
    ParamSpec("diversity", "diversity", "float", 0.5, 0.0, 5.0, 0.1,
              help="diverse beam: log P cost of a token an earlier group chose"),
    ParamSpec("samples", "samples", "int", 0, 0, 1000, 100,
              help="draw this many samples; the ranking panel shows their histogram (0: off)"),
    ParamSpec("temperature", "temperature", "float", 1.0, 0.1, 5.0, 0.1, recompute=False,
              help="divides the logits of the selected node's distribution (sampling)"),
    ParamSpec("top_k", "top-k", "int", 0, 0, 100, 1, recompute=False,
              help="keep the k most probable next tokens; 0 keeps all"),
    ParamSpec("top_p", "top-p", "float", 0.9, 0.05, 1.0, 0.05, recompute=False,
              help="keep the smallest set whose probability reaches p; 1 keeps all"),
    ParamSpec("model", "model", "choice", "toy", choices=MODELS,
              help="toy bigram, the shipped LSTM, seq2seq (prompt = source), or the file at path"),
    ParamSpec("path", "model file", "text", "", min_length=0, max_length=400, live=False,
              help="with model=file: a bigram table .json or a `seqviz train` .npz"),
    ParamSpec("prompt", "prompt", "text", "", min_length=0, max_length=200, live=False,
              help="words the model reads after <s> before decoding starts"),
    ParamSpec("node", "selected node", "int", 0, 0, 99999, 1, recompute=False,
              help="tree node whose next-token distribution is drawn (0 is the root)"),
    ParamSpec("pruned", "pruned shown", "int", 3, 0, 100, 1, recompute=False,
              help="pruned candidates listed under each node; the rest fold into one line"),
    ParamSpec("panel", "small-screen panel", "choice", "bars", choices=("bars", "ranking"),
              recompute=False,
              help="below 120x34 one lower panel fits: the next-word bars or the ranking (key v)"),
)  # fmt: skip


# The tree's default pace: each frame (a step's candidates scored, then kept/pruned decided)
# stays 2/3 s, so one beam step takes 1.3 s; the default toy tree plays in about 7 s.
SPEED = 1.5
FILTERED_KEPT = 256  # filtered next-word distributions a result keeps (distribution)


@dataclass(frozen=True)
class DecodingResult:
    """Everything the view draws: the beam history, the greedy run, and the final rankings.

    Frames: frame 0 shows only the root; search step s takes two frames, 2s-1 (candidates
    expanded and scored) and 2s (kept / finished / pruned decided).
    """

    values: Any
    error: str | None = None
    model_label: str = ""
    model: Any = field(default=None, repr=False, compare=False)
    prompt_ids: tuple[int, ...] = ()
    root: Any = None  # Node
    steps: tuple[Any, ...] = ()  # beam-search Step records, oldest first
    nodes: Any = field(default_factory=lambda: MappingProxyType({}))  # id -> Node, whole tree
    children: Any = field(default_factory=lambda: MappingProxyType({}))  # id -> child ids
    greedy_steps: tuple[Any, ...] = ()  # greedy Step records
    greedy: Any = None  # Node: where greedy ended
    final: Any = None  # DecodeResult of the beam search
    exact: Any = None  # with search=exact: the optimum (a Node), else None
    exact_proved: bool = False  # False when the node budget ran out first
    search_error: int | None = None  # the beam step that pruned the optimum's prefix
    samples: Any = None  # with samples > 0: a decoding.histogram.SampleHistogram
    _cache: dict = field(default_factory=dict, repr=False, compare=False)
    # (node, temperature, top_k, top_p) -> its Distribution: a frame asks again for the node
    # shown the frame before (about ten nodes in a hundred frames)
    _filtered: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_steps(self) -> int:
        return len(self.steps)

    @property
    def vocab(self) -> tuple[str, ...]:
        return self.model.vocab if self.model is not None else ()

    def words(self, node: Any) -> str:
        """A node's generated tokens as text, joined as the model's level requires."""
        from seqviz.decoding import join_tokens

        return join_tokens(self.model, [self.vocab[t] for t in node.tokens])

    def error_lines(self) -> list[str]:
        """With search=exact: is the beam's answer the search's fault or the model's? Computed
        from the optimum, the beam's winner and the step that pruned the optimum's prefix."""
        if self.exact is None or self.final is None:
            return []
        opt, won = self.exact, self.final.best
        if not opt.finished:
            return ["exact search: no sentence ends within the length limit"]
        words = self.words(opt) or "(empty)"
        out = [f"exact optimum: {words} p={math.exp(opt.logprob):.3f} score {opt.score:.3f}"]
        if not self.exact_proved:
            out.append(f"(node budget {EXACT_BUDGET:,} reached: best found, not proven optimal)")
        search_err = not won.finished or won.score < opt.score - 1e-9
        if search_err:
            where = ""
            if self.search_error is not None:
                lost = [self.vocab[t] for t in tuple(opt.tokens)[: self.search_error]]
                where = f"; step {self.search_error} pruned '{' '.join(lost)}'"
            out.append(
                f"search error: beam's winner scores {won.score:.3f} < {opt.score:.3f}{where}"
            )
        else:
            out.append("no search error: the beam found the optimum")
        model_err = opt.depth == 1  # the model's most probable sentence says nothing
        if model_err:
            out.append("model error: the most probable sentence is empty")
        out.append(f"search errors {int(search_err)} · model errors {int(model_err)}")
        return out

    def penalty_lines(self, hyps: Any) -> list[str]:
        """Which finished hypothesis each length penalty picks at the scene's alpha."""
        from seqviz.decoding.records import length_score

        done = [n for n in hyps if n.finished]
        alpha = self.values.alpha
        if not done or not alpha or self.exact is None:  # shown beside the exact search
            return []
        picks = []
        for name in ("plain", "google"):
            best = max(done, key=lambda n: length_score(n.logprob, n.depth, alpha, name))
            picks.append(self.words(best))
        same = "the same" if picks[0] == picks[1] else "different winners"
        return [
            f"/t^{alpha:g} picks '{picks[0]}'; Google ((5+t)/6)^{alpha:g} picks '{picks[1]}' "
            f"({same})"
        ]

    def prompt_text(self) -> str:
        from seqviz.decoding import BOS, join_tokens

        return join_tokens(self.model, [BOS, *(self.vocab[t] for t in self.prompt_ids)])

    def path_text(self, node: Any) -> str:
        """<s>, the prompt and the node's tokens as one text (words spaced, characters not)."""
        from seqviz.decoding import BOS, join_tokens

        ids = self.prompt_ids + node.tokens
        return join_tokens(self.model, [BOS, *(self.vocab[t] for t in ids)])

    def greedy_path(self) -> tuple[int, ...]:
        return self.greedy.tokens if self.greedy is not None else ()

    def on_greedy_path(self, node: Any) -> bool:
        g = self.greedy_path()
        return len(node.tokens) <= len(g) and g[: len(node.tokens)] == node.tokens

    def ended(self, node: Any) -> bool:
        """Whether the node's last token is </s>: finished, or pruned (nothing follows either)."""
        return bool(node.tokens) and node.tokens[-1] == self.model.eos_id

    def distribution(self, node_id: int, temperature: float, top_k: int, top_p: float) -> Any:
        """The selected node's next-token Distribution with the cut-offs (None if it ended in
        </s>, finished or pruned: a sentence has no next word after its end).

        top_k 0 and top_p 1 mean no cut. The model is run on the node's path once per node.
        """
        from seqviz.decoding import filter_distribution

        node = self.nodes.get(node_id)
        if node is None or self.ended(node):
            return None
        key = (node_id, temperature, top_k, top_p)
        kept = self._filtered.get(key)
        if kept is not None:
            return kept
        lp = self._cache.get(node_id)
        if lp is None:
            state = self.model.start(self.prompt_ids + node.tokens)
            lp = self.model.logprobs([state])[0]
            self._cache[node_id] = lp
        if len(self._filtered) >= FILTERED_KEPT:  # the view's cut-offs walked far
            self._filtered.clear()
        self._filtered[key] = kept = filter_distribution(
            lp,
            self.vocab,
            temperature,
            top_k if top_k > 0 else None,
            top_p if top_p < 1.0 else None,
        )
        return kept


def winners(hyps: Any) -> tuple[Any, Any] | None:
    """(best finished hypothesis by plain log P, best by logP / t^alpha), or None if none has
    finished. Ties keep the earlier hypothesis, as the ranking does."""
    done = [n for n in hyps if n.finished]
    if not done:
        return None
    by_logp = sorted(done, key=lambda n: -n.logprob)[0]
    by_score = sorted(done, key=lambda n: -n.score)[0]
    return by_logp, by_score


def shown(token: str) -> str:
    """A token as drawn in the tree and the bars: whitespace characters made visible."""
    return {" ": "␣", "\n": "⏎", "\t": "⇥", "": "∅"}.get(token, token)


def frame_step(frame: int) -> tuple[int, bool]:
    """(search step shown, whether its kept/pruned decision is shown) for an animation frame."""
    if frame <= 0:
        return 0, True
    return (frame + 1) // 2, frame % 2 == 0


@lru_cache(maxsize=4)
def _load_file(path: str, mtime: float) -> Any:
    from seqviz.decoding import load_bigram

    del mtime  # part of the cache key only: a rewritten file is read again
    if path.lower().endswith(".json"):
        return load_bigram(path)
    return models.load_file(path, kind="lm")


@lru_cache(maxsize=2)
def _shipped(name: str) -> Any:
    if name == "seq2seq":
        from seqviz.models.seq2seq_lm import ConditionalLM

        return ConditionalLM(models.load("attention", kind="seq2seq"), name="attention")
    return models.load(models.get(name).name, kind="lm")


def load_model(model: str, path: str) -> tuple[Any, str]:
    """(language model, label) for the model choice; ValueError in one sentence if unusable."""
    from seqviz.decoding import toy_model

    if model == "toy":
        return toy_model(), MODEL_LABELS["toy"]
    if model in MODEL_LABELS:
        return _shipped(model), MODEL_LABELS[model]
    path = path.strip()
    if not path:
        raise ValueError("model=file needs a path: a bigram table .json or a `seqviz train` .npz.")
    if not os.path.isfile(path):
        raise ValueError(f"no model file {path!r}: give a bigram .json or a `seqviz train` .npz.")
    lm = _load_file(path, os.path.getmtime(path))
    kind = "bigram" if path.lower().endswith(".json") else f"{lm.params.cell} LM"
    return lm, f"{os.path.basename(path)} ({kind})"


def compute(v: Any) -> DecodingResult:
    """Run beam search and greedy to the end, keeping every step for the animation.

    User mistakes (a bad model file, an unknown prompt word) come back as `error`, drawn in the
    scene as one line, instead of raising.
    """
    from seqviz.decoding import BeamSearch, Greedy
    from seqviz.decoding.diverse import DiverseBeamSearch
    from seqviz.decoding.processors import for_model

    try:
        model, label = load_model(v.model, v.path)
        knobs = for_model(
            model,
            min_len=v.min_len,
            no_repeat_ngram=v.no_repeat,
            repetition_penalty=v.rep_penalty,
        )
        beam: Any
        if v.groups > 1:
            beam = DiverseBeamSearch(
                model,
                v.prompt,
                width=v.width,
                groups=v.groups,
                diversity=v.diversity,
                max_len=v.max_len,
                alpha=v.alpha,
                processors=knobs,
            )
        else:
            beam = BeamSearch(
                model,
                v.prompt,
                width=v.width,
                max_len=v.max_len,
                alpha=v.alpha,
                keep_live=v.variant == "keep_live",
                processors=knobs,
            )
        final = beam.run()
        greedy = Greedy(model, v.prompt, max_len=v.max_len, alpha=v.alpha, processors=knobs)
        greedy_best = greedy.run().best
        exact = _exact(model, v, beam.history) if getattr(v, "search", "beam") == "exact" else {}
        if v.samples:
            exact["samples"] = _histogram(model, v, final.best)
    except ValueError as exc:
        return DecodingResult(values=v, error=str(exc))
    nodes = beam.nodes()
    kids: dict[int, list[int]] = {}
    for node in sorted(nodes.values(), key=lambda n: n.id):
        if node.parent >= 0:
            kids.setdefault(node.parent, []).append(node.id)
    return DecodingResult(
        values=v,
        model_label=label,
        model=model,
        prompt_ids=beam.prompt_ids,
        root=beam.root,
        steps=beam.history,
        nodes=MappingProxyType(nodes),
        children=MappingProxyType({k: tuple(c) for k, c in kids.items()}),
        greedy_steps=greedy.history,
        greedy=greedy_best,
        final=final,
        **exact,
    )


EXACT_BUDGET = 20_000


def _histogram(model: Any, v: Any, beam_best: Any) -> Any:
    """`v.samples` samples with the scene's temperature, top-k and top-p, counted."""
    from seqviz.decoding import Sampler
    from seqviz.decoding.histogram import histogram

    sampled = Sampler(
        model,
        v.prompt,
        temperature=v.temperature,
        top_k=v.top_k or None,
        top_p=v.top_p if v.top_p < 1.0 else None,
        seed=0,
        samples=v.samples,
        max_len=v.max_len,
    ).run()
    return histogram(sampled, beam_best)


def histogram_lines(r: DecodingResult, width: int) -> list[str]:
    """The sample histogram as text rows: a summary, then sentence, count, frequency against
    model probability and a bar, most frequent first (computed from the counts shown)."""
    h = r.samples
    if h is None:
        return []
    d2 = h.distinct[2]
    v = r.values  # the cut-offs the samples were drawn with (set when samples last changed)
    head = f"{h.samples:,} samples, T={v.temperature:g} top-k {v.top_k or 'off'} top-p {v.top_p:g}"
    counts = (
        f"{len(h.sentences):,} distinct · {h.repeats:.0%} repeats · distinct-2 "
        f"{'nan' if math.isnan(d2) else f'{d2:.2f}'}"
    )
    beam = (
        f"beam's winner drawn {h.beam_count}x: '{r.words(h.beam)}' p={math.exp(h.beam.logprob):.3g}"
    )
    out = [head, counts, beam, f"{'n':>4} {'freq':>5} {'P':>6}  sentence"]
    top = h.sentences[0].count if h.sentences else 1
    for row in h.sentences:
        bar = "█" * max(1, round(6 * row.count / top))
        words = r.words(SimpleNamespace(tokens=row.tokens))
        out.append(f"{row.count:>4} {row.frequency:>5.3f} {row.prob:>6.3g} {bar:<6} {words}")
    return [line[:width] for line in out]


def _exact(model: Any, v: Any, steps: Any) -> dict[str, Any]:
    """The exact optimum under the scene's alpha and where the beam lost it."""
    from seqviz.decoding.exact import ExactSearch, first_search_error

    ex = ExactSearch(model, v.prompt, max_len=v.max_len, alpha=v.alpha, node_budget=EXACT_BUDGET)
    best = ex.run().best
    return {
        "exact": best,
        "exact_proved": ex.proved,
        "search_error": first_search_error(steps, best) if best.finished else None,
    }


@dataclass(frozen=True)
class TreeRow:
    """One line of the drawn tree: a node, or a fold line standing for hidden pruned siblings.

    `guides[i]` is True when the ancestor at depth i+1 has siblings below it (draw a "│").
    `status` is the node's status as of the frame ("pending" while candidates are only scored);
    `rank` is the candidate's place in that step's ranking, for the scored phase.
    """

    node: Any  # Node, or None for a fold line
    depth: int
    guides: tuple[bool, ...]
    last: bool  # the last line among its siblings
    status: str
    live: bool = False  # in the beam the next step extends
    rank: int | None = None
    folded: int = 0  # fold line: how many pruned siblings it hides
    folded_max: float = 0.0  # fold line: the largest token probability among them


def tree_rows(
    result: DecodingResult, frame: int, pruned_shown: int, selected: int | None = None
) -> list[TreeRow]:
    """The tree at `frame`, depth first, best candidates first under each node.

    Pruned children beyond `pruned_shown` per node fold into one line, except the selected node.
    Candidates a node will keep are a prefix of its children by rank, so the scored and the decided
    frames of a step show the same lines.
    """
    if result.root is None:
        return []
    s, decided = frame_step(min(frame, 2 * result.n_steps))
    step = result.steps[s - 1] if s else None
    if step is None:
        live = {result.root.id}
    else:
        live = {n.id for n in (step.beam if decided else step.expanded)}
    first_id = step.candidates[0].id if step is not None and step.candidates else 0
    keep_path = set()
    if selected is not None and selected in result.nodes:
        node = result.nodes[selected]
        while node.parent >= 0:
            keep_path.add(node.id)
            node = result.nodes[node.parent]
    # the exact optimum's prefixes are never folded away: the one the beam pruned is the search
    # error the tree marks
    opt = tuple(result.exact.tokens) if result.exact is not None else ()
    rows: list[TreeRow] = []

    def status_of(node: Any) -> tuple[str, int | None]:
        if node.depth == s and not decided:
            return "pending", node.id - first_id + 1
        return node.status, None

    def visit(node: Any, guides: tuple[bool, ...], last: bool) -> None:
        status, rank = status_of(node)
        rows.append(TreeRow(node, node.depth, guides, last, status, node.id in live, rank))
        kids = result.children.get(node.id, ())
        if not kids or result.nodes[kids[0]].depth > s:
            return
        # Children are in rank order, so the first hidden one is the most probable of them.
        show = []
        hidden = []
        n_pruned = 0
        for kid_id in kids:
            kid = result.nodes[kid_id]
            on_opt = bool(opt) and kid.depth <= len(opt) and opt[: kid.depth] == kid.tokens
            if kid.status != "pruned" or kid_id in keep_path or on_opt:
                show.append(kid)
            elif n_pruned < pruned_shown:
                show.append(kid)
                n_pruned += 1
            else:
                hidden.append(kid)
        sub = guides + (not last,) if node.parent >= 0 else guides
        for i, kid in enumerate(show):
            visit(kid, sub, i == len(show) - 1 and not hidden)
        if hidden:
            status = "pending" if hidden[0].depth == s and not decided else "pruned"
            rows.append(
                TreeRow(
                    None,
                    node.depth + 1,
                    sub,
                    True,
                    status,
                    folded=len(hidden),
                    folded_max=hidden[0].token_prob,
                )  # fmt: skip
            )

    visit(result.root, (), True)
    return rows


def frames(result: DecodingResult) -> int:
    """Two frames per search step (scored, then decided); an error has none."""
    return 2 * result.n_steps


def traces(result: DecodingResult) -> dict[str, Any]:
    """The recurrent LM reading <s>, the prompt and the best hypothesis (the toy bigram model
    has no recurrent state, so there is nothing to export)."""
    if result is None or result.error:
        raise ValueError("the decoding scene has no result to export yet")
    model = result.model
    if model is None or not hasattr(model, "trace"):
        raise ValueError(
            "the toy bigram model has no recurrent state to export; switch model to lstm "
            "(or a trained .npz) first"
        )
    from seqviz.decoding import join_tokens

    words = [result.vocab[t] for t in result.final.best.tokens]
    if words and words[-1] == "</s>":
        words = words[:-1]  # </s> is predicted, never read
    ids = [result.vocab[t] for t in result.prompt_ids] + words
    return {"lm": model.trace(join_tokens(model, ids))}


def _parse_node(text: str) -> str:
    if not text:
        raise ValueError(
            "select in the decoding scene needs a node's words, as in 'select a small', "
            "or <s> for the root"
        )
    return " ".join(text.split())


def _select_node(result: DecodingResult, want: str) -> dict[str, int]:
    """The node whose words read `want` (<s>: the root, what follows the prompt)."""
    if want == "<s>":
        return {"node": 0}
    for node_id, node in sorted((getattr(result, "nodes", {}) or {}).items()):
        if " ".join(result.words(node).split()) == want:
            return {"node": node_id}
    raise LookupError(f"no tree node reads {want!r}")


SCENE = Scene(
    name="decoding",
    title=title_of("decoding"),
    summary=(
        "Beam search grows its tree one step at a time beside greedy decoding; the selected "
        "node's next-token distribution shows the temperature, top-k and top-p cut-offs. "
        "Keys in the tree (tab to it, or click): up/down or k/j move between nodes, "
        "p parent, b best hypothesis, g greedy's end; v swaps the bars and the ranking on "
        "small screens."
    ),
    specs=SPECS,
    compute=compute,
    frames=frames,
    view="seqviz.ui.views.decoding:DecodingView",
    traces=traces,
    select=SelectHook(_parse_node, _select_node, "a node's words"),
    speed=SPEED,
)
