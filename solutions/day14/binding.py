"""Day 14, exercise 1: the Python binding of a kernel, as FlashInfer's `flashinfer.norm.rmsnorm`.

    y = rmsnorm(x, weight)               # cupy in, cupy out
    y = rmsnorm(x_t, weight_t)           # torch in, torch out, on torch's current stream
    rmsnorm(x, weight, out=y)            # into a buffer of the caller's

Three doors, each written once: `as_cupy` (a torch tensor seen by cupy without a copy, through
DLPack), `to_caller` (the way back) and `current_stream` (the caller's stream). `grader.jit.ops` goes
through these three (yours, or the course's with --solutions) for every operation of the capstone,
and `ops.rmsnorm` is this file's `rmsnorm`.

The course gives `ops.describe` (what an argument is: framework, shape, dtype, device, contiguity),
`ops.check` (those facts against shape specs such as ("rows", "d"): a one-line error naming the
argument) and `ops.kernel` (a compiled kernel of the course). The grader runs `rmsnorm` on a stream
kept busy, so a launch anywhere else reads its input too early.
"""
from __future__ import annotations

import contextlib
import warnings

import numpy as np

from grader import device
from grader.jit import ops


def _torch():
    """The torch module, imported only when a caller passes torch tensors (torch is optional)."""
    import torch

    return torch


def as_cupy(x):
    """A cupy view of a cupy array or CUDA torch tensor: the same memory, no copy (DLPack). A torch
    bfloat16 tensor comes as uint16 (cupy has no bfloat16): the same bits, which the bf16 kernels read."""
    # BEGIN EXERCISE
    # HINT: a cupy array is already what a launch takes; a torch tensor goes through cupy.from_dlpack,
    # HINT: which shares its memory. For bfloat16, view the tensor as torch.int16 first, then the cupy
    # HINT: array as uint16.
    # HINT2: if ops.framework(x) != "torch": return x; else torch, cp = _torch(), device.require_gpu();
    # HINT2: return cp.from_dlpack(x.view(torch.int16)).view(cp.uint16) for bf16, cp.from_dlpack(x) otherwise
    # STUB: raise NotImplementedError("as_cupy: write it in days/day14/binding.py")
    if ops.framework(x) != "torch":
        return x
    torch, cp = _torch(), device.require_gpu()
    if x.dtype == torch.bfloat16:
        return cp.from_dlpack(x.view(torch.int16)).view(cp.uint16)
    return cp.from_dlpack(x)
    # END EXERCISE


def to_caller(out, caller: ops.Tensor):
    """`out` (a cupy array) in the framework of the argument `caller` describes: for torch, a torch
    tensor on the same memory (bfloat16 when `caller` is), no copy."""
    # BEGIN EXERCISE
    # HINT: the way back: torch.from_dlpack(out) shares out's memory; a bf16 result is uint16 in cupy:
    # HINT: view it as int16 for torch, then the torch tensor as torch.bfloat16.
    # STUB: raise NotImplementedError("to_caller: write it in days/day14/binding.py")
    if caller.framework != "torch":
        return out
    torch = _torch()
    if caller.dtype == "bfloat16":
        return torch.from_dlpack(out.view(np.int16)).view(torch.bfloat16)
    return torch.from_dlpack(out)
    # END EXERCISE


@contextlib.contextmanager
def current_stream(*tensors: ops.Tensor):
    """Launches inside go to torch's current stream when an argument is a torch tensor, else to
    cupy's current stream (where they go anyway)."""
    # BEGIN EXERCISE
    # HINT: cupy launches on its current stream; to make that torch's, wrap torch.cuda.current_stream()
    # HINT: (its handle: .cuda_stream, its device: .device_index) in cupy.cuda.ExternalStream and enter
    # HINT: it around the yield. No synchronization anywhere: the caller's stream orders the work.
    # HINT2: warnings.catch_warnings() + simplefilter("ignore", DeprecationWarning) around ExternalStream
    # HINT2: (cupy 14 prefers Stream.from_external; ExternalStream works on 13 and 14)
    # STUB: raise NotImplementedError("current_stream: write it in days/day14/binding.py")
    if not any(t.framework == "torch" for t in tensors):
        yield
        return
    cp = device.require_gpu()
    stream = _torch().cuda.current_stream()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        external = cp.cuda.ExternalStream(stream.cuda_stream, stream.device_index)
    with external:
        yield
    # END EXERCISE


def rmsnorm(x, weight, eps: float = 1e-6, out=None):
    """x * rsqrt(mean(x^2) + eps) * weight over the last axis (day 6's kernel): x [rows, d] and
    weight [d], float16 or bfloat16; the result is `out` ([rows, d], written) or a new array, in x's
    framework. Every argument is checked before anything is launched."""
    # BEGIN EXERCISE
    # HINT: describe each argument (ops.describe), check them all in ONE ops.check call with shape
    # HINT: specs (out too, when given), before any launch; then, inside current_stream, allocate out
    # HINT: if needed, and launch ops.kernel("day06", "rmsnorm", "rmsnorm_f16" or "_bf16") with grid
    # HINT: (rows,), block (256,) and arguments (out, x, weight, int32 d, float32 eps), all as cupy.
    # HINT2: specs: [(tx, ("rows", "d")), (tw, ("d",))] + [(to, ("rows", "d"))] with out; dtypes ops.HALF;
    # HINT2: dims = ops.check(specs, ops.HALF) gives {"rows": ..., "d": ...}
    # HINT3: the kernel's suffix is ops.SUFFIX[tx.dtype]; return to_caller(out, tx) (or `out` itself)
    # STUB: raise NotImplementedError("rmsnorm: write it in days/day14/binding.py")
    tx, tw = ops.describe("x", x), ops.describe("weight", weight)
    specs = [(tx, ("rows", "d")), (tw, ("d",))]
    if out is not None:
        specs.append((ops.describe("out", out), ("rows", "d")))
    dims = ops.check(specs, ops.HALF)
    kernel = ops.kernel("day06", "rmsnorm", f"rmsnorm_{ops.SUFFIX[tx.dtype]}")
    with current_stream(*(t for t, _ in specs)):
        xc = as_cupy(x)
        result = device.require_gpu().empty_like(xc) if out is None else as_cupy(out)
        kernel((dims["rows"],), (256,), (result, xc, as_cupy(weight), np.int32(dims["d"]), np.float32(eps)))
    return out if out is not None else to_caller(result, tx)
    # END EXERCISE
