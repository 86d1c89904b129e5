"""Held-out quality of agreement LMs: python benchmarks/eval_agreement.py [MODEL ...] [--json].

Fresh grammar sentences (a seed the training corpus did not use): mean cross-entropy per token
(nats) and subject-verb agreement accuracy where distracting nouns stand between subject and
verb (P(plural verb) > P(singular verb) exactly when the subject is plural).
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from seqviz import models
from seqviz.core import forward
from seqviz.models.lm import log_softmax
from seqviz.tasks.grammar import corpus, subject_is_plural

VERBS = ("is", "are", "was", "were")


def evaluate(lm, n_sentences: int = 1000, seed: int = 777) -> dict:
    loss, tokens, right, total = 0.0, 0, 0, 0
    for text in corpus(n_sentences, seed):
        words = text.split()
        ids = [lm.bos_id, *lm.encode(text), lm.eos_id]
        h, _ = forward(lm.params, lm.embedding[ids[:-1]])  # (T, d)
        logits = h @ lm.out_weight.T + lm.out_bias  # (T, V): predictions after <s> w_1..w_n
        logits[:, lm.bos_id] = -np.inf
        logp = log_softmax(logits)
        loss -= float(logp[np.arange(len(ids) - 1), ids[1:]].sum())
        tokens += len(ids) - 1
        verb_at = next(i for i, w in enumerate(words) if w in VERBS)
        if verb_at >= 4:  # at least one noun between subject and verb
            p = np.exp(logp[verb_at])  # the distribution after reading words[:verb_at]
            idx = lm.index
            plural = p[idx["are"]] + p[idx["were"]]
            singular = p[idx["is"]] + p[idx["was"]]
            right += bool((plural > singular) == subject_is_plural(words))
            total += 1
    return {
        "sentences": n_sentences,
        "seed": seed,
        "loss_nats_per_token": loss / tokens,
        "agreement_accuracy": right / total,
        "agreement_cases": total,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=["agreement"])
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = {m: evaluate(models.load(m, kind="lm"), args.sentences, args.seed) for m in args.models}
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for m, r in rows.items():
            print(
                f"{m}: loss {r['loss_nats_per_token']:.4f} nats/token, agreement "
                f"{r['agreement_accuracy']:.1%} of {r['agreement_cases']} sentences with "
                f"distractors ({r['sentences']} held-out sentences, seed {r['seed']})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
