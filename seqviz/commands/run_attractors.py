"""`seqviz run agreement --by-attractors`: accuracy per attractor count, plain and nested."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    import json
    import math

    from seqviz.inside import AGREEMENT_MODELS
    from seqviz.inside.attractors import shipped_curve

    names = args.models or AGREEMENT_MODELS
    curves = {kind: [shipped_curve(m, args.sentences, kind == "nested") for m in names]
              for kind in ("plain", "nested")}  # fmt: skip
    if args.json:
        print(json.dumps({k: [c.to_json() for c in v] for k, v in curves.items()}, indent=2))
        return 0
    print(f"{args.sentences} held-out sentences per attractor count (none in the training "
          "corpus); accuracy: the right verb more probable than the other number.")  # fmt: skip
    print("plain: the subject, then max(count, 2) prepositional phrases, `count` of whose nouns "
          "have the other number;")  # fmt: skip
    print("nested: an object relative clause whose subject (and any phrase in it) has the "
          "other number, then phrases.")  # fmt: skip
    for kind, rows in curves.items():
        counts = list(rows[0].accuracy)
        print(f"\n{kind:<15} " + " ".join(f"{k} attr.".rjust(9) for k in counts))
        for c in rows:
            cells = " ".join(f"{c.accuracy[k]:>9.1%}" for k in counts)
            print(f"{c.model:<15} {cells}")
        perfect = all(math.isclose(v, 1.0) for c in rows for v in c.accuracy.values())
        if perfect:
            print("every model is perfect at every count on this set.")
    return 0
