# Your exercise file. Generated from solutions/day14/binding.py by `python -m grader stubs`;
# edit freely: regenerating never overwrites a file you changed.
# stub-sha256: 1c3c7f6558dc9cdb
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
    # TODO: your code here.
    #   Hint: What does DLPack promise about memory, and which dtype does cupy lack that torch has?
    raise NotImplementedError("as_cupy: write it in days/day14/binding.py")


def to_caller(out, caller: ops.Tensor):
    """`out` (a cupy array) in the framework of the argument `caller` describes: for torch, a torch
    tensor on the same memory (bfloat16 when `caller` is), no copy."""
    # TODO: your code here.
    #   Hint: The same door the other way: which framework does the caller expect back, and how do you keep
    #   Hint: the memory shared rather than copied?
    raise NotImplementedError("to_caller: write it in days/day14/binding.py")


@contextlib.contextmanager
def current_stream(*tensors: ops.Tensor):
    """Launches inside go to torch's current stream when an argument is a torch tensor, else to
    cupy's current stream (where they go anyway)."""
    # TODO: your code here.
    #   Hint: Whose stream orders the caller's work? A launch on any other stream may read the input before
    #   Hint: the caller's earlier kernels have written it.
    raise NotImplementedError("current_stream: write it in days/day14/binding.py")


def rmsnorm(x, weight, eps: float = 1e-6, out=None):
    """x * rsqrt(mean(x^2) + eps) * weight over the last axis (day 6's kernel): x [rows, d] and
    weight [d], float16 or bfloat16; the result is `out` ([rows, d], written) or a new array, in x's
    framework. Every argument is checked before anything is launched."""
    # TODO: your code here.
    #   Hint: What must hold before the first launch, and what does a caller who passed `out` expect back?
    raise NotImplementedError("rmsnorm: write it in days/day14/binding.py")
