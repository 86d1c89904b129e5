"""`seqviz run agreement`: the shipped LMs' subject-verb agreement on held-out sentences."""

from __future__ import annotations

import argparse

from seqviz.limits import int_option

HELP = "agreement accuracy and the best number unit of the shipped LSTM, GRU and RNN"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sentences", type=int_option(10, 5000), default=500,
                        help="held-out sentences, each with a distractor of the other number "
                             "(default 500)")  # fmt: skip
    parser.add_argument("--models", nargs="+", default=None, metavar="MODEL",
                        help="shipped model names or .npz files (default: agreement, "
                             "agreement-gru, agreement-rnn)")  # fmt: skip
    parser.add_argument("--by-attractors", action="store_true",
                        help="accuracy per number of attractors (0-3 nouns of the other number "
                             "between subject and verb; --sentences per count), on plain and "
                             "on nested sentences")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    import json

    from seqviz.inside.study import AGREEMENT_MODELS, shipped_study

    if args.by_attractors:
        from seqviz.commands.run_attractors import run as by_attractors

        return by_attractors(args)
    studies = [shipped_study(m, args.sentences) for m in (args.models or AGREEMENT_MODELS)]
    if args.json:
        print(json.dumps([s.to_json() for s in studies], indent=2))
        return 0
    print(f"{args.sentences} held-out sentences (grammar seed 1, none in the training corpus),")
    print("each with a noun of the other number between the subject and its verb.")
    print("accuracy: the right verb more probable than the same tense's other number;")
    print("margin: mean log P(right) - log P(wrong); unit: the state most correlated with the")
    print("subject's number (+1 plural, -1 singular) from the subject to the verb.")
    print(f"{'model':<15} {'cell':<5} {'accuracy':>9} {'margin':>7}  {'number unit':<12} {'r':>7}")
    for s in studies:
        b = s.best("number")
        print(f"{s.name:<15} {s.cell:<5} {s.accuracy:>9.1%} {s.margin:>7.2f}  "
              f"{b.label():<12} {b.r:>+7.3f}")  # fmt: skip
    return 0
