"""Day 13's RoPE family: one specialisation of the student's rope.cu per (layout, dtype, head_dim, vec,
heads_per_block), rendered from kernels/templates/rope.cu.jinja and compiled by `grader.jit` on first
use (from its cache after), and its launch."""
from __future__ import annotations

import math

import numpy as np

from grader import device, jit
from grader.messages import say

SUFFIX = {"float16": "f16", "bfloat16": "bf16"}
CTYPE = {"float16": "half", "bfloat16": "__nv_bfloat16"}
HEAD_DIMS = (64, 128, 256)
THETA = 10000.0


def kernel_source(module) -> str:
    """The CUDA source a loaded exercise module was compiled from (what the template inlines)."""
    code = getattr(module, "code", None)
    if not code:
        raise ValueError(say("launch.no_source", module=repr(module)))
    return code


def spec_name(dtype: str, head_dim: int, vec: int, heads_per_block: int, interleaved: bool = False) -> str:
    """The kernel's name, and its cache entry's: rope_f16_d128_v8_h4 (rotate half) or
    rope_interleaved_f16_d128_v8_h4."""
    if dtype not in SUFFIX:
        raise ValueError(say("arg.one_of", what="dtype", value=dtype, known=", ".join(SUFFIX)))
    if head_dim not in HEAD_DIMS:
        raise ValueError(say("rope.head_dim", head_dim=head_dim, dims=HEAD_DIMS))
    if vec not in (1, 2, 4, 8) or (head_dim // 2) % vec:
        raise ValueError(say("rope.vec", vec=vec, half=head_dim // 2))
    threads = head_dim // (2 * vec) * heads_per_block
    if not 1 <= heads_per_block or threads > 1024:
        raise ValueError(say("rope.heads", heads=heads_per_block, per_head=head_dim // (2 * vec)))
    layout = "rope_interleaved" if interleaved else "rope"
    return f"{layout}_{SUFFIX[dtype]}_d{head_dim}_v{vec}_h{heads_per_block}"


def render_rope(source: str, dtype: str, head_dim: int, vec: int, heads_per_block: int,
                interleaved: bool = False) -> tuple[str, str]:
    """(kernel name, rendered source) of one specialisation of the student's rope.cu text."""
    name = spec_name(dtype, head_dim, vec, heads_per_block, interleaved)
    return name, jit.render("rope.cu.jinja", kernel_source=source, name=name, ctype=CTYPE[dtype],
                            head_dim=head_dim, vec=vec, heads_per_block=heads_per_block,
                            interleaved=interleaved)


def rope_kernel(module, dtype: str, head_dim: int, vec: int, heads_per_block: int, cache=None,
                interleaved: bool = False):
    """The specialised kernel (a cupy.RawKernel), compiled on first use, from the cache after."""
    name, source = render_rope(kernel_source(module), dtype, head_dim, vec, heads_per_block, interleaved)
    return jit.load(name, source, cache=cache).get_function(name)


def launch_rope(kernel, x, pos, tokens: int, heads: int, token_stride: int, head_dim: int, vec: int,
                heads_per_block: int, theta: float = THETA, sync: bool = True) -> None:
    grid = (tokens, -(-heads // heads_per_block))
    block = (head_dim // (2 * vec), heads_per_block)
    args = (x, pos, np.int32(heads), np.int64(token_stride), np.float32(math.log2(theta)))
    if sync:
        device.launch(kernel, grid, block, args, what=f"{kernel.name} grid={grid}")
    else:
        kernel(grid, block, args)
