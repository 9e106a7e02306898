"""The 16-bit inputs of the tensor-core exercises (days 9 and 15): the dtypes, kernel name suffixes
and random inputs.
"""
from __future__ import annotations

import numpy as np

from grader import device


SUFFIX = {"float16": "f16", "bfloat16": "bf16"}


def dtype_ok(dtype: str) -> None:
    if dtype not in SUFFIX:
        raise ValueError(f"dtype {dtype!r}: expected one of {', '.join(SUFFIX)}")


def normal(rng, shape, dtype: str) -> np.ndarray:
    return rng.standard_normal(shape).astype(device.dtype(dtype))
