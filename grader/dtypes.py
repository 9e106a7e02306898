"""The dtypes the course's kernels take, by name, and how each is stored on a device.

bfloat16 has no numpy or cupy dtype of its own: on the host it is `ml_dtypes.bfloat16`, on the device
a uint16 array holding the same bits. A ground floor: both device backends and grader.device import it.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

bfloat16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": bfloat16,
          "float64": np.dtype(np.float64), "int32": np.dtype(np.int32), "uint32": np.dtype(np.uint32),
          "int64": np.dtype(np.int64), "uint8": np.dtype(np.uint8)}

BF16_NAN_BITS = 0x7FC0  # the poison of a fresh bfloat16 array; float16 and float32 get NaN itself


def dtype(name) -> np.dtype:
    """np.dtype from 'float16', 'bfloat16', np.float32 ...; a clear error for anything else."""
    if isinstance(name, str):
        if name not in DTYPES:
            raise ValueError(f"unknown dtype {name!r}: expected one of {', '.join(DTYPES)}")
        return DTYPES[name]
    return np.dtype(name)


def storage(dt: np.dtype) -> np.dtype:
    """The dtype a device array of `dt` holds: uint16 bits for bfloat16, `dt` itself otherwise."""
    return np.dtype(np.uint16) if dt == bfloat16 else dt
