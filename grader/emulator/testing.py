"""Small PTX kernels for the emulator's unit tests: a body of instructions between a standard prologue
(out pointer, thread index) and epilogue, run on one block, results read back per thread.

    run_ptx("add.s32 %r2, %r1, 5;", threads=4)  -> uint32 per thread (%r2), %r1 = tid.x

Registers available: %r0-%r63 (b32), %rd0-%rd31 (b64), %f0-%f31 (f32), %fd0-%fd15 (f64), %h0-%h15 (b16),
%p0-%p15 (pred). %rd1 is `out`, %rd2 `in` (an optional input array), %rd3 = &out[tid], %rd4 = &in[tid]
(4-byte elements); %r1 = tid.x.
"""
from __future__ import annotations

import numpy as np

from grader.emulator.memory import DeviceArray
from grader.emulator.program import Module

HEADER = """.version 8.0
.target sm_80
.address_size 64
"""

PROLOGUE = """
    .reg .b32 %r<64>;
    .reg .b64 %rd<32>;
    .reg .f32 %f<32>;
    .reg .f64 %fd<16>;
    .reg .b16 %h<16>;
    .reg .pred %p<16>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [inp];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd3, %rd1, %rd5;
    add.s64 %rd4, %rd2, %rd5;
"""


def source(body: str, decls: str = "", extra_params: str = "", module_decls: str = "") -> str:
    params = ".param .u64 out, .param .u64 inp" + (", " + extra_params if extra_params else "")
    return (HEADER + module_decls + f"\n.visible .entry k({params})\n{{\n{decls}\n{PROLOGUE}\n{body}\n    ret;\n}}\n")


def run_ptx(body: str, threads=32, grid=1, inp=None, out_dtype=np.uint32, out_size=None, result="%r2",
            decls: str = "", module_decls: str = "", shared_mem: int = 0, extra_args=(), extra_params=""):
    """Run `body` and return `out` as numpy. Unless `result` is None, the epilogue stores `result`
    (a b32 register) to out[tid] (one block; with grid > 1 every block stores to the same slots)."""
    epilogue = f"\n    st.global.b32 [%rd3], {result};" if result else ""
    mod = Module(source(body + epilogue, decls, extra_params, module_decls))
    k = mod.get_function("k")
    nthreads = threads if isinstance(threads, int) else int(np.prod(threads))
    out = DeviceArray.empty(out_size or nthreads * max(1, grid if isinstance(grid, int) else 1), out_dtype)
    inp_dev = DeviceArray.from_host(np.asarray(inp)) if inp is not None else DeviceArray.empty(1, np.uint32)
    k((grid,) if isinstance(grid, int) else grid, (threads,) if isinstance(threads, int) else threads,
      (out, inp_dev) + tuple(extra_args), shared_mem=shared_mem)
    return out.get()


def f32_bits(x) -> np.ndarray:
    return np.asarray(x, np.float32).view(np.uint32)


def hexf(x: float) -> str:
    """PTX's hex immediate for a float32: 0f3F800000 for 1.0."""
    return "0f%08X" % int(np.float32(x).view(np.uint32))
