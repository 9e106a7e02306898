"""Per-tensor FP8 (e4m3) quantisation in numpy, as a quantiser feeding an FP8 GEMM does (days 10 and 15).
"""
from __future__ import annotations

import numpy as np


E4M3_MAX = 448.0


def quantize_e4m3(x: np.ndarray) -> tuple[np.ndarray, float]:
    """(uint8 e4m3 bits, scale) of a per-tensor quantisation: x ~ scale * e4m3, scale = amax / 448,
    rounded to nearest even, as a quantiser feeding an FP8 GEMM does."""
    import ml_dtypes

    amax = float(np.max(np.abs(x))) if x.size else 0.0
    scale = amax / E4M3_MAX if amax > 0 else 1.0
    q = np.clip(x / scale, -E4M3_MAX, E4M3_MAX).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
    return q.view(np.uint8), float(np.float32(scale))


def dequantize_e4m3(bits: np.ndarray, scale: float) -> np.ndarray:
    import ml_dtypes

    return bits.view(ml_dtypes.float8_e4m3fn).astype(np.float64) * scale
