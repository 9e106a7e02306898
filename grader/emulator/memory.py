"""Emulated global memory: allocations at fixed fake device addresses, and numpy-backed device arrays
with the part of cupy's ndarray API the course uses.

Each allocation is a numpy uint8 buffer at its own address (a multiple of 256, never reused).
Kernels see the addresses; the emulator maps an address back to its buffer (and reports any access
outside every live allocation as out of bounds). Generic addresses of shared and local memory live in
windows far above every allocation.
"""
from __future__ import annotations

import itertools
import weakref

import numpy as np

from grader.messages import say

GLOBAL_BASE = 1 << 40
SHARED_WINDOW = 1 << 48
LOCAL_WINDOW = 2 << 48
WINDOW_SIZE = 1 << 40

_next = itertools.count()
_live: "weakref.WeakValueDictionary[int, Buffer]" = weakref.WeakValueDictionary()
_cursor = [GLOBAL_BASE]


class Buffer:
    """One allocation: `data` (uint8, padded to 16 bytes) at device address `addr`, `nbytes` usable."""

    def __init__(self, nbytes: int, name: str = ""):
        nbytes = int(nbytes)
        if nbytes < 0:
            raise ValueError(say("emu.cannot_allocate", nbytes=nbytes))
        self.nbytes = nbytes
        self.guard = 0         # bytes at the end that the grader added past the kernel's array
        self.elem = 1          # the array's element size, for messages
        self.data = np.zeros(max(16, -(-nbytes // 16) * 16), np.uint8)
        self.addr = _cursor[0]
        self.name = name
        _cursor[0] += -(-max(nbytes, 1) // 256) * 256 + 256  # a gap: overruns never land in a neighbour
        _live[self.addr] = self


def snapshot():
    """(bases, ends, buffers) of every live allocation, sorted by address."""
    bufs = sorted(_live.values(), key=lambda b: b.addr)
    bases = np.array([b.addr for b in bufs], np.uint64)
    ends = np.array([b.addr + b.nbytes for b in bufs], np.uint64)
    return bases, ends, bufs


def find(addr: int):
    """The live buffer holding `addr`, or None."""
    for b in _live.values():
        if b.addr <= addr < b.addr + max(b.nbytes, 1):
            return b
    return None


class _Ptr:
    def __init__(self, ptr: int):
        self.ptr = ptr


class DeviceArray:
    """A numpy array living in emulated device memory; what `grader.device` hands out on the emulator.

    Like a cupy array it does not convert implicitly to numpy: use `.get()` (or `device.to_host`).
    """

    __array_priority__ = 100

    def __init__(self, buffer: Buffer, shape, dtype, offset: int = 0, strides=None):
        self._buffer = buffer
        self._offset = int(offset)
        dtype = np.dtype(dtype)
        shape = tuple(int(s) for s in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        count = int(np.prod(shape)) if shape else 1
        if strides is None:
            view = buffer.data[self._offset:self._offset + count * dtype.itemsize].view(dtype).reshape(shape)
        else:
            view = np.ndarray(shape, dtype, buffer.data, self._offset, strides)
        self._a = view

    # ---- construction ----
    @classmethod
    def from_host(cls, host: np.ndarray) -> "DeviceArray":
        host = np.ascontiguousarray(host)
        buf = Buffer(host.nbytes)
        out = cls(buf, host.shape, host.dtype)
        out._a[...] = host
        return out

    @classmethod
    def empty(cls, shape, dtype) -> "DeviceArray":
        dtype = np.dtype(dtype)
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (int(shape),)
        return cls(Buffer(int(np.prod(shape)) * dtype.itemsize), shape, dtype)

    def mark_guard(self, rows: int) -> None:
        """The last `rows` rows (elements, 1-D) are the grader's guard, not the kernel's array."""
        row = int(np.prod(self.shape[1:])) if self.ndim > 1 else 1
        self._buffer.guard, self._buffer.elem = rows * row * self.itemsize, self.itemsize

    # ---- cupy-like attributes ----
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    size = property(lambda self: self._a.size)
    ndim = property(lambda self: self._a.ndim)
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: self._wrap(self._a.T))

    @property
    def data(self):
        return _Ptr(self.ptr)

    @property
    def ptr(self) -> int:
        return self._buffer.addr + (self._a.__array_interface__["data"][0]
                                    - self._buffer.data.__array_interface__["data"][0])

    def _wrap(self, view: np.ndarray) -> "DeviceArray":
        out = DeviceArray.__new__(DeviceArray)
        out._buffer, out._offset, out._a = self._buffer, 0, view
        return out

    def get(self) -> np.ndarray:
        return self._a.copy()

    def __len__(self):
        return len(self._a)

    def __getitem__(self, key):
        v = self._a[key]
        if not isinstance(v, np.ndarray) or not np.shares_memory(v, self._buffer.data):
            return DeviceArray.from_host(np.asarray(v))
        return self._wrap(v)

    def __setitem__(self, key, value):
        self._a[key] = value.get() if isinstance(value, DeviceArray) else value

    def view(self, dtype) -> "DeviceArray":
        return self._wrap(self._a.view(dtype))

    def reshape(self, *shape) -> "DeviceArray":
        v = self._a.reshape(*shape)
        if not np.shares_memory(v, self._buffer.data):
            raise ValueError(say("emu.reshape_copy"))
        return self._wrap(v)

    def ravel(self) -> "DeviceArray":
        return self.reshape(-1)

    def fill(self, value) -> None:
        self._a.fill(value)

    def copy(self) -> "DeviceArray":
        return DeviceArray.from_host(self._a)

    def astype(self, dtype) -> "DeviceArray":
        return DeviceArray.from_host(self._a.astype(dtype))

    # ---- elementwise arithmetic (cupy computes these on the device; here numpy does) ----
    def _binary(self, other, op, reflected=False):
        b = other._a if isinstance(other, DeviceArray) else other
        if isinstance(b, np.ndarray) and not isinstance(other, DeviceArray):
            raise TypeError(say("emu.numpy_operand"))
        return DeviceArray.from_host(op(b, self._a) if reflected else op(self._a, b))

    def _inplace(self, other, op):
        self._a[...] = op(self._a, other._a if isinstance(other, DeviceArray) else other)
        return self

    __add__ = lambda self, o: self._binary(o, np.add)
    __radd__ = lambda self, o: self._binary(o, np.add, True)
    __sub__ = lambda self, o: self._binary(o, np.subtract)
    __rsub__ = lambda self, o: self._binary(o, np.subtract, True)
    __mul__ = lambda self, o: self._binary(o, np.multiply)
    __rmul__ = lambda self, o: self._binary(o, np.multiply, True)
    __truediv__ = lambda self, o: self._binary(o, np.true_divide)
    __iadd__ = lambda self, o: self._inplace(o, np.add)
    __isub__ = lambda self, o: self._inplace(o, np.subtract)
    __imul__ = lambda self, o: self._inplace(o, np.multiply)
    __neg__ = lambda self: DeviceArray.from_host(-self._a)

    def __array__(self, *args, **kwargs):
        raise TypeError(say("emu.to_numpy"))

    def __repr__(self) -> str:
        return f"DeviceArray(emulated, shape={self.shape}, dtype={self.dtype}, ptr=0x{self.ptr:x})"
