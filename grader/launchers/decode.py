"""Day 11's decode attention over a contiguous KV cache: the conventions of its kernels
(course/attention/state.cuh: head_dim 128, 256 threads a block, scores in base 2) and the launch of
decode_attention_g<G>, G query heads of one KV head per block."""
from __future__ import annotations

import math

import numpy as np

from grader import device

HEAD_DIM = 128
LOG2E = 1.0 / math.log(2.0)
BLOCK = 256                 # threads per attention block: the kernels are written for exactly this many
HEADS_PER_BLOCK = (8, 4, 2, 1)  # the G of decode_attention_g<G>: query heads of one KV head per block


def heads_per_block(num_qo_heads: int, num_kv_heads: int) -> int:
    """G: the largest of 8, 4, 2, 1 that divides the GQA group size (query heads per KV head)."""
    group = num_qo_heads // num_kv_heads
    return next(g for g in HEADS_PER_BLOCK if group % g == 0)


def scale_log2(head_dim: int = HEAD_DIM) -> np.float32:
    """sm_scale * log2(e) with sm_scale = 1 / sqrt(head_dim): what the kernels multiply q by."""
    return np.float32(LOG2E / math.sqrt(head_dim))


def launch_decode_attention(module, q, k, v, o, sync: bool = True) -> None:
    """Launch decode_attention_g<G> into the preallocated o, unchecked (for timing: sync=False)."""
    batch, num_qo_heads, _ = q.shape
    _, kv_len, num_kv_heads, _ = k.shape
    g = heads_per_block(num_qo_heads, num_kv_heads)
    kernel = module.get_function(f"decode_attention_g{g}")
    grid, args = (num_qo_heads // g, batch), (q, k, v, o, np.int32(kv_len), np.int32(num_qo_heads),
                                             np.int32(num_kv_heads), scale_log2())
    if sync:
        device.launch(kernel, grid, (BLOCK,), args, what=f"decode_attention_g{g}")
    else:
        kernel(grid, (BLOCK,), args)
