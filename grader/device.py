"""The one door to the GPU: cupy, kernel loading, launches, transfers and timing.

Notebooks and tests reach the device only through this module. Inputs are made by numpy on the host
and moved with `asarray`; results come back with `to_host`. On a GPU machine everything here hands
out real cupy objects (arrays, `cupy.RawModule`), so the course still teaches cupy.

bfloat16 has no numpy or cupy dtype of its own: on the host it is `ml_dtypes.bfloat16`, on the device
a uint16 array holding the same bits.

Without a CUDA GPU the PTX emulator (grader/emulator) takes the GPU's place: the same functions, with
numpy-backed device arrays and kernels interpreted on the CPU. COURSE_BACKEND=emulator|cupy chooses.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path

import ml_dtypes
import numpy as np

from grader import compiler

bfloat16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": bfloat16,
          "float64": np.dtype(np.float64), "int32": np.dtype(np.int32), "uint32": np.dtype(np.uint32),
          "int64": np.dtype(np.int64), "uint8": np.dtype(np.uint8)}


BACKEND_ENV = "COURSE_BACKEND"
BACKENDS = ("cupy", "emulator")


def backend() -> str:
    """'cupy' on a machine with a CUDA GPU, 'emulator' (the PTX emulator) on one without; $COURSE_BACKEND
    chooses explicitly, e.g. COURSE_BACKEND=emulator on a GPU machine."""
    name = os.environ.get(BACKEND_ENV, "").strip().lower()
    if not name:
        return "cupy" if _probe() is None else "emulator"
    if name not in BACKENDS:
        raise ValueError(f"{BACKEND_ENV}={name!r}: expected one of {', '.join(BACKENDS)}")
    return name


def emulated() -> bool:
    """True when kernels run on the PTX emulator: `gpu_available()` is then True (kernels run and are
    checked), but nothing is timed and cupy's streams, events and torch's CUDA tensors are absent."""
    return backend() == "emulator"


class NoGPU(RuntimeError):
    """Raised when a kernel must run and no CUDA GPU is usable."""


class KernelFault(RuntimeError):
    """A launched kernel failed (illegal address, misaligned access, trap...). The CUDA context is
    unusable after most of these: restart the notebook kernel (or rely on the grader's child process)."""


def dtype(name) -> np.dtype:
    """np.dtype from 'float16', 'bfloat16', np.float32 ...; a clear error for anything else."""
    if isinstance(name, str):
        if name not in DTYPES:
            raise ValueError(f"unknown dtype {name!r}: expected one of {', '.join(DTYPES)}")
        return DTYPES[name]
    return np.dtype(name)


@functools.cache
def _probe() -> str | None:
    """None when a GPU is usable, else the reason it is not."""
    try:
        import cupy
    except ImportError as e:
        return f"cupy is not installed ({e})"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001 - any driver error means "no GPU"
        return _driver_problem(cupy) or f"no CUDA GPU usable here ({e.__class__.__name__}: {e})"
    return None if n > 0 else "no CUDA GPU found (device count is 0)"


def _driver_problem(cupy) -> str | None:
    """What a person can act on when CUDA does not start: no driver at all, or one too old."""
    import ctypes

    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return "no GPU: this machine has no NVIDIA driver"
    driver, runtime = cupy.cuda.runtime.driverGetVersion(), cupy.cuda.runtime.runtimeGetVersion()
    if 0 < driver < runtime:
        return (f"the NVIDIA driver supports CUDA {driver // 1000}.{driver % 1000 // 10}, older than the "
                f"CUDA {runtime // 1000}.{runtime % 1000 // 10} of this cupy: update the driver, or use the "
                f"CUDA 12 wheels (COURSE_CUDA=12 ./course.sh ...)")
    return None


def gpu_available() -> bool:
    """True when kernels can run here: a CUDA GPU, or the emulator (see `emulated()`)."""
    return _probe() is None


def why_no_gpu() -> str | None:
    """None when kernels can run, else the reason they cannot."""
    return _probe()


def why_not_hardware() -> str | None:
    """None on a real CUDA GPU; else the reason (for what the emulator cannot do: timings, streams,
    torch tensors, compute-sanitizer)."""
    if emulated():
        return "kernels run on the PTX emulator here, not on a CUDA GPU" + (
            f" ({_probe()})" if _probe() else " (COURSE_BACKEND=emulator)")
    return _probe()


def require_gpu():
    """The cupy module, or NoGPU with a plain reason and what does work without a GPU."""
    reason = _probe()
    if reason:
        raise NoGPU(f"{reason}. Without a GPU you can still edit, compile (`python -m grader compile`) "
                    f"and read SASS (`python -m grader sass`); running kernels needs a CUDA GPU.")
    import cupy

    return cupy


# ---- memory -------------------------------------------------------------------------------------

def _storage(dt: np.dtype) -> np.dtype:
    return np.dtype(np.uint16) if dt == bfloat16 else dt


def asarray(host: np.ndarray):
    """Copy a numpy array to the device (bfloat16 goes as its uint16 bits)."""
    cp = require_gpu()
    host = np.ascontiguousarray(host)
    return cp.asarray(host.view(np.uint16) if host.dtype == bfloat16 else host)


def to_host(arr, as_dtype=None) -> np.ndarray:
    """Copy a device array back to numpy; `as_dtype='bfloat16'` re-reads uint16 bits as bfloat16."""
    cp = require_gpu()
    host = cp.asnumpy(arr)
    if as_dtype is not None and dtype(as_dtype) == bfloat16:
        return host.view(bfloat16)
    return host


_POISON = {np.dtype(np.uint16): 0x7FC0}  # a bfloat16 NaN; float16 gets NaN through full()


def empty(shape, dt="float32"):
    """A device array filled with poison (NaN for floats, 0xFF bytes for integers): any element the
    kernel fails to write is caught by the checks."""
    cp = require_gpu()
    dt = dtype(dt)
    store = _storage(dt)
    if dt == bfloat16:
        return cp.full(shape, _POISON[store], dtype=store)
    if dt.kind == "f":
        return cp.full(shape, np.nan, dtype=dt)
    out = cp.empty(shape, dtype=dt)
    out.view(np.uint8).fill(0xFF)
    return out


def random(shape, dt="float32", seed: int = 0):
    """Standard-normal data made on the device (for large benchmark inputs; checks use numpy)."""
    cp = require_gpu()
    x = cp.random.default_rng(seed).standard_normal(shape, dtype=np.float32)
    dt = dtype(dt)
    if dt == bfloat16:
        return (x.view(np.uint32) >> 16).astype(np.uint16)  # truncation to bf16 bits
    return x.astype(dt)


# ---- kernels ------------------------------------------------------------------------------------

def load(path: str | os.PathLike, options: tuple[str, ...] = ()):
    """Compile a .cu file into a `cupy.RawModule` with the course's options, eagerly, so that compile
    errors surface here as `CompileError` naming the file and line."""
    cp = require_gpu()
    path = Path(path)
    source = compiler.read_source(path)
    return _compile(cp, source, str(path), compiler.options(None, tuple(options)))


def load_source(code: str, name: str = "inline.cu", options: tuple[str, ...] = ()):
    """Compile CUDA C written in a notebook cell into a `cupy.RawModule`."""
    cp = require_gpu()
    return _compile(cp, code, name, compiler.options(None, tuple(options)))


def _compile(cp, source: str, name: str, opts: tuple[str, ...]):
    module = cp.RawModule(code=source, options=opts)
    try:
        module.compile()
    except cp.cuda.compiler.CompileException as e:
        raise compiler.CompileError(name, str(e)) from None
    return module


def synchronize(what: str = "kernel") -> None:
    """Wait for the GPU; a fault in the work just launched becomes `KernelFault` naming `what`."""
    cp = require_gpu()
    try:
        cp.cuda.get_current_stream().synchronize()
    except cp.cuda.runtime.CUDARuntimeError as e:
        raise KernelFault(f"{what} failed on the GPU: {e}") from None
    except cp.cuda.driver.CUDADriverError as e:
        raise KernelFault(f"{what} failed on the GPU: {e}") from None


def launch(kernel, grid, block, args, shared_mem: int = 0, what: str | None = None) -> None:
    """Launch and wait, turning a launch or run-time error into a clear `KernelFault`."""
    cp = require_gpu()
    what = what or getattr(kernel, "name", "kernel")
    try:
        kernel(tuple(grid), tuple(block), tuple(args), shared_mem=shared_mem)
    except (cp.cuda.runtime.CUDARuntimeError, cp.cuda.driver.CUDADriverError) as e:
        raise KernelFault(f"launching {what} with grid={tuple(grid)} block={tuple(block)} "
                          f"failed: {e}") from None
    synchronize(what)


# ---- information --------------------------------------------------------------------------------

def properties() -> dict:
    """Name, SMs, L2, memory and compute capability of the current GPU."""
    cp = require_gpu()
    dev = cp.cuda.Device()
    p = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
    return {"name": name, "sm": f"sm_{p['major']}{p['minor']}", "sms": p["multiProcessorCount"],
            "l2_bytes": p["l2CacheSize"], "memory_bytes": p["totalGlobalMem"],
            "smem_per_block_optin": p.get("sharedMemPerBlockOptin", 0)}


if backend() == "emulator":
    from grader.emulator.backend import install

    install(globals())
