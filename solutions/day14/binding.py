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
    # HINT: What does DLPack promise about memory, and which dtype does cupy lack that torch has?
    # HINT2: Two cases: an argument that is already cupy, and a torch tensor. The torch case goes through
    # HINT2: DLPack; the bfloat16 case first reinterprets the bits as a 16-bit integer type both sides know.
    # STUB: raise NotImplementedError("as_cupy: write it in days/day14/binding.py")
    if ops.framework(x) != "torch":
        return x
    torch, cp = _torch(), device.require_gpu()
    # The DLPack capsule straight from torch's C++ (to_dlpack): cupy.from_dlpack(x) would first have torch
    # order cupy's current stream after its own, in Python, on every call; current_stream made them one.
    if x.dtype == torch.bfloat16:
        return cp.from_dlpack(torch.utils.dlpack.to_dlpack(x.view(torch.int16))).view(cp.uint16)
    return cp.from_dlpack(torch.utils.dlpack.to_dlpack(x))
    # END EXERCISE


def to_caller(out, caller: ops.Tensor):
    """`out` (a cupy array) in the framework of the argument `caller` describes: for torch, a torch
    tensor on the same memory (bfloat16 when `caller` is), no copy."""
    # BEGIN EXERCISE
    # HINT: The same door the other way: which framework does the caller expect back, and how do you keep
    # HINT: the memory shared rather than copied?
    # STUB: raise NotImplementedError("to_caller: write it in days/day14/binding.py")
    if caller.framework != "torch":
        return out
    torch = _torch()
    # cupy's capsule with stream=-1 (DLPack's "no ordering needed": the kernel ran on torch's current stream),
    # which torch.from_dlpack takes as it is, without asking for torch's stream in Python.
    if caller.dtype == "bfloat16":
        return torch.from_dlpack(out.view(np.int16).__dlpack__(stream=-1)).view(torch.bfloat16)
    return torch.from_dlpack(out.__dlpack__(stream=-1))
    # END EXERCISE


@contextlib.contextmanager
def current_stream(*tensors: ops.Tensor):
    """Launches inside go to torch's current stream when an argument is a torch tensor, else to
    cupy's current stream (where they go anyway)."""
    # BEGIN EXERCISE
    # HINT: Whose stream orders the caller's work? A launch on any other stream may read the input before
    # HINT: the caller's earlier kernels have written it.
    # HINT2: Make cupy's current stream be torch's current stream (same handle, same device) for the duration
    # HINT2: of the `with` statement, and nothing else: no synchronisation.
    # STUB: raise NotImplementedError("current_stream: write it in days/day14/binding.py")
    index = next((t.device for t in tensors if t.framework == "torch"), None)
    if index is None:  # cupy arrays: cupy's current stream is the caller's
        yield
        return
    cp = device.require_gpu()
    # torch.cuda.current_stream(index).cuda_stream, without making Python objects (as torch.compile's code does)
    handle = _torch()._C._cuda_getCurrentRawStream(index)
    if cp.cuda.get_current_stream().ptr == handle:  # cupy launches there already (say, both on the default stream)
        yield
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # cupy 14 prefers Stream.from_external
        external = cp.cuda.ExternalStream(handle, index)
    with external:
        yield
    # END EXERCISE


def rmsnorm(x, weight, eps: float = 1e-6, out=None):
    """x * rsqrt(mean(x^2) + eps) * weight over the last axis (day 6's kernel): x [rows, d] and
    weight [d], float16 or bfloat16; the result is `out` ([rows, d], written) or a new array, in x's
    framework. Every argument is checked before anything is launched."""
    # BEGIN EXERCISE
    # HINT: What must hold before the first launch, and what does a caller who passed `out` expect back?
    # HINT2: Describe, then check every argument at once (shapes as named specs, dtypes), then launch day
    # HINT2: 6's kernel for x's dtype on the caller's stream, then hand the result back in the caller's
    # HINT2: framework.
    # HINT3: Checking all arguments in one call lets the shape names tie them together: `d` of the weight
    # HINT3: must be the `d` that x gave, and the error names the argument that disagrees. The kernel reads
    # HINT3: raw pointers, so every argument must be a cupy array of the right dtype by then.
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
