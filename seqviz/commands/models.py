"""`seqviz models`: list the shipped and user models; add and remove the user's own."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "models",
        help="list models; add or remove your own (seqviz models add NAME FILE)",
        description="Shipped models and your own, which the scenes offer beside the shipped ones "
        "and every command takes by name. `add` keeps a copy of a model file (from `seqviz "
        "train`, or a PyTorch LM with --vocab) in the user data folder ($XDG_DATA_HOME/seqviz/"
        "models on Linux).",
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    add = sub.add_parser("add", help="keep a copy of a model under a name")
    add.add_argument("name", metavar="NAME")
    add.add_argument("file", metavar="FILE", help="a seqviz model (.npz) or a PyTorch LM (.pt)")
    add.add_argument("--vocab", metavar="FILE", help="the vocabulary of a PyTorch LM")
    add.add_argument("--replace", action="store_true", help="replace a user model of that name")
    sub.add_parser("list", help="list shipped and user models")
    rm = sub.add_parser("remove", help="delete a user model")
    rm.add_argument("name", metavar="NAME")
    p.set_defaults(func=run, action=None)


def run(args: argparse.Namespace) -> int:
    from seqviz.models import user

    if args.action == "add":
        model, line = user.add(args.name, args.file, args.vocab, replace=args.replace)
        print(line)
        print(f"added {model.name} ({model.kind}) as {model.path}")
        return 0
    if args.action == "remove":
        path = user.remove(args.name)
        print(f"removed {args.name} ({path})")
        return 0
    from seqviz import models

    print("shipped:")
    for e in models.entries(user=False):
        print(f"  {e.name:14} {e.kind:8} {e.label}")
    mine = user.listing()
    print(f"user ({user.folder()}):")
    for m in mine:
        print(f"  {m.name:14} {m.kind:8} {m.label}")
    if not mine:
        print("  none yet; add one with `seqviz models add NAME FILE`")
    return 0
