"""Reading torch state_dicts saved with torch.save; torch is imported only when needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from seqviz.limits import FILE_CAPS, check_regular, shorten, shown


def load_state_dict(path: str | Path) -> dict[str, np.ndarray]:
    """The tensors of a torch.save'd state_dict (or whole nn.RNN/LSTM/GRU module) as float64."""
    p = check_regular(path, "weights file", FILE_CAPS["weights"])
    name = shown(p)
    try:
        import torch
    except ImportError:
        raise ValueError(
            f"reading {name} needs PyTorch, which is not installed; "
            "install torch or save the weights as .npz (Params.save)."
        ) from None
    try:
        obj: Any = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a bad file
        if "Unsupported global" in str(exc):
            # A whole pickled nn.Module needs arbitrary code to load: never run it.
            raise ValueError(
                f"{name} holds a pickled Python object (such as a whole nn.Module), which "
                "seqviz does not unpickle; save torch.save(model.state_dict(), path) instead."
            ) from None
        raise ValueError(f"{name} is not a readable torch file ({type(exc).__name__}).") from None
    if isinstance(obj, torch.nn.Module):
        obj = obj.state_dict()
    if not isinstance(obj, dict) or not all(isinstance(v, torch.Tensor) for v in obj.values()):
        raise ValueError(
            f"{name} does not hold a state_dict; "
            "save one with torch.save(model.state_dict(), path)."
        )
    out = {}
    for k, v in obj.items():
        if v.layout != torch.strided or v.is_meta or v.is_complex() or v.is_quantized:
            kind = "complex" if v.is_complex() else "meta" if v.is_meta else str(v.layout)
            raise ValueError(
                f"{name}: tensor {shorten(str(k))} is {kind}; seqviz reads dense real tensors."
            )
        out[str(k)] = v.detach().to(torch.float64).cpu().numpy()
    return out
