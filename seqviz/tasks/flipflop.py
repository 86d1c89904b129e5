"""The 3-bit flip-flop task: +1/-1 pulses on three channels; each output holds its last pulse.

Run `python -m seqviz.tasks.flipflop` to print one sequence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BITS = 3
PULSE_PROB = 0.05  # chance that a channel pulses at a step


@dataclass(frozen=True)
class FlipFlopBatch:
    x: np.ndarray  # (B, T, bits) pulses in {-1, 0, +1}
    y: np.ndarray  # (B, T, bits) targets: sign of the last pulse so far, 0 before the first


def targets(x: np.ndarray) -> np.ndarray:
    """(B, T, bits) pulses -> the held sign of each channel's last pulse (0 before any)."""
    x = np.asarray(x)
    y = np.zeros(x.shape)
    held = np.zeros((x.shape[0], x.shape[2]))
    for t in range(x.shape[1]):
        held = np.where(x[:, t] != 0, np.sign(x[:, t]), held)
        y[:, t] = held
    return y


def batch(
    rng: np.random.Generator,
    size: int,
    steps: int,
    bits: int = BITS,
    prob: float = PULSE_PROB,
) -> FlipFlopBatch:
    """`size` random sequences of `steps` steps (deterministic for the generator's state)."""
    for name, value in (("size", size), ("steps", steps), ("bits", bits)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}.")
    if not 0.0 <= prob <= 1.0:
        raise ValueError(f"the pulse probability must be from 0 to 1, got {prob!r}.")
    pulse = rng.random((size, steps, bits)) < prob
    sign = np.where(rng.random((size, steps, bits)) < 0.5, -1.0, 1.0)
    x = np.where(pulse, sign, 0.0)
    return FlipFlopBatch(x, targets(x))


def dataset(seed: int, size: int, steps: int, bits: int = BITS) -> FlipFlopBatch:
    """A fixed set of sequences for a seed (the held-out test set uses its own seed)."""
    return batch(np.random.default_rng(seed), size, steps, bits)


def main() -> None:
    b = dataset(0, 1, 60)
    glyph = {-1.0: "-", 0.0: ".", 1.0: "+"}
    for c in range(BITS):
        pulses = "".join(glyph[float(v)] for v in b.x[0, :, c])
        held = "".join(glyph[float(v)] for v in b.y[0, :, c])
        print(f"in  {c}: {pulses}\nout {c}: {held}")


if __name__ == "__main__":
    main()
