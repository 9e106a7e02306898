"""float64 references of a transformer block's elementwise layers: RMSNorm and its tolerance (day 6),
SiLU-and-mul (day 2), RoPE (day 13); day 14 and the capstone use them again.
"""
from __future__ import annotations

import numpy as np

from grader import checks
from grader.launchers.rope import THETA


EPS = 1e-6
# Unit roundoff of the output dtype (half an ulp, relative): rounding a float result to fp16 or bf16
# moves it by at most this fraction of itself.
ROUNDING = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}
# What the float32 arithmetic before that rounding may add, relative: the sum of squares (at most ~100
# additions on any chain, 2^-24 each: 6e-6, halved by the square root), rsqrtf (2 ulp), two products.
FP32_SLACK = 2e-5
# Half the smallest subnormal: where the output's own rounding is absolute rather than relative.
UNDERFLOW = {"float16": 2.0 ** -25, "bfloat16": 2.0 ** -134}


def norm_tolerance(dtype: str) -> checks.Tolerance:
    """Every ELEMENT within one rounding of the dtype (plus the float32 slack) of the float64 value.

    A kernel that accumulates in float32 and rounds only its output can never exceed it (bf16 2^-8 +
    2e-5 = 3.93e-3, fp16 2^-11 + 2e-5 = 5.1e-4). Errors that scale a whole row (a sum of squares in
    bf16 or fp16, eps left out or outside the square root) push the elements whose rounding already
    went the same way past the bound: with hundreds of elements per row some always do.
    """
    return checks.Tolerance(ROUNDING[dtype] + FP32_SLACK, UNDERFLOW[dtype], False)


def rmsnorm_reference(x: np.ndarray, weight: np.ndarray, eps: float = EPS, gemma: bool = False) -> np.ndarray:
    """float64 x * rsqrt(mean(x^2) + eps) * weight (Gemma: * (1 + weight)) over the last axis, from the
    (rounded) inputs."""
    x = x.astype(np.float64)
    eps = float(np.float32(eps))  # the kernel receives eps as a float
    gain = weight.astype(np.float64) + (1.0 if gemma else 0.0)
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * gain


def silu_and_mul_reference(x: np.ndarray) -> np.ndarray:
    """float64 silu(x[:, :d]) * x[:, d:] from the (rounded) inputs."""
    x = x.astype(np.float64)
    d = x.shape[-1] // 2
    a, b = x[..., :d], x[..., d:]
    return a / (1.0 + np.exp(-a)) * b


def rope_reference(x: np.ndarray, pos: np.ndarray, heads: int, theta: float = THETA,
                   interleaved: bool = False) -> np.ndarray:
    """float64 RoPE of heads [:heads] of x [tokens, row_heads, head_dim]; the rest as is. Pair i is
    (x[i], x[i + d/2]) (rotate half, GPT-NeoX) or (x[2i], x[2i + 1]) (interleaved, GPT-J)."""
    x = x.astype(np.float64)
    half = x.shape[-1] // 2
    freq = theta ** (-2.0 * np.arange(half) / x.shape[-1])
    angle = pos.astype(np.float64)[:, None, None] * freq
    c, s = np.cos(angle), np.sin(angle)
    out = x.copy()
    first, second = (slice(0, None, 2), slice(1, None, 2)) if interleaved else (slice(0, half), slice(half, None))
    x1, x2 = x[:, :heads, first], x[:, :heads, second]
    out[:, :heads, first] = x1 * c - x2 * s
    out[:, :heads, second] = x2 * c + x1 * s
    return out
