"""The 16-bit inputs of the tensor-core exercises (days 9 and 15): the dtypes, kernel name suffixes
and random inputs.
"""
from __future__ import annotations

import numpy as np

from grader import device
from grader.messages import say


SUFFIX = {"float16": "f16", "bfloat16": "bf16"}


def dtype_ok(dtype: str) -> None:
    if dtype not in SUFFIX:
        raise ValueError(say("arg.one_of", what="dtype", value=dtype, known=", ".join(SUFFIX)))


def normal(rng, shape, dtype: str) -> np.ndarray:
    return rng.standard_normal(shape).astype(device.dtype(dtype))
