"""`seqviz export`: write a full trace (.npz) of a random model, or of saved weights on an input."""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

from seqviz.commands import UsageError
from seqviz.commands.options import add, add_seed
from seqviz.limits import (
    MAX_HIDDEN,
    MAX_INPUT,
    MAX_LAYERS,
    MAX_STEPS,
    float_option,
    int_option,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "export",
        help="write a trace (states, gates, gradients) to an .npz file",
        description="Trace one sequence and write every state, gate and gradient to an .npz. "
        "Either a random model on random input (--cell ...), or saved weights (--weights, .npz "
        "or a torch state_dict .pt) on an input array (--input x.npy, shape (T, input_size)).",
    )
    p.add_argument("--out", required=True, metavar="TRACE.npz", help="file to write")
    p.add_argument("--cell", choices=("rnn", "lstm", "gru"), help="cell of the random model")
    add(p, "--input-size", int_option(1, MAX_INPUT), 8, "input size", most=True)
    add(p, "--hidden", int_option(1, MAX_HIDDEN), 32, "hidden size", most=True)
    add(p, "--steps", int_option(1, MAX_STEPS), 50, "sequence length", most=True)
    add_seed(p)
    p.add_argument(
        "--nonlinearity", choices=("tanh", "relu", "linear"), default=None,
        help="rnn nonlinearity (default tanh; also needed for an nn.RNN .pt, which lacks it)",
    )  # fmt: skip
    p.add_argument(
        "--variant", choices=("textbook", "pytorch"), default=None,
        help="gru equations (default textbook for --cell, pytorch for a .pt)",
    )  # fmt: skip
    p.add_argument("--forget-bias", type=float_option(-1e6, 1e6), default=1.0,
                   help="lstm forget bias (default 1)")  # fmt: skip
    p.add_argument("--spectral-radius", type=float_option(0, 1e6), default=None,
                   help="rescale W_hh blocks")  # fmt: skip
    p.add_argument("--layers", type=int_option(1, MAX_LAYERS), default=1,
                   help=f"stacked layers of the random model (at most {MAX_LAYERS})")  # fmt: skip
    p.add_argument(
        "--bidirectional", action="store_true", help="a bidirectional random model (h is (T, 2d))"
    )
    p.add_argument(
        "--weights", metavar="MODEL",
        help="saved weights: .npz (Params.save/StackParams.save) or a .pt of any nn.RNN/LSTM/GRU",
    )  # fmt: skip
    p.add_argument("--input", metavar="X.npy", help="input sequence for --weights, (T, input_size)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from seqviz.core import Params, StackParams, trace, trace_stack
    from seqviz.core._io import read_npy
    from seqviz.limits import check_output, check_trace_size

    check_output(args.out)

    if args.weights:
        if args.cell:
            raise UsageError("give either --weights or --cell, not both.")
        if not args.input:
            raise UsageError("--weights needs --input X.npy, an array of shape (T, input_size).")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            params: Params | StackParams = Params.load(
                args.weights, nonlinearity=args.nonlinearity, variant=args.variant
            )
        for warning in caught:  # the assumed nn.RNN nonlinearity: one plain line on stderr
            print(f"seqviz: {warning.message}", file=sys.stderr)
        x = read_npy(args.input, "an input .npy array")
        if x.ndim == 2:
            layers = getattr(params, "num_layers", 1) * (
                2 if getattr(params, "bidirectional", 0) else 1
            )
            check_trace_size(x.shape[0], params.hidden_size * layers, 4)
    else:
        if not args.cell:
            raise UsageError("give --cell rnn|lstm|gru for a random model, or --weights MODEL.")
        layers = args.layers * (2 if args.bidirectional else 1)
        check_trace_size(args.steps, max(args.hidden, args.input_size) * layers, 4)
        kwargs = dict(
            seed=args.seed, forget_bias=args.forget_bias, spectral_radius=args.spectral_radius,
            nonlinearity=args.nonlinearity or "tanh", variant=args.variant or "textbook",
        )  # fmt: skip
        params = (
            Params.random(args.cell, args.input_size, args.hidden, **kwargs)
            if args.layers == 1 and not args.bidirectional
            else StackParams.random(
                args.cell, args.input_size, args.hidden, args.layers, args.bidirectional, **kwargs
            )
        )
        x = np.random.default_rng(args.seed + 1).normal(size=(args.steps, args.input_size))
    if isinstance(params, Params):
        tr = trace(params, x)
        path = tr.save(args.out)
        p = tr.params
        print(
            f"wrote {path}: {p.cell} d_in={p.input_size} d={p.hidden_size} T={tr.T}, |dL/dh| "
            f"{tr.grad_norms()[0]:.2e} at the last step, {tr.grad_norms()[-1]:.2e} at the first"
        )
        overflow: Any = tr.overflow
    else:
        st = trace_stack(params, x)
        path = st.save(args.out)
        print(
            f"wrote {path}: {params.describe()} d_in={params.input_size} T={st.T}; h is the top "
            f"layer's output {st.h.shape}; per-layer states h_l0, h_l1, ... (and _reverse)"
        )
        overflow = st.overflow
    if overflow is not None:
        print(f"note: {overflow.describe()}; the file keeps the inf/nan values")
    return 0
