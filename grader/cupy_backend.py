"""The device backend of a machine with a CUDA GPU: cupy arrays, `cupy.RawModule`s, launches checked
for faults, and timing with CUDA events (the L2 cache flushed between runs).

Everything it hands out is real cupy, so the course still teaches cupy. cupy itself is imported at
first use: `probe()` says whether a GPU is usable, and why not.
"""
from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np

from grader import compiler
from grader.backend import Backend, KernelFault, NoGPU
from grader.dtypes import bfloat16, dtype, poison, storage
from grader.messages import say


@functools.cache
def probe() -> str | None:
    """None when a GPU is usable, else the reason it is not."""
    try:
        import cupy
    except ImportError as e:
        return say("backend.no_cupy", error=e)
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001 - any driver error means "no GPU"
        return driver_problem(cupy) or say("backend.unusable", error=f"{e.__class__.__name__}: {e}")
    return None if n > 0 else say("backend.none_found")


def driver_problem(cupy) -> str | None:
    """What a person can act on when CUDA does not start: no driver at all, or one too old."""
    import ctypes

    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return say("backend.no_driver")
    driver, runtime = cupy.cuda.runtime.driverGetVersion(), cupy.cuda.runtime.runtimeGetVersion()
    if 0 < driver < runtime:
        return say("backend.old_driver", driver=f"{driver // 1000}.{driver % 1000 // 10}",
                   runtime=f"{runtime // 1000}.{runtime % 1000 // 10}")
    return None


