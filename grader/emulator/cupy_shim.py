"""The part of cupy's namespace the course's checks use, over emulated device memory: what
`grader.device.require_gpu()` returns on the emulator. Anything that times (cupy.cuda.Event, ...) raises
NoTiming (a NoGPU): timings are not emulated.
"""
from __future__ import annotations

import numpy as np

from grader.backend import NoGPU, NoTiming
from grader.emulator.memory import DeviceArray
from grader.messages import say


def no_timing() -> str:
    """Why nothing is timed here, in the lessons' language."""
    return say("emulator.not_emulated")


int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64


def _host(x):
    return x.get() if isinstance(x, DeviceArray) else np.asarray(x)


def asarray(x, dtype=None):
    if isinstance(x, DeviceArray) and (dtype is None or np.dtype(dtype) == x.dtype):
        return x
    return DeviceArray.from_host(np.asarray(_host(x), dtype=dtype))


def ascontiguousarray(x, dtype=None):
    if isinstance(x, DeviceArray) and x._a.flags.c_contiguous and dtype is None:
        return x
    return DeviceArray.from_host(np.ascontiguousarray(_host(x), dtype=dtype))


def asnumpy(x):
    return _host(x).copy()


def empty(shape, dtype=np.float32):
    return DeviceArray.empty(shape, dtype)


def zeros(shape, dtype=np.float32):
    return DeviceArray.empty(shape, dtype)  # fresh buffers are zero


def full(shape, value, dtype=None):
    return DeviceArray.from_host(np.full(shape, value, dtype=dtype))


def ones(shape, dtype=np.float32):
    return full(shape, 1, dtype)


def empty_like(x, dtype=None):
    return DeviceArray.empty(x.shape, dtype or x.dtype)


def zeros_like(x, dtype=None):
    return DeviceArray.empty(x.shape, dtype or x.dtype)


def arange(*args, dtype=None):
    return DeviceArray.from_host(np.arange(*args, dtype=dtype))


def cumsum(x, dtype=None, out=None):
    r = np.cumsum(_host(x), dtype=dtype)
    if out is not None:
        out[...] = r
        return out
    return DeviceArray.from_host(r)


def ndarray(shape, dtype=np.float32, memptr=None):
    if memptr is None:
        return DeviceArray.empty(shape, dtype)
    if not isinstance(memptr, DeviceArray):
        raise TypeError(say("emulator.memptr"))
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    return DeviceArray(memptr._buffer, shape, dtype, offset=memptr.ptr - memptr._buffer.addr) \
        if nbytes <= memptr.nbytes else _too_small(nbytes, memptr)


def _too_small(nbytes, memptr):
    raise ValueError(say("emulator.memptr_small", holds=memptr.nbytes, requested=nbytes))


class _Generator:
    def __init__(self, seed):
        self._rng = np.random.default_rng(seed)

    def standard_normal(self, size=None, dtype=np.float64):
        return DeviceArray.from_host(self._rng.standard_normal(size, dtype=dtype))

    def random(self, size=None, dtype=np.float64):
        return DeviceArray.from_host(self._rng.random(size, dtype=dtype))

    def integers(self, low, high=None, size=None, dtype=np.int64):
        return DeviceArray.from_host(self._rng.integers(low, high, size, dtype=dtype))


class random:  # noqa: N801 - mirrors cupy.random
    default_rng = _Generator


class _NoTiming:
    def __getattr__(self, name):
        raise NoTiming(f"cupy.cuda.{name}: {no_timing()}")


cuda = _NoTiming()


def __getattr__(name):
    if name.startswith("__"):  # what Python's machinery looks for (__path__, ...): absent, as in any module
        raise AttributeError(name)
    raise NoGPU(say("emulator.no_cupy", name=f"cupy.{name}"))
