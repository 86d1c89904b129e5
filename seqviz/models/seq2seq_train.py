"""Training a seq2seq model on the translation task with seqviz's one trainer (`fit`)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields

import numpy as np

from seqviz.models.seq2seq import BOS, EOS, Seq2Seq, Seq2SeqConfig
from seqviz.tasks import translation as task

Batch = list[tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Seq2SeqTrainConfig:
    """The model to train and the data settings of one run (the loop's own settings are in
    FitConfig). Its defaults are the shipped models' sizes, not Seq2SeqConfig's."""

    model: Seq2SeqConfig = Seq2SeqConfig(cell="gru", hidden=48, emb=24)
    teacher_forcing: float = 1.0  # final ratio; scheduled sampling decays 1 -> this over epochs
    pairs: int = 4000  # fresh training pairs per epoch
    batch: int = 16
    min_len: int = task.MIN_LEN
    max_len: int = 32
    seed: int = 0

    def __post_init__(self) -> None:
        tf = self.teacher_forcing
        if not (isinstance(tf, (int, float)) and math.isfinite(tf) and 0.0 <= tf <= 1.0):
            raise ValueError(f"teacher-forcing must be a ratio from 0 to 1, got {tf}.")
        for name in ("pairs", "batch"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a whole number >= 1, got {v!r}.")
        task.check_lengths(self.min_len, self.max_len)

    def record(self) -> dict:
        """The settings as one flat dict (the `train` entry a saved model's meta keeps)."""
        rest = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "model"}
        return {**asdict(self.model), **rest}


def new_model(config: Seq2SeqTrainConfig, name: str = "seq2seq") -> Seq2Seq:
    """An untrained model over the task's vocabularies, remembering how it was trained."""
    meta = {"task": "translation", "max_source_len": task.MAX_LEN, "train": config.record()}
    return Seq2Seq.random(
        config.model, task.source_vocab(), (BOS, EOS, *task.target_vocab()),
        seed=config.seed, name=name, meta=meta,
    )  # fmt: skip


def ratio_at(config: Seq2SeqTrainConfig, epoch: int, epochs: int) -> float:
    """Teacher-forcing ratio of an epoch (1-based): 1 in the first, falling linearly to the
    configured ratio in the last (Bengio et al.'s scheduled sampling, linear decay)."""
    if epochs <= 1:
        return config.teacher_forcing
    return 1.0 - (1.0 - config.teacher_forcing) * (epoch - 1) / (epochs - 1)


def encode_pair(model: Seq2Seq, source: str, target: str) -> tuple[np.ndarray, np.ndarray]:
    src = np.array([model.src_index[w] for w in source.split()], dtype=np.intp)
    tgt = np.array([model.tgt_index[w] for w in target.split()], dtype=np.intp)
    return src, tgt


def make_batches(model: Seq2Seq, config: Seq2SeqTrainConfig, epochs: int):  # type: ignore[no-untyped-def]
    """The `batches(epoch, rng)` callable for `fit`: fresh training-split pairs every epoch,
    drawn from the rng `fit` hands over (so a run is deterministic for its seed)."""

    def batches(epoch: int, rng: np.random.Generator) -> Iterator[Batch]:
        model.teacher_forcing = ratio_at(config, epoch, epochs)
        model.rng = np.random.default_rng([config.seed, epoch])
        it = task.iter_pairs(rng, config.min_len, config.max_len, "train")
        for start in range(0, config.pairs, config.batch):
            n = min(config.batch, config.pairs - start)
            yield [encode_pair(model, *next(it)) for _ in range(n)]

    return batches
