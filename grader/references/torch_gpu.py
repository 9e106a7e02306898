"""torch, where it is installed and sees a CUDA GPU (day 14's binding and the capstone)."""
from __future__ import annotations


def torch_on_gpu():
    """torch, where it is installed and sees a CUDA GPU; else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None
