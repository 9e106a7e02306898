"""Day 11's decode attention over a contiguous KV cache: the conventions of its kernels
(course/attention/state.cuh: 256 threads a block, scores in base 2), their configurations and the
launch of decode_attention_g<G>, G query heads of one KV head per block.

A kernel file is compiled for one configuration: by default the tuned one (fp16, head_dim 128, NHD);
`specialise` compiles the same source again with -D options for another (bf16, an fp8 e4m3 cache with
fp16 q, head_dim 64 or 256, the HND layout), as FlashInfer's JIT specialises its templates."""
from __future__ import annotations

import functools
import math

import numpy as np

from grader import device
from grader.messages import say

HEAD_DIM = 128              # the tuned configuration's
HEAD_DIMS = (64, 128, 256)
LAYOUTS = ("NHD", "HND")    # contiguous: [batch, kv_len, Hkv, D] or [batch, Hkv, kv_len, D]
# KV dtype -> (C type of q and o, C type of K and V, device storage of K and V)
KV_DTYPES = {"float16": ("half", "half", np.dtype(np.float16)),
             "bfloat16": ("__nv_bfloat16", "__nv_bfloat16", np.dtype(np.uint16)),
             "e4m3": ("half", "__nv_fp8_e4m3", np.dtype(np.uint8))}
LOG2E = 1.0 / math.log(2.0)
BLOCK = 256                 # threads per attention block: the kernels are written for exactly this many
HEADS_PER_BLOCK = (8, 4, 2, 1)  # the G of decode_attention_g<G>: query heads of one KV head per block


def heads_per_block(num_qo_heads: int, num_kv_heads: int, head_dim: int = HEAD_DIM) -> int:
    """G: the largest of 8, 4, 2, 1 that divides the GQA group size (query heads per KV head); at
    most 4 at head_dim 256, whose G = 8 would not fit the block's shared memory."""
    group = num_qo_heads // num_kv_heads
    return next(g for g in HEADS_PER_BLOCK if group % g == 0 and (g < 8 or head_dim < 256))


def scale_log2(head_dim: int = HEAD_DIM) -> np.float32:
    """sm_scale * log2(e) with sm_scale = 1 / sqrt(head_dim): what the kernels multiply q by."""
    return np.float32(LOG2E / math.sqrt(head_dim))


def kv_dtype_of(k) -> str:
    """The KV dtype name of a device cache from its storage: float16, bfloat16 (uint16 bits) or e4m3
    (uint8 bytes)."""
    found = next((name for name, (_, _, st) in KV_DTYPES.items() if k.dtype == st), None)
    if found is None:
        raise ValueError(say("decode.kv_dtype", dtype=k.dtype))
    return found


def config_options(kv_dtype: str = "float16", head_dim: int = HEAD_DIM, layout: str = "NHD") -> tuple[str, ...]:
    """The -D options that compile a day-11 decode file for one configuration; () for the tuned one."""
    if kv_dtype not in KV_DTYPES or head_dim not in HEAD_DIMS or layout not in LAYOUTS:
        raise ValueError(say("decode.config", kv_dtype=kv_dtype, head_dim=head_dim, layout=layout,
                             dtypes=", ".join(KV_DTYPES), dims=HEAD_DIMS, layouts=LAYOUTS))
    if (kv_dtype, head_dim, layout) == ("float16", HEAD_DIM, "NHD"):
        return ()
    q_type, kv_type, _ = KV_DTYPES[kv_dtype]
    opts = (f"-DDECODE_Q={q_type}", f"-DDECODE_KV={kv_type}", f"-DDECODE_HEAD_DIM={head_dim}",
            f"-DDECODE_LAYOUT={layout}")
    return opts + (("-DDECODE_KV_SCALES",) if kv_dtype == "e4m3" else ())


@functools.lru_cache(maxsize=32)
def _compile(code: str, name: str, options: tuple[str, ...]):
    return device.load_source(code, name, options)


def specialise(module, kv_dtype: str = "float16", head_dim: int = HEAD_DIM, layout: str = "NHD"):
    """`module` (a loaded day-11 decode file) for one configuration: itself for the tuned one, else its
    source compiled with config_options (once per source and configuration)."""
    opts = config_options(kv_dtype, head_dim, layout)
    if not opts:
        return module
    code = getattr(module, "code", None)
    if not code:
        raise ValueError(say("launch.no_source", module=repr(module)))
    return _compile(code, f"decode_{kv_dtype}_d{head_dim}_{layout.lower()}.cu", opts)


