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

SWIZZLES = (0, 32, 64, 128)
_DTYPES = {np.dtype(np.uint8): 1, np.dtype(np.float16): 2, np.dtype(np.float32): 4}  # uint8: FP8 bits


def _elem_size(dtype) -> int:
    dt = np.dtype(dtype)
    if dt in _DTYPES:
        return _DTYPES[dt]
    if "bfloat16" in str(dt):
        return 2
    raise ValueError(f"tensor_map: dtype {dt} (use uint8 (FP8 bits), float16, bfloat16 or float32)")


def _check(shape, strides, elem, box, swizzle):
    rank = len(shape)
    if rank not in (2, 3):
        raise ValueError(f"tensor_map: a {rank}-D array (use 2-D or 3-D)")
    if len(box) != rank or any(not 1 <= int(b) <= 256 for b in box):
        raise ValueError(f"tensor_map: box {tuple(box)} must have {rank} sizes in 1..256")
    if strides[-1] != elem or any(s % 16 for s in strides[:-1]):
        raise ValueError("tensor_map: the array must be row-major with rows a multiple of 16 bytes")
    if swizzle not in SWIZZLES:
        raise ValueError(f"tensor_map: swizzle {swizzle} (use one of {SWIZZLES})")
    inner = int(box[-1]) * elem
    if inner % 16 or (swizzle and inner > swizzle):
        raise ValueError(f"tensor_map: the box's inner dimension is {inner} bytes: it must be a multiple of "
                         f"16{f' and at most the swizzle span, {swizzle}' if swizzle else ''}")


def tensor_map(array, box, swizzle: int = 0):
    """The kernel argument of a tiled tensor map over a device array, for the current backend."""
    elem = _elem_size(array.dtype)
    _check(tuple(array.shape), tuple(int(s) for s in array.strides), elem, box, swizzle)
    return device.tensor_map(array, tuple(int(b) for b in box), swizzle, elem)
