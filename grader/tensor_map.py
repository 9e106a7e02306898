"""Tensor maps (TMA descriptors): the 128-byte `const __grid_constant__ CUtensorMap` kernel parameter.

    tmap = tensor_map(a, box=(64, 64), swizzle=128)   # a: a 2-D or 3-D row-major device array
    kernel(grid, block, (tmap, out))

On a GPU the bytes come from the driver's cuTensorMapEncodeTiled (opaque). On the emulator they are
the course's own encoding (grader/emulator/tensor_maps.py). `box` and shapes are given outermost first,
as numpy.
"""
from __future__ import annotations

import numpy as np

from grader import device
from grader.emulator.tensor_maps import encode
SWIZZLES = (0, 32, 64, 128)
_DTYPES = {np.dtype(np.float16): 2, np.dtype(np.float32): 4}


def _elem_size(dtype) -> int:
    dt = np.dtype(dtype)
    if dt in _DTYPES:
        return _DTYPES[dt]
    if "bfloat16" in str(dt):
        return 2
    raise ValueError(f"tensor_map: dtype {dt} (use float16, bfloat16 or float32)")


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


def tensor_map(array, box, swizzle: int = 0) -> np.ndarray:
    """The 128 bytes (np.uint8) of a tiled tensor map over a device array, for the current backend."""
    shape, elem = tuple(array.shape), _elem_size(array.dtype)
    strides = tuple(int(s) for s in array.strides)
    _check(shape, strides, elem, box, swizzle)
    if device.emulated():
        return encode(int(array.ptr), shape, strides, elem, box, swizzle)
    return _encode_driver(array, shape, strides, elem, box, swizzle)


def _encode_driver(array, shape, strides, elem, box, swizzle) -> np.ndarray:
    """cuTensorMapEncodeTiled through cuda.bindings (GPU only)."""
    from cuda.bindings import driver as drv

    dtype = {2: drv.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
             4: drv.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32}[elem]
    if "bfloat16" in str(array.dtype):
        dtype = drv.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
    swz = {0: "NONE", 32: "32B", 64: "64B", 128: "128B"}[swizzle]
    rank = len(shape)
    err, tmap = drv.cuTensorMapEncodeTiled(
        dtype, rank, int(array.data.ptr),
        [drv.cuuint64_t(d) for d in shape[::-1]],
        [drv.cuuint64_t(s) for s in strides[::-1][1:]],  # rank - 1 strides, the innermost is implied
        [drv.cuuint32_t(b) for b in box[::-1]],
        [drv.cuuint32_t(1)] * rank,
        drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(drv.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{swz}"),
        drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
        drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if err != drv.CUresult.CUDA_SUCCESS:
        raise ValueError(f"tensor_map: cuTensorMapEncodeTiled failed: {err}")
    return np.array(tmap.opaque, np.uint64).view(np.uint8)
