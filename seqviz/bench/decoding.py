"""Timing one beam-search step on the shipped LM: the whole engine step, and the model step alone
side by side with a plain-NumPy LSTM step and PyTorch's LSTMCell (when installed)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from seqviz.core.api import step as core_step
from seqviz.decoding.search import BeamSearch
from seqviz.models.lm import RNNLM, log_softmax
from seqviz.models.registry import load

PROMPT = "the keys to the cabinet"


def _median_ms(fn: Callable[[], Any], repeats: int) -> float:
    fn()  # warm-up (and JIT load)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(times))


def _numpy_step(lm: RNNLM, x: np.ndarray, h: np.ndarray, c: np.ndarray):
    """The LSTM step and softmax in plain NumPy (the reference the Numba step is compared to)."""
    p = lm.params
    d = p.hidden_size
    z = x @ p.weight_ih.T + p.bias_ih + h @ p.weight_hh.T + p.bias_hh  # (B, 4d)
    sig = lambda a: 1.0 / (1.0 + np.exp(-a))  # noqa: E731
    i, f, g, o = (
        sig(z[:, :d]),
        sig(z[:, d : 2 * d]),
        np.tanh(z[:, 2 * d : 3 * d]),
        sig(z[:, 3 * d :]),
    )
    c_new = f * c + i * g
    h_new = o * np.tanh(c_new)
    logits = h_new @ lm.out_weight.T + lm.out_bias
    return h_new, c_new, log_softmax(logits)


def bench_decoding(width: int = 8, repeats: int = 300, model: RNNLM | None = None) -> dict:
    """Median milliseconds per beam step of `width` hypotheses, and the model step alone."""
    lm = model or load("agreement", kind="lm")
    search = BeamSearch(lm, PROMPT, width=width, max_len=50)
    search.step()  # from here on the beam holds `width` live hypotheses

    def engine_step() -> None:
        search.step()
        search.back()

    states = list(search.history[-1].states)
    tokens = [n.token for n in search.beam]
    B = len(states)
    out: dict[str, Any] = {
        "model": lm.name,
        "cell": lm.params.cell,
        "hidden": lm.params.hidden_size,
        "vocab": len(lm.vocab),
        "width": width,
        "live_hypotheses": B,
        "candidates_per_step": B * len(lm.vocab),
        "engine_step_ms": _median_ms(engine_step, repeats),
        "advance_ms": _median_ms(lambda: lm.advance(states, tokens), repeats),
    }
    x = lm.embedding[tokens]
    h = np.stack([s.h for s in states])
    c = np.stack([s.c for s in states]) if lm.params.cell == "lstm" else None

    def seqviz_step() -> None:
        h2, _ = core_step(lm.params, x, h, c)
        log_softmax(h2 @ lm.out_weight.T + lm.out_bias)

    out["seqviz_model_step_ms"] = _median_ms(seqviz_step, repeats)
    if lm.params.cell == "lstm":
        assert c is not None  # set above for an LSTM
        out["numpy_model_step_ms"] = _median_ms(lambda: _numpy_step(lm, x, h, c), repeats)
        try:
            import torch
        except ImportError:
            pass
        else:
            cell = torch.nn.LSTMCell(lm.params.input_size, lm.params.hidden_size).double()
            lin = torch.nn.Linear(lm.params.hidden_size, len(lm.vocab)).double()
            with torch.no_grad():
                cell.weight_ih.copy_(torch.from_numpy(np.array(lm.params.weight_ih)))
                cell.weight_hh.copy_(torch.from_numpy(np.array(lm.params.weight_hh)))
                cell.bias_ih.copy_(torch.from_numpy(np.array(lm.params.bias_ih)))
                cell.bias_hh.copy_(torch.from_numpy(np.array(lm.params.bias_hh)))
                lin.weight.copy_(torch.from_numpy(np.array(lm.out_weight)))
                lin.bias.copy_(torch.from_numpy(np.array(lm.out_bias)))
            xt, ht, ct = (torch.from_numpy(np.array(a)) for a in (x, h, c))

            def torch_step() -> None:
                with torch.no_grad():
                    h2, c2 = cell(xt, (ht, ct))
                    torch.log_softmax(lin(h2), dim=-1)

            # One thread: for an (8, 48) step, thread start-up would dominate and the machine is
            # shared; the other libraries run single-threaded here too.
            threads = torch.get_num_threads()
            torch.set_num_threads(1)
            try:
                out["torch_model_step_ms"] = _median_ms(torch_step, repeats)
            finally:
                torch.set_num_threads(threads)
    base = out["seqviz_model_step_ms"]
    for k in ("numpy_model_step_ms", "torch_model_step_ms"):
        if k in out:
            out[k.replace("_ms", "_ratio")] = out[k] / base  # > 1: seqviz is faster
    return out


def format_report(r: dict) -> str:
    lines = [
        f"beam step on {r['model']} ({r['cell']}, hidden {r['hidden']}, vocabulary {r['vocab']}), "
        f"width {r['width']}: {r['live_hypotheses']} live hypotheses, "
        f"{r['candidates_per_step']} candidates scored and recorded",
        f"  whole engine step (score, rank, record, advance): {r['engine_step_ms']:.3f} ms "
        "(target < 5 ms)",
        f"  LSTM state handling + model (RNNLM.advance):     {r['advance_ms']:.3f} ms",
        f"  model step alone, seqviz (Numba core step):      {r['seqviz_model_step_ms']:.3f} ms",
    ]
    if "numpy_model_step_ms" in r:
        lines.append(
            f"  model step alone, plain NumPy:                   {r['numpy_model_step_ms']:.3f} ms"
            f"  ({r['numpy_model_step_ratio']:.2f}x seqviz's time)"
        )
    if "torch_model_step_ms" in r:
        lines.append(
            f"  model step alone, PyTorch LSTMCell:              {r['torch_model_step_ms']:.3f} ms"
            f"  ({r['torch_model_step_ratio']:.2f}x seqviz's time)"
        )
    return "\n".join(lines)
