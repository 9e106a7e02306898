"""Day 12's batch prefill (batch_prefill.cu: ragged or paged KV, GQA packed rows, the LSE): its launch
geometry, asked of the file's config kernel, and its launches. Day 12 uses them, and day 13's attention
variants, which the JIT renders from the same file, launch through them too."""
from __future__ import annotations

import math

import numpy as np

from grader import device
from grader.messages import say


_GEOMETRY: dict[tuple, tuple] = {}  # (id(module), config) -> (module, geometry): asked once per kernel


def prefill_geometry(module, config: str = "prefill_config") -> dict[int, tuple[int, int, int]]:
    """Per head dim (BLOCK_M, threads, dynamic shared bytes), as the file's `config` kernel states."""
    key = (id(module), config)  # the module is kept in the entry, so its id is not reused
    if key not in _GEOMETRY:
        cp = device.require_gpu()
        out = cp.zeros(6, dtype=np.int32)
        device.launch(module.get_function(config), (1,), (1,), (out,), what=config)
        v = [int(x) for x in device.to_host(out)]
        _GEOMETRY[key] = (module, {64: tuple(v[0:3]), 128: tuple(v[3:6])})
    return _GEOMETRY[key][1]


HEAD_DIMS = (64, 128)


def validate_ragged(q, k, v, qo_indptr, kv_indptr) -> None:
    """ValueError naming what is wrong with a ragged batch: q [total_q, Hq, D], k, v [total_kv, Hkv, D],
    qo_indptr and kv_indptr int32 numpy arrays, ascending from 0 to total_q and total_kv."""
    total_q, hq, d = q.shape
    hkv = k.shape[1]
    if d not in HEAD_DIMS or k.shape[2] != d or v.shape != k.shape:
        raise ValueError(say("prefill.shapes", q=q.shape, k=k.shape, v=v.shape, dims=HEAD_DIMS))
    if hkv < 1 or hq % hkv:
        raise ValueError(say("day12.gqa", hq=hq, hkv=hkv))
    for name, ptr, total in (("qo_indptr", qo_indptr, total_q), ("kv_indptr", kv_indptr, k.shape[0])):
        ptr = np.asarray(ptr)
        if ptr.dtype != np.int32 or ptr.ndim != 1 or ptr[0] != 0 or ptr[-1] != total or (np.diff(ptr) < 0).any():
            raise ValueError(say("prefill.indptr", name=name, total=total, dtype=ptr.dtype, ptr=ptr))
    if len(qo_indptr) != len(kv_indptr):
        raise ValueError(say("prefill.batch", qo=len(qo_indptr), kv=len(kv_indptr)))


def batch_prefill_tiles(module, qo_indptr, num_qo_heads: int, num_kv_heads: int, head_dim: int) -> int:
    """The grid's x: the most BLOCK_M tiles of packed (query, head) rows any request needs."""
    block_m = prefill_geometry(module, "batch_prefill_config")[head_dim][0]
    longest = int(np.diff(np.asarray(qo_indptr)).max(initial=0))
    return max(1, -(-longest * (num_qo_heads // num_kv_heads) // block_m))


def prefill_outputs(q):
    """o (fp16, like q [total_q, Hq, D]) and lse2 (float32 [total_q, Hq]), NaN-poisoned."""
    return device.empty(q.shape, "float16"), device.empty(q.shape[:2], "float32")


def batch_prefill(module, q, k, v, qo_indptr, kv_indptr, causal: bool, kernel: str = "batch_prefill",
                  extra: tuple = ()):
    """Ragged GQA prefill: q [total_q, Hq, D], k, v [total_kv, Hkv, D] fp16 device arrays; qo_indptr,
    kv_indptr [batch + 1] int32 numpy arrays. Returns (o fp16 like q, lse2 float32 [total_q, Hq]).
    `kernel` and `extra`: a variant's kernels and its parameters (grader.launchers.variants)."""
    validate_ragged(q, k, v, qo_indptr, kv_indptr)
    o, lse2 = prefill_outputs(q)
    tiles = batch_prefill_tiles(module, qo_indptr, q.shape[1], k.shape[1], q.shape[2])
    launch_batch_prefill(module, q, k, v, o, lse2, device.asarray(np.asarray(qo_indptr)),
                         device.asarray(np.asarray(kv_indptr)), tiles, causal, kernel=kernel, extra=extra)
    return o, lse2


def launch_batch_prefill(module, q, k, v, o, lse2, qo_indptr, kv_indptr, tiles: int, causal: bool,
                         sync: bool = True, kernel: str = "batch_prefill", extra: tuple = ()) -> None:
    """Launch {kernel}_d{D} on device arrays (indptrs on the device too): grid (tiles, Hkv, batch); a
    variant's kernel takes its parameters after the usual ones (`extra`)."""
    _, num_qo_heads, head_dim = q.shape
    num_kv_heads = k.shape[1]
    args = (q, k, v, o, lse2, qo_indptr, kv_indptr, np.int32(num_qo_heads), np.int32(num_kv_heads),
            np.int32(causal), np.float32(1.0 / math.sqrt(head_dim))) + tuple(extra)
    _launch(module, f"{kernel}_d{head_dim}", head_dim, (tiles, num_kv_heads, qo_indptr.shape[0] - 1), args, sync)


def launch_batch_prefill_paged(module, q, k_pages, v_pages, o, lse2, qo_indptr, kv_indptr, kv_indices,
                               kv_last_page_len, tiles: int, causal: bool, sync: bool = True) -> None:
    """Launch batch_prefill_paged_d{D} on device arrays: k_pages, v_pages [pool, page_size, Hkv, D] and
    day 11's page table (kv_indptr in pages, kv_indices, kv_last_page_len)."""
    _, num_qo_heads, head_dim = q.shape
    _, page_size, num_kv_heads, _ = k_pages.shape
    args = (q, k_pages, v_pages, o, lse2, qo_indptr, kv_indptr, kv_indices, kv_last_page_len,
            np.int32(page_size), np.int32(num_qo_heads), np.int32(num_kv_heads), np.int32(causal),
            np.float32(1.0 / math.sqrt(head_dim)))
    _launch(module, f"batch_prefill_paged_d{head_dim}", head_dim, (tiles, num_kv_heads, qo_indptr.shape[0] - 1),
            args, sync)


def _launch(module, name: str, head_dim: int, grid, args, sync: bool) -> None:
    """One batch-prefill launch with the file's geometry (threads, dynamic shared memory) for head_dim."""
    _, threads, smem = prefill_geometry(module, "batch_prefill_config")[head_dim]
    kernel = module.get_function(name)
    if smem > 48 * 1024:  # above 48 KiB a kernel must opt in to more dynamic shared memory
        kernel.max_dynamic_shared_size_bytes = smem
    if sync:
        device.launch(kernel, grid, (threads,), args, shared_mem=smem, what=name)
    else:
        kernel(grid, (threads,), args, shared_mem=smem)
