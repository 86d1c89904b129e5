"""Reading torch state_dicts saved with torch.save; torch is imported only when needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def load_state_dict(path: str | Path) -> dict[str, np.ndarray]:
    """The tensors of a torch.save'd state_dict (or whole nn.RNN/LSTM/GRU module) as float64."""
    try:
        import torch
    except ImportError:
        raise ValueError(
            f"reading {path} needs PyTorch, which is not installed; "
            "install torch or save the weights as .npz (Params.save)."
        ) from None
    try:
        obj: Any = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a bad file
        raise ValueError(f"{path} is not a readable torch file ({type(exc).__name__}).") from None
    if isinstance(obj, torch.nn.Module):
        obj = obj.state_dict()
    if not isinstance(obj, dict) or not all(isinstance(v, torch.Tensor) for v in obj.values()):
        raise ValueError(
            f"{path} does not hold a state_dict; "
            "save one with torch.save(model.state_dict(), path)."
        )
    return {str(k): v.detach().to(torch.float64).cpu().numpy() for k, v in obj.items()}