_kernels: dict[tuple[int, str], tuple] = {}


def _kernel(module, name: str):
    """`module.get_function(name)`, fetched once per module (the entry keeps the module alive)."""
    entry = _kernels.get((id(module), name))
    if entry is None or entry[0] is not module:
        entry = _kernels[id(module), name] = (module, module.get_function(name))
    return entry[1]


def launch_decode_attention(module, q, k, v, o, sync: bool = True, layout: str = "NHD",
                            k_scale: float = 1.0, v_scale: float = 1.0) -> None:
    """Launch decode_attention_g<G> into the preallocated o, unchecked (for timing: sync=False). The
    configuration follows the arrays: head_dim q.shape[-1], the KV dtype k's (kv_dtype_of); `layout`
    names k's and v's; k_scale and v_scale are an fp8 cache's (it holds k / k_scale, v / v_scale)."""
    batch, num_qo_heads, head_dim = q.shape
    kv_dtype = kv_dtype_of(k)
    if kv_dtype != "e4m3" and (k_scale, v_scale) != (1.0, 1.0):
        raise ValueError(say("day11.scales", k_scale=k_scale, v_scale=v_scale, kv_dtype=kv_dtype))
    kv_len, num_kv_heads = (k.shape[1], k.shape[2]) if layout == "NHD" else (k.shape[2], k.shape[1])
    g = heads_per_block(num_qo_heads, num_kv_heads, head_dim)
    kernel = _kernel(specialise(module, kv_dtype, head_dim, layout), f"decode_attention_g{g}")
    args = (q, k, v, o, np.int32(kv_len), np.int32(num_qo_heads), np.int32(num_kv_heads), scale_log2(head_dim))
    if kv_dtype == "e4m3":
        args += (np.float32(k_scale), np.float32(v_scale))
    grid = (num_qo_heads // g, batch)
    if sync:
        device.launch(kernel, grid, (BLOCK,), args, what=f"decode_attention_g{g} ({kv_dtype}, d{head_dim}, {layout})")
    else:
        kernel(grid, (BLOCK,), args)


NO_CHUNKS = 2**31 - 1  # chunk_tokens of a launch without split-KV: one chunk holds every token


def launch_decode_paged(module, q, k_pages, v_pages, kv_indptr, kv_indices, kv_last_page_len, o, lse2, tmp_o,
                        tmp_lse2, num_chunks: int = 1, chunk_tokens: int = NO_CHUNKS, sync: bool = True,
                        layout: str = "NHD", k_scale: float = 1.0, v_scale: float = 1.0) -> None:
    """Launch decode_paged_g<G> over `num_chunks` chunks of `chunk_tokens` per request, unchecked: o and
    lse2 receive a request's result when it is one chunk, tmp_o and tmp_lse2 the chunks' partial results
    otherwise (merge_chunks merges them; with one chunk pass o and lse2 again). The configuration follows
    the arrays, as launch_decode_attention's; the paged HND layout is [pages, Hkv, page_size, D]."""
    batch, num_qo_heads, head_dim = q.shape
    kv_dtype = kv_dtype_of(k_pages)
    page_size, num_kv_heads = k_pages.shape[1:3] if layout == "NHD" else k_pages.shape[2:0:-1]
    g = heads_per_block(num_qo_heads, num_kv_heads, head_dim)
    kernel = _kernel(specialise(module, kv_dtype, head_dim, layout), f"decode_paged_g{g}")
    grid = (num_chunks, num_qo_heads // g, batch)
    args = (q, k_pages, v_pages, kv_indptr, kv_indices, kv_last_page_len, o, lse2, tmp_o, tmp_lse2,
            np.int32(page_size), np.int32(num_qo_heads), np.int32(num_kv_heads), np.int32(chunk_tokens),
            scale_log2(head_dim))
    if kv_dtype == "e4m3":
        args += (np.float32(k_scale), np.float32(v_scale))
    if sync:
        device.launch(kernel, grid, (BLOCK,), args,
                      what=f"decode_paged_g{g} ({num_chunks} chunks; {kv_dtype}, d{head_dim}, {layout})")
    else:
        kernel(grid, (BLOCK,), args)
