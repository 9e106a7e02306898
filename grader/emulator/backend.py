"""The device backend without a GPU (`COURSE_BACKEND=emulator`, or no CUDA GPU): the PTX emulator.

Arrays are `DeviceArray`s (numpy in emulated device memory), modules are emulator `Module`s, launches run
the whole grid on the CPU. `require_gpu()` returns a numpy-backed subset of cupy (grader/emulator/
cupy_shim.py); timings are not emulated: `time_ms` and anything under `cupy.cuda` (events, ...) raise
NoTiming saying so, and the memory statistics of each launch stand in for them (`memory_report()`).
"""
from __future__ import annotations

import numpy as np

from grader.backend import Backend, KernelFault, NoGPU, NoTiming
from grader.dtypes import bfloat16, dtype, poison, storage
from grader.emulator import EmulatorFault, arch, cupy_shim, compiled as _compile, load_source as _load_source, load as _load
from grader.emulator.memory import DeviceArray
from grader.messages import say


class EmulatorBackend(Backend):
    """The PTX emulator. `gpu_problem()` says why no CUDA GPU is used (None when one is there and
    COURSE_BACKEND=emulator chose the emulator)."""

    name, timed, full_sizes = "emulator", False, False
    any_arch, survives_faults, hardware_counters, cubins = True, True, False, False

    def __init__(self, gpu_problem=lambda: None):
        self._gpu_problem = gpu_problem

    def why_no_gpu(self) -> None:
        return None

    def why_not_hardware(self) -> str:
        problem = self._gpu_problem()
        return say("backend.not_hardware", why=problem or "COURSE_BACKEND=emulator")

    def require_gpu(self):
        return cupy_shim

    # ---- memory ---------------------------------------------------------------------------------

    def asarray(self, host):
        host = np.ascontiguousarray(host)
        return DeviceArray.from_host(host.view(np.uint16) if host.dtype == bfloat16 else host)

    def to_host(self, arr, as_dtype=None):
        if not isinstance(arr, DeviceArray):
            raise TypeError(say("emu.to_host", kind=type(arr).__name__))
        host = arr.get()
        if as_dtype is not None and dtype(as_dtype) == bfloat16:
            return host.view(bfloat16)
        return host

    def empty(self, shape, dt="float32", guard: int = 0):
        dt = dtype(dt)
        out = DeviceArray.empty(shape, storage(dt))
        if guard:
            out.mark_guard(guard)
        if dt == bfloat16 or dt.kind == "f":
            bits_dtype, bits = poison(dt)
            out.view(bits_dtype).fill(bits)
        else:
            out.view(np.uint8).fill(0xFF)
        return out

    def random(self, shape, dt="float32", seed: int = 0):
        x = np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)
        dt = dtype(dt)
        if dt == bfloat16:
            return DeviceArray.from_host((x.view(np.uint32) >> 16).astype(np.uint16))
        return DeviceArray.from_host(x.astype(dt))

    # ---- kernels --------------------------------------------------------------------------------

    def compile(self, path, options=()):
        return _compile(path, tuple(options))

    def load(self, path, options=()):
        return _load(path, tuple(options))

    def load_source(self, code, name="inline.cu", options=()):
        return _load_source(code, name, tuple(options))

    def load_cubin(self, path):
        raise NoGPU(say("emulator.cubin", path=path))

    def current_device(self) -> int:
        return 0  # one emulated device

    def arch(self) -> str:
        return arch()

    def synchronize(self, what="kernel") -> None:
        """Nothing to wait for: a launch returns when the whole grid has run."""

    def launch(self, kernel, grid, block, args, shared_mem=0, what=None) -> None:
        what = what or getattr(kernel, "name", "kernel")
        try:
            kernel(tuple(grid) if not isinstance(grid, int) else (grid,),
                   tuple(block) if not isinstance(block, int) else (block,), tuple(args), shared_mem=shared_mem)
        except EmulatorFault as e:
            raise KernelFault(say("emulator.fault", what=what, fault=e)) from None

    def properties(self) -> dict:
        return {"name": say("backend.emulator"), "sm": arch(), "sms": 1, "l2_bytes": 50 << 20,
                "memory_bytes": 8 << 30, "smem_per_block_optin": 227 << 10}

    def tensor_map(self, array, box: tuple[int, ...], swizzle: int, elem: int) -> np.ndarray:
        from grader.emulator.tensor_maps import encode  # the course's own encoding of the 128 bytes

        return encode(int(array.ptr), tuple(array.shape), tuple(int(s) for s in array.strides), elem, box, swizzle)

    # ---- timing: none; memory statistics instead ------------------------------------------------

    def flush_l2(self) -> None:
        raise NoTiming(say("emulator.no_flush", why=cupy_shim.no_timing()))

    def time_ms(self, fn, *, warmup: int = 3, repeat: int = 20, flush: bool = True) -> list[float]:
        raise NoTiming(cupy_shim.no_timing())

    def memory_totals(self) -> dict:
        """grader.emulator.report's totals of the last launch's loads: global loads (requests, sectors, ideal
        sectors, bytes) and shared memory (requests, wavefronts, ideal, worst n-way)."""
        from grader.emulator import report

        return report.totals(loads_only=True)

    def memory_report(self) -> str:
        """grader.emulator.report's table of the last launch: sectors per request, bank conflicts."""
        from grader.emulator import report

        return report.memory_table()
