"""NVRTC, called directly: CUDA C source text to a cubin, with or without a GPU.

`cuda.bindings.nvrtc` is preferred (it returns the whole cubin, see platform notes); where it is not
installed, cupy's own NVRTC binding does the same job (cupy loads its cubins that way).
"""
from __future__ import annotations

import functools
import importlib.util

from grader.compiler import CompileError, nvrtc_output


def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # the parent package is missing
        return False


@functools.cache
def backend() -> str:
    """'cuda-bindings' or 'cupy': the NVRTC binding this process compiles with."""
    if _has("cuda.bindings.nvrtc"):
        return "cuda-bindings"
    if _has("cupy_backends.cuda.libs.nvrtc"):
        return "cupy"
    raise RuntimeError("the JIT needs NVRTC: pip install cuda-bindings nvidia-cuda-nvrtc (or cupy)")


@functools.cache
def version() -> str:
    """NVRTC's version, part of every cache key (a new compiler may emit different code)."""
    if backend() == "cuda-bindings":
        from cuda.bindings import nvrtc

        _, major, minor = nvrtc.nvrtcVersion()
    else:
        from cupy_backends.cuda.libs import nvrtc

        major, minor = nvrtc.getVersion()
    return f"{major}.{minor}"


def compile_cubin(source: str, filename: str, options: tuple[str, ...]) -> bytes:
    """The cubin of `source` for the `-arch=sm_XX` in `options`; CompileError with NVRTC's log."""
    if backend() == "cuda-bindings":
        return _with_cuda_bindings(source, filename, options)
    return _with_cupy(source, filename, options)


def _with_cuda_bindings(source: str, filename: str, options: tuple[str, ...]) -> bytes:
    from cuda.bindings import nvrtc

    ok = nvrtc.nvrtcResult.NVRTC_SUCCESS
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), filename.encode(), 0, [], [])
    if err != ok:
        raise CompileError(filename, f"nvrtcCreateProgram: {err}")
    try:
        opts = [o.encode() for o in options]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        if err != ok:
            log = nvrtc_output(prog, nvrtc.nvrtcGetProgramLogSize, nvrtc.nvrtcGetProgramLog)
            raise CompileError(filename, log.rstrip(b"\x00").decode(errors="replace"))
        return nvrtc_output(prog, nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _with_cupy(source: str, filename: str, options: tuple[str, ...]) -> bytes:
    from cupy_backends.cuda.libs import nvrtc

    prog = nvrtc.createProgram(source, filename, (), ())
    try:
        try:
            nvrtc.compileProgram(prog, list(options))
        except nvrtc.NVRTCError:
            raise CompileError(filename, nvrtc.getProgramLog(prog)) from None
        return bytes(nvrtc.getCUBIN(prog))
    finally:
        nvrtc.destroyProgram(prog)
