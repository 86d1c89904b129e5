"""The recurrent traces behind each scene, rebuilt from its values, for the .npz export key.

Scenes keep only what they draw, so the export recomputes the full core Trace (states, gates,
every gradient) from the same values. Scenes with several networks give one trace each:

- vanishing: ``tanh`` and ``linear`` (the same W and inputs, as in the gradient plot)
- memory: ``rnn`` and ``lstm`` (the one-unit cells reading the pulse)
- gates: the cell on screen (``lstm`` or ``gru``) reading the typed text
- gradflow: ``rnn``, ``lstm`` and ``gru`` on the shared input
- decoding: ``lm``, the recurrent LM reading <s>, the prompt and the best hypothesis
  (the toy bigram model has no recurrent state, so there is nothing to export)
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _vanishing(v: Any, result: Any) -> dict[str, Any]:
    from seqviz import experiments
    from seqviz.core import trace

    params, x = experiments.lesson_rnn(
        v.rho, v.hidden, v.steps, v.seed, v.input_scale, "tanh", draw=v.draw - 1
    )
    return {"tanh": trace(params, x), "linear": trace(params.replace(nonlinearity="linear"), x)}


def _memory(v: Any, result: Any) -> dict[str, Any]:
    from seqviz import experiments
    from seqviz.core import trace

    x = experiments.pulse(v.steps)
    return {
        "rnn": trace(experiments.memory_rnn(v.w), x),
        "lstm": trace(experiments.memory_lstm(v.forget_bias), x),
    }


def _gates(v: Any, result: Any) -> dict[str, Any]:
    from seqviz.core import trace
    from seqviz.scenes import gates

    params = gates.make_params(v)
    return {params.cell: trace(params, gates.embed(v.text, params.input_size, v.seed))}


def _gradflow(v: Any, result: Any) -> dict[str, Any]:
    from seqviz.core import Params, trace
    from seqviz.scenes import gradflow

    size = gradflow.INPUT_SIZE
    x = np.random.default_rng(v.seed).normal(0.0, 1.0, (v.steps, size)) * v.input_scale
    out = {}
    for cell in gradflow.CELLS:
        params = Params.random(cell, size, v.hidden, seed=v.seed, spectral_radius=v.rho,
                               forget_bias=v.forget_bias)  # fmt: skip
        out[cell] = trace(params, x)
    return out


def _decoding(v: Any, result: Any) -> dict[str, Any]:
    model = getattr(result, "model", None)
    if result is None or getattr(result, "error", None):
        raise ValueError("the decoding scene has no result to export yet")
    if model is None or not hasattr(model, "trace"):
        raise ValueError(
            "the toy bigram model has no recurrent state to export; switch model to lstm "
            "(or a trained .npz) first"
        )
    best = result.final.best
    words = [result.vocab[t] for t in best.tokens]
    if words and words[-1] == "</s>":
        words = words[:-1]  # </s> is predicted, never read
    from seqviz.decoding import join_tokens

    ids = [result.vocab[t] for t in result.prompt_ids] + words
    return {"lm": model.trace(join_tokens(model, ids))}


BUILDERS = {
    "vanishing": _vanishing,
    "memory": _memory,
    "gates": _gates,
    "gradflow": _gradflow,
    "decoding": _decoding,
}


def scene_traces(scene: str, values: Any, result: Any = None) -> dict[str, Any]:
    """{part name: core Trace} for a scene's values (``result`` is needed by decoding only)."""
    builder = BUILDERS.get(scene)
    if builder is None:
        raise ValueError(f"the {scene} scene has no trace to export; scenes with traces are "
                         f"{', '.join(BUILDERS)}")  # fmt: skip
    return builder(values, result)
