"""grader.device's functions on the emulator: what `COURSE_BACKEND=emulator` puts behind the device layer.

Arrays are `DeviceArray`s (numpy in emulated device memory), modules are emulator `Module`s, launches run
the whole grid on the CPU. `require_gpu()` returns a numpy-backed subset of cupy (grader/emulator/
cupy_shim.py); timings are not emulated: anything under `cupy.cuda` (events, ...) raises NoGPU saying
so, and the memory statistics of each launch stand in for them.
"""
from __future__ import annotations

import numpy as np

from grader.emulator import EmulatorFault, arch, load_source as _load_source, load as _load
from grader.emulator.memory import DeviceArray

NO_TIMING = ("timings are not emulated: the emulator runs kernels on the CPU (COURSE_BACKEND=emulator), "
             "so there is nothing to time. Benchmarks need a CUDA GPU; the emulator reports memory "
             "statistics instead (grader.emulator.report)")


def install(namespace: dict) -> None:
    """Replace grader.device's GPU functions (in its module namespace) by the emulator's."""
    dev = namespace
    KernelFault, dtype, bfloat16 = dev["KernelFault"], dev["dtype"], dev["bfloat16"]
    poison = dev["_POISON"]

    def gpu_available() -> bool:
        return True

    def why_no_gpu():
        return None

    def require_gpu():
        from grader.emulator import cupy_shim

        return cupy_shim

    def asarray(host):
        host = np.ascontiguousarray(host)
        return DeviceArray.from_host(host.view(np.uint16) if host.dtype == bfloat16 else host)

    def to_host(arr, as_dtype=None):
        if not isinstance(arr, DeviceArray):
            raise TypeError(f"to_host expects a device array, got {type(arr).__name__}")
        host = arr.get()
        if as_dtype is not None and dtype(as_dtype) == bfloat16:
            return host.view(bfloat16)
        return host

    def empty(shape, dt="float32"):
        dt = dtype(dt)
        store = np.dtype(np.uint16) if dt == bfloat16 else dt
        out = DeviceArray.empty(shape, store)
        if dt == bfloat16:
            out.fill(poison[store])
        elif dt.kind == "f":
            out.fill(np.nan)
        else:
            out.view(np.uint8).fill(0xFF)
        return out

    def random(shape, dt="float32", seed: int = 0):
        x = np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)
        dt = dtype(dt)
        if dt == bfloat16:
            return DeviceArray.from_host((x.view(np.uint32) >> 16).astype(np.uint16))
        return DeviceArray.from_host(x.astype(dt))

    def load(path, options=()):
        return _load(path, tuple(options))

    def load_source(code, name="inline.cu", options=()):
        return _load_source(code, name, tuple(options))

    def synchronize(what="kernel"):
        return None

    def launch(kernel, grid, block, args, shared_mem=0, what=None):
        what = what or getattr(kernel, "name", "kernel")
        try:
            kernel(tuple(grid) if not isinstance(grid, int) else (grid,),
                   tuple(block) if not isinstance(block, int) else (block,), tuple(args), shared_mem=shared_mem)
        except EmulatorFault as e:
            raise KernelFault(f"{what} failed on the emulator: {e}") from None

    def properties():
        return {"name": "PTX emulator (CPU, numpy)", "sm": arch(), "sms": 1, "l2_bytes": 50 << 20,
                "memory_bytes": 8 << 30, "smem_per_block_optin": 227 << 10}

    for f in (gpu_available, why_no_gpu, require_gpu, asarray, to_host, empty, random, load, load_source,
              synchronize, launch, properties):
        f.__doc__ = (dev[f.__name__].__doc__ or "") + " (emulator backend)"
        dev[f.__name__] = f
