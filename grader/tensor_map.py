"""Tensor maps (TMA descriptors): the 128-byte `const __grid_constant__ CUtensorMap` kernel parameter.

    tmap = tensor_map(a, box=(64, 64), swizzle=128)   # a: a 2-D or 3-D row-major device array
    kernel(grid, block, (tmap, out))

On a GPU the bytes come from the driver's cuTensorMapEncodeTiled (opaque), passed as a 64-byte-aligned
struct; on the emulator they are the course's own encoding (grader/emulator/tensor_maps.py). `box` and
shapes are given outermost first, as numpy.
"""
from __future__ import annotations

import numpy as np

from grader import device
from grader.messages import say

SWIZZLES = (0, 32, 64, 128)
_DTYPES = {np.dtype(np.uint8): 1, np.dtype(np.float16): 2, np.dtype(np.float32): 4}  # uint8: FP8 bits


def _elem_size(dtype) -> int:
    dt = np.dtype(dtype)
    if dt in _DTYPES:
        return _DTYPES[dt]
    if "bfloat16" in str(dt):
        return 2
    raise ValueError(say("tensor_map.dtype", dtype=dt))


def _check(shape, strides, elem, box, swizzle):
    rank = len(shape)
    if rank not in (2, 3):
        raise ValueError(say("tensor_map.rank", rank=rank))
    if len(box) != rank or any(not 1 <= int(b) <= 256 for b in box):
        raise ValueError(say("tensor_map.box", box=tuple(box), rank=rank))
    if strides[-1] != elem or any(s % 16 for s in strides[:-1]):
        raise ValueError(say("tensor_map.layout"))
    if swizzle not in SWIZZLES:
        raise ValueError(say("tensor_map.swizzle", swizzle=swizzle, swizzles=SWIZZLES))
    inner = int(box[-1]) * elem
    if inner % 16 or (swizzle and inner > swizzle):
        raise ValueError(say("tensor_map.inner_swizzled", inner=inner, swizzle=swizzle) if swizzle
                         else say("tensor_map.inner", inner=inner))


def tensor_map(array, box, swizzle: int = 0):
    """The kernel argument of a tiled tensor map over a device array, for the current backend."""
    elem = _elem_size(array.dtype)
    _check(tuple(array.shape), tuple(int(s) for s in array.strides), elem, box, swizzle)
    return device.tensor_map(array, tuple(int(b) for b in box), swizzle, elem)
