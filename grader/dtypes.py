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

# The poison of a fresh float array: a quiet NaN with a payload no arithmetic makes (a GPU's computed NaN
# is 0x7FFFFFFF / 0x7FFF, a CPU's 0xFFC00000 / 0x7FC00000...), so the checks tell an element the kernel
# never wrote from a NaN it computed (0 x inf, an eps outside a square root). Conversions between float
# widths keep the payload.
POISON_BITS = {"float16": 0x7EDB, "bfloat16": 0x7FDB, "float32": 0x7FC0C0DE, "float64": 0x7FF8C0DEC0DEC0DE}
_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


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


def poison(dt) -> tuple[np.dtype, int]:
    """(the storage dtype, the bits) a fresh array of float dtype `dt` is filled with."""
    dt = dtype(dt)
    name = "bfloat16" if dt == bfloat16 else dt.name
    return np.dtype(_UINT[dt.itemsize]), POISON_BITS[name]


def _poison_as_float64() -> np.ndarray:
    values = [np.array([bits], _UINT[DTYPES[name].itemsize]).view(DTYPES[name]).astype(np.float64)
              for name, bits in POISON_BITS.items()]
    return np.concatenate(values).view(np.uint64)


_POISON64 = _poison_as_float64()


def unwritten(values) -> np.ndarray:
    """Where `values` (host floats of any width, or float64 converted from them) still hold the poison."""
    a = np.asarray(values)
    if a.dtype.kind != "f" and a.dtype != bfloat16:
        return np.zeros(a.shape, bool)
    return np.isin(np.ascontiguousarray(a.astype(np.float64)).view(np.uint64), _POISON64)
