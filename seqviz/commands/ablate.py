"""`seqviz ablate`: agreement accuracy of an LM with chosen units forced, beside random ones."""

from __future__ import annotations

import argparse

from seqviz.limits import float_option, int_option


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "ablate",
        help="agreement accuracy with chosen units of an LM ablated (or clamped), beside random "
        "units",
        description="Force units of a trained word-level LM (c or h set to 0, or to --clamp) "
        "from a step on, and measure subject-verb agreement on held-out sentences of the "
        "agreement grammar: intact, with those units forced, and with as many random units of "
        "the same states forced (mean and spread over --draws draws); split by no attractor / "
        "one or more attractors (nouns of the other number between subject and verb) and short "
        "(at most 4 words) / long subject-verb distance.",
    )
    p.add_argument(
        "--model",
        default="agreement",
        help="a shipped LM name or a `seqviz train` .npz (default agreement)",
    )
    p.add_argument(
        "--units",
        required=True,
        help="comma-separated units: c34 (an LSTM's cell state) or h17, e.g. c34,h17",
    )
    p.add_argument(
        "--from-step",
        type=int_option(0, 1000),
        default=0,
        help="the first input step forced (0 reads <s>; default 0)",
    )
    p.add_argument(
        "--clamp",
        type=float_option(-100.0, 100.0),
        default=0.0,
        metavar="VALUE",
        help="force the units to VALUE instead of 0",
    )
    p.add_argument(
        "--draws",
        type=int_option(10, 1000),
        default=10,
        help="random unit sets drawn (at least 10; default 10)",
    )
    p.add_argument(
        "--sentences",
        type=int_option(10, 5000),
        default=500,
        help="held-out sentences (default 500)",
    )
    p.add_argument(
        "--seed",
        type=int_option(0, 2**31 - 1),
        default=0,
        help="seed of the random unit draws (default 0)",
    )
    p.add_argument("--json", action="store_true", help="print the measurement as JSON")
    p.set_defaults(func=run)  # fmt: skip


def run(args: argparse.Namespace) -> int:
    import json

    from seqviz import models
    from seqviz.inside.ablation import CONDITIONS, SHORT_MAX, ablation, ablation_set, check_lm
    from seqviz.inside.intervene import parse_units

    lm = models.load(args.model, kind="lm")
    check_lm(lm, args.model)
    units = parse_units(args.units, lm.params)
    sents = ablation_set(args.sentences)
    a = ablation(lm, units, value=args.clamp, from_step=args.from_step, draws=args.draws,
                 seed=args.seed, sentences=sents, name=args.model)  # fmt: skip
    if args.json:
        print(json.dumps(a.to_json(), indent=2))
        return 0
    forced = "ablated" if args.clamp == 0 else f"clamped to {args.clamp:g}"
    since = f" from step {args.from_step}" if args.from_step else ""
    print(f"{a.model} ({a.cell}, hidden {lm.params.hidden_size}): {args.units} {forced}{since};")
    print(f"agreement accuracy on {a.counts['all']} held-out sentences; random: {args.draws} "
          f"draws of {len(units)} unit(s), mean ± sd [min, max]; short: verb at most "
          f"{SHORT_MAX} words after the subject")  # fmt: skip
    print(f"{'condition':<14} {'n':>4} {'intact':>8} {'forced':>8}  random")
    for c in CONDITIONS:
        r = a.random[c]
        print(f"{c:<14} {a.counts[c]:>4} {a.intact[c]:>8.1%} {a.ablated[c]:>8.1%}  "
              f"{r.mean():.1%} ± {r.std():.1%} [{r.min():.1%}, {r.max():.1%}]")  # fmt: skip
    return 0