class CupyBackend(Backend):
    """A CUDA GPU through cupy."""

    name, timed, full_sizes = "cupy", True, True
    any_arch, survives_faults, hardware_counters, cubins = False, False, True, True

    def why_no_gpu(self) -> str | None:
        return probe()

    def why_not_hardware(self) -> str | None:
        return probe()

    def require_gpu(self):
        reason = probe()
        if reason:
            raise NoGPU(say("backend.needs_gpu", reason=reason))
        import cupy

        return cupy

    # ---- memory ---------------------------------------------------------------------------------

    def asarray(self, host: np.ndarray):
        cp = self.require_gpu()
        host = np.ascontiguousarray(host)
        return cp.asarray(host.view(np.uint16) if host.dtype == bfloat16 else host)

    def to_host(self, arr, as_dtype=None) -> np.ndarray:
        cp = self.require_gpu()
        host = cp.asnumpy(arr)
        if as_dtype is not None and dtype(as_dtype) == bfloat16:
            return host.view(bfloat16)
        return host

    def empty(self, shape, dt="float32", guard: int = 0):
        cp = self.require_gpu()  # `guard` only words the emulator's messages; compute-sanitizer has its own
        dt = dtype(dt)
        store = storage(dt)
        if dt == bfloat16 or dt.kind == "f":
            bits_dtype, bits = poison(dt)
            return cp.full(shape, bits, dtype=bits_dtype).view(store)
        out = cp.empty(shape, dtype=dt)
        out.view(np.uint8).fill(0xFF)
        return out

    def random(self, shape, dt="float32", seed: int = 0):
        cp = self.require_gpu()
        x = cp.random.default_rng(seed).standard_normal(shape, dtype=np.float32)
        dt = dtype(dt)
        if dt == bfloat16:
            return (x.view(np.uint32) >> 16).astype(np.uint16)  # truncation to bf16 bits
        return x.astype(dt)

    # ---- kernels --------------------------------------------------------------------------------

    def compile(self, path: str | os.PathLike, options: tuple[str, ...] = ()):
        """The file compiled by the course's NVRTC for this GPU (sm_90a for wgmma and setmaxnreg on
        Hopper): the compile the technique check's SASS reads too (`compiler.SASS_OPTIONS`,
        `grader.compile_cache`), so a checking child compiles a file once."""
        return compiler.compile_file(path, self.arch(), extra=(*compiler.SASS_OPTIONS, *options))

    def load(self, path: str | os.PathLike, options: tuple[str, ...] = ()):
        cp = self.require_gpu()
        compiled = self.compile(path, options)
        return _load_cubin(cp, compiled.cubin, compiled.source)

    def load_source(self, code: str, name: str = "inline.cu", options: tuple[str, ...] = ()):
        cp = self.require_gpu()
        return _compile(cp, code, name, compiler.options(None, tuple(options)))

    def load_cubin(self, path):
        return self.require_gpu().RawModule(path=str(path))

    def current_device(self) -> int:
        return self.require_gpu().cuda.runtime.getDevice()

    def arch(self) -> str:
        return f"sm_{self.require_gpu().cuda.Device().compute_capability}"  # cupy keeps it: no driver call

    def synchronize(self, what: str = "kernel") -> None:
        cp = self.require_gpu()
        try:
            cp.cuda.get_current_stream().synchronize()
        except cp.cuda.runtime.CUDARuntimeError as e:
            raise KernelFault(say("backend.failed", what=what, error=e)) from None
        except cp.cuda.driver.CUDADriverError as e:
            raise KernelFault(say("backend.failed", what=what, error=e)) from None

    def launch(self, kernel, grid, block, args, shared_mem: int = 0, what: str | None = None) -> None:
        cp = self.require_gpu()
        what = what or getattr(kernel, "name", "kernel")
        try:
            kernel(tuple(grid), tuple(block), tuple(args), shared_mem=shared_mem)
        except (cp.cuda.runtime.CUDARuntimeError, cp.cuda.driver.CUDADriverError) as e:
            raise KernelFault(say("backend.launch_failed", what=what, grid=tuple(grid), block=tuple(block),
                                  error=e)) from None
        self.synchronize(what)

    def properties(self) -> dict:
        cp = self.require_gpu()
        dev = cp.cuda.Device()
        p = cp.cuda.runtime.getDeviceProperties(dev.id)
        name = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
        return {"name": name, "sm": f"sm_{p['major']}{p['minor']}", "sms": p["multiProcessorCount"],
                "l2_bytes": p["l2CacheSize"], "memory_bytes": p["totalGlobalMem"],
                "smem_per_block_optin": p.get("sharedMemPerBlockOptin", 0)}

    def tensor_map(self, array, box: tuple[int, ...], swizzle: int, elem: int):
        """cuTensorMapEncodeTiled (cuda.bindings); passed by value as a 64-byte-aligned 128-byte struct."""
        from cuda.bindings import driver as drv

        cp = self.require_gpu()
        kind = "BFLOAT16" if "bfloat16" in str(array.dtype) else {1: "UINT8", 2: "FLOAT16", 4: "FLOAT32"}[elem]
        shape, strides = tuple(array.shape), tuple(int(s) for s in array.strides)
        rank = len(shape)
        err, tmap = drv.cuTensorMapEncodeTiled(
            getattr(drv.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{kind}"), rank, int(array.data.ptr),
            [drv.cuuint64_t(d) for d in shape[::-1]],
            [drv.cuuint64_t(s) for s in strides[::-1][1:]],  # rank - 1 strides: the innermost is implied
            [drv.cuuint32_t(b) for b in box[::-1]], [drv.cuuint32_t(1)] * rank,
            drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
            getattr(drv.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{swizzle}B" if swizzle else
                    "CU_TENSOR_MAP_SWIZZLE_NONE"),
            drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
            drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
        if err != drv.CUresult.CUDA_SUCCESS:
            raise ValueError(f"tensor_map: cuTensorMapEncodeTiled failed: {err}")
        struct = cp.make_aligned_dtype(np.dtype([("v", np.uint64, (16,))]), alignment=64)
        arg = np.zeros((), struct)
        arg["v"] = np.array(tmap.opaque, np.uint64)
        return arg[()]

    # ---- timing ---------------------------------------------------------------------------------

    @functools.cached_property
    def _flush_buffer(self):
        cp = self.require_gpu()
        l2 = self.properties()["l2_bytes"] or (50 << 20)
        return cp.empty(2 * l2, dtype=np.uint8)

    def flush_l2(self) -> None:
        """Evict the L2 cache by writing a buffer twice its size."""
        self._flush_buffer.fill(1)

    def time_ms(self, fn, *, warmup: int = 3, repeat: int = 20, flush: bool = True) -> list[float]:
        """CUDA events around each of `repeat` runs, L2 flushed before each."""
        cp = self.require_gpu()
        if warmup < 0 or repeat < 1:
            raise ValueError(f"warmup must be >= 0 and repeat >= 1 (got {warmup}, {repeat})")
        for _ in range(warmup):
            fn()
        self.synchronize("warm-up")
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        times = []
        for _ in range(repeat):
            if flush:
                self.flush_l2()
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop))
        self.synchronize("timed runs")
        return times

    def memory_totals(self) -> None:
        """None: on a GPU the design is judged by its bandwidth, not by counted statistics."""
        return None

    def memory_report(self) -> None:
        """None: a GPU's memory statistics come from Nsight Compute (`python -m grader profile`)."""
        return None


@functools.cache
def _cubin_folder() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="course-cubin-")  # removed when the process ends


@functools.cache
def _module_class(cp) -> type:
    class CompiledModule(cp.RawModule):
        """A `cupy.RawModule` loaded from a cubin that keeps the CUDA source it was compiled from in
        `code`, as a module cupy compiles keeps it (day 10's configurations and day 13's JIT render it)."""
        code = property(lambda self: self.source)

    return CompiledModule


def _load_cubin(cp, cubin: bytes, source: str):
    """A `cupy.RawModule` of `cubin` (compiled from `source`), loaded now (cupy loads from a file)."""
    file = Path(_cubin_folder().name) / f"{hashlib.sha256(cubin).hexdigest()[:24]}.cubin"
    if not file.is_file():
        file.write_bytes(cubin)
    module = _module_class(cp)(path=str(file))
    module.source = source
    module.module  # noqa: B018 - cupy loads lazily; a bad cubin fails here, not at the first launch
    return module


def _compile(cp, source: str, name: str, opts: tuple[str, ...]):
    module = cp.RawModule(code=source, options=opts)
    try:
        module.compile()
    except cp.cuda.compiler.CompileException as e:
        raise compiler.CompileError(name, str(e), source) from None
    return module
