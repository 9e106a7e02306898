"""The one door to the GPU: cupy, kernel loading, launches, transfers and timing.

Notebooks and tests reach the device only through this module. Inputs are made by numpy on the host
and moved with `asarray`; results come back with `to_host`. On a GPU machine everything here hands
out real cupy objects (arrays, `cupy.RawModule`), so the course still teaches cupy.

bfloat16 has no numpy or cupy dtype of its own: on the host it is `ml_dtypes.bfloat16`, on the device
a uint16 array holding the same bits.

Behind these functions is one backend (grader/backend.py): `CupyBackend` on a machine with a CUDA GPU,
else the PTX emulator's `EmulatorBackend` (the same functions, with numpy-backed device arrays and
kernels interpreted on the CPU). COURSE_BACKEND=emulator|cupy chooses. `current()` is the backend in
use; ask it what it can do (`current().timed`, `.full_sizes`, `.any_arch`, `.survives_faults`,
`.hardware_counters`, `.cubins`, `.memory_report()`), not which one it is.
"""
from __future__ import annotations

import functools
import os

import numpy as np

from grader import cupy_backend
from grader.backend import Backend, KernelFault, NoGPU, NoTiming
from grader.dtypes import DTYPES, bfloat16, dtype
from grader.messages import say

__all__ = ["BACKEND_ENV", "BACKENDS", "DTYPES", "Backend", "KernelFault", "NoGPU", "NoTiming", "arch", "asarray",
           "backend", "bfloat16", "current", "current_device", "dtype", "emulated", "empty", "gpu_available", "launch",
           "load", "load_cubin", "load_source", "properties", "random", "require_gpu", "synchronize", "to_host",
           "why_no_gpu", "why_not_hardware"]

BACKEND_ENV = "COURSE_BACKEND"
BACKENDS = ("cupy", "emulator")


def backend() -> str:
    """'cupy' on a machine with a CUDA GPU, 'emulator' (the PTX emulator) on one without; $COURSE_BACKEND
    chooses explicitly, e.g. COURSE_BACKEND=emulator on a GPU machine."""
    return _backend_named(os.environ.get(BACKEND_ENV, ""))


@functools.cache
def _backend_named(value: str) -> str:
    """`backend()` for one value of $COURSE_BACKEND, worked out once (a launch asks it several times)."""
    name = value.strip().lower()
    if not name:
        return "cupy" if cupy_backend.probe() is None else "emulator"
    if name not in BACKENDS:
        raise ValueError(say("backend.unknown", setting=f"{BACKEND_ENV}={name!r}", known=", ".join(BACKENDS)))
    return name


@functools.cache
def _make(name: str) -> Backend:
    if name == "emulator":
        from grader.emulator.backend import EmulatorBackend

        return EmulatorBackend(gpu_problem=cupy_backend.probe)
    return cupy_backend.CupyBackend()


def current() -> Backend:
    """The backend in use, made at first use (and again only if $COURSE_BACKEND is changed, as tests do)."""
    return _make(backend())


def emulated() -> bool:
    """True when kernels run on the PTX emulator: `gpu_available()` is then True (kernels run and are
    checked), but nothing is timed and cupy's streams, events and torch's CUDA tensors are absent.
    For what the device can do, ask `current()`'s capabilities instead (tests/test_device_backends.py
    counts the calls of this one)."""
    return backend() == "emulator"


# ---- what this machine can do -------------------------------------------------------------------

def gpu_available() -> bool:
    """True when kernels can run here: a CUDA GPU, or the emulator (see `emulated()`)."""
    return current().gpu_available()


def why_no_gpu() -> str | None:
    """None when kernels can run, else the reason they cannot."""
    return current().why_no_gpu()


def why_not_hardware() -> str | None:
    """None on a real CUDA GPU; else the reason (for what the emulator cannot do: timings, streams,
    torch tensors, compute-sanitizer)."""
    return current().why_not_hardware()


def require_gpu():
    """The cupy module (on the emulator, its numpy-backed subset), or NoGPU with a plain reason and what
    does work without a GPU."""
    return current().require_gpu()


def properties() -> dict:
    """Name, SMs, L2, memory and compute capability of the current GPU."""
    return current().properties()


def tensor_map(array, box: tuple[int, ...], swizzle: int, elem: int):
    """A TMA tensor map's kernel argument; use grader.tensor_map.tensor_map, which checks the request."""
    return current().tensor_map(array, box, swizzle, elem)


# ---- memory -------------------------------------------------------------------------------------

def asarray(host: np.ndarray):
    """Copy a numpy array to the device (bfloat16 goes as its uint16 bits)."""
    return current().asarray(host)


def to_host(arr, as_dtype=None) -> np.ndarray:
    """Copy a device array back to numpy; `as_dtype='bfloat16'` re-reads uint16 bits as bfloat16."""
    return current().to_host(arr, as_dtype)


def empty(shape, dt="float32", guard: int = 0):
    """A device array filled with poison (NaN for floats, 0xFF bytes for integers): any element the
    kernel fails to write is caught by the checks. `guard`: how many of its last rows (elements, for
    1-D) are the grader's, past the kernel's array, to stay untouched; the emulator's out-of-bounds
    message then counts in the kernel's array, not the padded allocation."""
    return current().empty(shape, dt, guard)


def random(shape, dt="float32", seed: int = 0):
    """Standard-normal data made on the device (for large benchmark inputs; checks use numpy)."""
    return current().random(shape, dt, seed)


# ---- kernels ------------------------------------------------------------------------------------

def compile(path: str | os.PathLike, options: tuple[str, ...] = ()):  # noqa: A001 - the backend's operation
    """The `compiler.Compiled` of a .cu file as `load` compiles it here (through the compile cache): what
    `runner.precompile` compiles ahead of the loads."""
    return current().compile(path, options)


def load(path: str | os.PathLike, options: tuple[str, ...] = ()):
    """Compile a .cu file into a `cupy.RawModule` with the course's options, eagerly, so that compile
    errors surface here as `CompileError` naming the file and line."""
    return current().load(path, options)


def load_source(code: str, name: str = "inline.cu", options: tuple[str, ...] = ()):
    """Compile CUDA C written in a notebook cell into a `cupy.RawModule`."""
    return current().load_source(code, name, options)


def load_cubin(path: str | os.PathLike):
    """A `cupy.RawModule` of a cubin built for `arch()` (grader.jit's cache); only where `current().cubins`."""
    return current().load_cubin(path)


def current_device() -> int:
    """The index of the device kernels launch on now: cupy's current device (0 on the emulator)."""
    return current().current_device()


def arch() -> str:
    """The architecture kernels are compiled for here, like 'sm_90' (the emulator's: sm_80 unless set)."""
    return current().arch()


def synchronize(what: str = "kernel") -> None:
    """Wait for the GPU; a fault in the work just launched becomes `KernelFault` naming `what`."""
    current().synchronize(what)


def launch(kernel, grid, block, args, shared_mem: int = 0, what: str | None = None) -> None:
    """Launch and wait, turning a launch or run-time error into a clear `KernelFault`."""
    current().launch(kernel, grid, block, args, shared_mem=shared_mem, what=what)
