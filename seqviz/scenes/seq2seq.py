"""Scene "Sequence to sequence": encoder states, the one context vector, attention row by row,
teacher forcing against free running (with a forced error), and accuracy by source length."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from seqviz import models
from seqviz.scenes import title_of
from seqviz.scenes.base import ParamSpec, Scene

MODELS = tuple(e.name for e in models.entries("seq2seq"))
DEFAULT_SOURCE = "the small cats near the old door with the keys chased the dog behind the box"

SPECS = (
    ParamSpec("source", "source", "text", DEFAULT_SOURCE, min_length=0, max_length=400,
              help="the sentence to translate (words of the task; checked as you type)"),
    ParamSpec("model", "model", "choice", MODELS[0] if MODELS else "attention",
              choices=MODELS or ("attention",),
              help="attention: Luong attention over all encoder states; bottleneck: only c = h_T"),
    ParamSpec("decoding", "decoding", "choice", "greedy", choices=("greedy", "beam"),
              help="greedy feeds back the most probable word; beam keeps `width` hypotheses"),
    ParamSpec("width", "beam width", "int", 3, 1, 8, 1, help="hypotheses kept (decoding=beam)"),
    ParamSpec("alpha", "length norm alpha", "float", 0.0, 0.0, 2.0, 0.1,
              help="beam: finished hypotheses rank by logP / t^alpha"),
    ParamSpec("plot", "plot", "choice", "length", choices=("length", "beam-curse"),
              help="length: exact match by source length; beam-curse: search errors by width"),
    ParamSpec("force", "forced error at step", "int", 0, 0, 40, 1,
              help="free running: at this step emit the best WRONG word (0 = no forced error)"),
)  # fmt: skip


@dataclass(frozen=True)
class Decode:
    """One decoder run over the source: tokens fed, tokens out, per-step loss of the reference."""

    inputs: tuple[str, ...]  # what the decoder read at each step (<s> first)
    outputs: tuple[str, ...]  # its most probable word at each step (</s> included)
    loss: np.ndarray  # (T,) -log p(reference_t | what was fed); nan past the reference's end


@dataclass(frozen=True)
class Seq2SeqResult:
    """Everything the view draws; frames 1..S reveal encoder words, S+1..S+T decoder steps."""

    values: Any
    error: str | None = None
    label: str = ""
    attention_model: bool = True
    source: tuple[str, ...] = ()  # in the order the encoder reads it (backwards if reversed)
    reverse: bool = False  # the encoder reads the source backwards
    enc_h: np.ndarray | None = None  # (S, d)
    context: np.ndarray | None = None  # (d,) = enc_h[-1]
    output: tuple[str, ...] = ()  # the decoded translation (</s> included when reached)
    logprob: float = 0.0
    attn: np.ndarray | None = None  # (T, S) attention rows of the decoded output
    reference: tuple[str, ...] | None = None  # the task's own translation, if the grammar has it
    forced: Decode | None = None  # teacher forcing (reference fed)
    free: Decode | None = None  # free running (own outputs fed), with the forced error if set
    force_step: int = 0  # the step whose output was forced wrong (0: none)
    curve: Any = field(default=None, repr=False, compare=False)  # CurveRows of the two models
    curse: Any = field(default=None, repr=False, compare=False)  # saved beam-curse rows

    @property
    def S(self) -> int:
        return len(self.source)

    @property
    def T(self) -> int:
        return len(self.output)


@lru_cache(maxsize=4)
def _model(name: str) -> Any:
    from seqviz.models.translate import load_seq2seq

    return load_seq2seq(name)


def length_curve() -> Any:
    """The `seqviz run bottleneck` table as saved with the shipped models (`--save`); the test
    of the shipped models recomputes it and checks the saved one."""
    from seqviz.models.translate import load_curve

    return load_curve()


def _free_run(model: Any, src: np.ndarray, ref: list[int] | None, force: int,
              max_len: int) -> tuple[list[int], np.ndarray]:  # fmt: skip
    """Greedy decoding from the model's own outputs; at step `force` the best wrong word is fed
    on instead. Returns (outputs, loss of the reference at each step)."""
    H = model.encode(src)
    state = model.start_state(H)
    dec = model.cell("dec")
    token, out, loss = 0, [], []
    for t in range(1, max_len + 1):
        state, logp, _ = model.decode_step(H, state, token, dec)
        want = ref[t - 1] if ref is not None and t <= len(ref) else None
        loss.append(-logp[want] if want is not None else np.nan)
        token = int(np.argmax(logp))
        if t == force:
            order = np.argsort(-logp)
            wrong = [int(i) for i in order if i != (want if want is not None else token)]
            token = wrong[0]
        out.append(token)
        if token == 1:
            break
    return out, np.array(loss)


def compute(v: Any) -> Seq2SeqResult:
    """Encode, decode (greedy or beam), teacher-force the reference, free-run with the forced
    error; a bad source comes back as `error` (one sentence) instead of raising."""
    from seqviz.models.translate import source_ids, translate
    from seqviz.tasks.translation import reference

    try:
        model = _model(v.model)
        src = source_ids(model, v.source)
        tr = translate(model, v.source, 60, v.decoding, v.width, v.alpha)
    except ValueError as exc:
        return Seq2SeqResult(values=v, error=str(exc), curve=length_curve())
    label = models.get(v.model).label
    H = model.encode(src)
    out = list(tr.tokens) + (["</s>"] if tr.finished else [])
    ref_text = reference(" ".join(tr.source))
    forced = free = None
    ref_words = None
    if ref_text is not None:
        ref_words = (*ref_text.split(), "</s>")
        ref = [model.tgt_index[w] for w in ref_words]
        f = model.run(src, np.array([0, *ref[:-1]], dtype=np.intp))
        rows = np.arange(len(ref))
        forced = Decode(
            ("<s>", *ref_words[:-1]), tuple(model.tgt_vocab[int(i)] for i in f.logp.argmax(1)),
            -f.logp[rows, ref],
        )  # fmt: skip
        own, loss = _free_run(model, src, ref, v.force, len(ref) + 8)
        words = tuple(model.tgt_vocab[i] for i in own)
        free = Decode(("<s>", *words[:-1]), words, loss)
    return Seq2SeqResult(
        values=v, label=label, attention_model=model.config.attention,
        source=tuple(model.src_vocab[i] for i in model.reading_order(src)),
        reverse=model.config.reverse,
        enc_h=H, context=H[-1].copy(), output=tuple(out), logprob=tr.logprob, attn=tr.attention,
        reference=ref_words, forced=forced, free=free, force_step=v.force,
        curve=length_curve(), curse=_curse(v),
    )  # fmt: skip


def _curse(v: Any) -> Any:
    """The saved `seqviz run beam-curse` rows when the plot shows them."""
    from seqviz.models.curse import load_rows

    return load_rows() if getattr(v, "plot", "length") == "beam-curse" else None


def frames(result: Seq2SeqResult) -> int:
    """One frame per encoder word, then one per decoder step."""
    return 0 if result.error else result.S + result.T


SCENE = Scene(
    name="seq2seq",
    title=title_of("seq2seq"),
    summary=(
        "An encoder reads the source word by word; without attention the decoder gets only its "
        "last state c = h_T, with attention it looks back at every encoder state (one row of "
        "the matrix per output word). Teacher forcing feeds the reference, free running feeds "
        "the model's own words: force an error at step k to see it carried on."
    ),
    specs=SPECS,
    compute=compute,
    frames=frames,
    view="seqviz.ui.views.seq2seq:Seq2SeqView",
)
