"""Day 11: decode attention. One query token per request over its KV cache: the online-softmax state
(m, d, o) and its merge, GQA, contiguous and paged KV caches, split-KV with a merge pass.

Conventions of the day's kernels (course/attention/state.cuh): fp16 q, k, v, o and head_dim 128 in
exercises 1-3; sm_scale = 1 / sqrt(head_dim); scores and log-sum-exps in base 2 ("lse2" = lse / ln 2),
since the kernels compute exp(s) as 2^(s * log2 e) with one ex2.approx. Exercises 4 and 5 are
templates compiled per configuration (tuned: fp16, d128, NHD; also bf16, an fp8 e4m3 cache with
scales, head_dim 64 / 256, the HND layout). These conventions, the configurations and the launch of
the contiguous-cache kernel live in `grader.launchers.decode`, which the day-14 API shares.
"""
from __future__ import annotations

import math
import re

import ml_dtypes
import numpy as np

from grader import bench, checks, device
from grader.exercises import Exercise
from grader.messages import phrased, say
from grader.launchers.decode import (BLOCK, HEAD_DIM, HEAD_DIMS, HEADS_PER_BLOCK, KV_DTYPES, LAYOUTS, LOG2E,
                                    NO_CHUNKS, heads_per_block, kv_dtype_of, launch_decode_attention,
                                    launch_decode_paged, scale_log2, specialise)
from grader.references.decode_attention import assert_lse, attention_reference
from grader.references.paged_kv import page_table, paged_pool
from grader.technique import Technique

MERGE_ROWS_PER_BLOCK = 4    # merge kernels: one warp per row, 128 threads
Q_SCALES = (0.3, 1.0, 3.0, 30.0)  # per-head scales of q: flat to one-hot softmax; 30 makes exp(s) overflow float
# o, each (request, head) alone: the relative error norm of its head_dim outputs. fp16: a numpy model
# of the kernels' float32 arithmetic, with ex2.approx's 2-ulp error and the fp16 rounding, gives at
# most 2.6e-4 (kv_len 1000 and 4096, every q scale). bf16 rounds 8 times coarser (8 bits of mantissa,
# not 11): the solution's worst head measured 2.2e-3 (head_dim 64 to 256, seeds 0-3). An fp8 cache's
# o is fp16, at fp16's tolerance: the reference dequantises the same bytes exactly.
HEAD_TOL = {"float16": 4e-3, "bfloat16": 1.6e-2}
OUT_DTYPE = {"float16": "float16", "bfloat16": "bfloat16", "e4m3": "float16"}  # q's and o's, per KV dtype
Q_STORAGE = {"float16": np.float16, "bfloat16": np.uint16, "e4m3": np.float16}  # q and o on the device
E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)


# ---- references (float64, from the rounded or dequantised inputs) --------------------------------

def merge_reference(v: np.ndarray, lse2: np.ndarray):
    """Merged (o, lse2) of partial results v [rows, S, D], lse2 [rows, S] (base 2, -inf = empty)."""
    v = v.astype(np.float64)
    lse2 = lse2.astype(np.float64)
    top = lse2.max(axis=1, keepdims=True)
    safe = np.where(np.isinf(top), 0.0, top)
    w = np.exp2(lse2 - safe)  # 0 for empty parts
    total = w.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        o = np.where(total[:, None] > 0, np.einsum("rs,rsd->rd", w, v) / total[:, None], 0.0)
        lse = np.where(total > 0, safe[:, 0] + np.log2(total), -np.inf)
    return o, lse


def _assert_o(got, expected, *, name: str, seed: int, dt: str = "float16") -> None:
    """o [..., D] of dtype dt (float16, bfloat16): by the norm of the error over the whole output
    (checks' tolerance of dt), then head by head (HEAD_TOL). A head with a flat softmax (small q) has
    outputs about 1 / sqrt(kv_len) the size of a peaked head's, so an error in it hides in the norm
    over all heads."""
    checks.assert_close(got, expected, dt=dt, name=name, seed=seed)
    tol = HEAD_TOL[dt]
    g, e = got.reshape(-1, got.shape[-1]).astype(np.float64), expected.reshape(-1, got.shape[-1])
    rel = np.linalg.norm(g - e, axis=1) / np.maximum(np.linalg.norm(e, axis=1), np.finfo(np.float64).tiny)
    worst = int(np.argmax(rel))
    if rel[worst] > tol:
        b, h = (int(i) for i in np.unravel_index(worst, got.shape[:-1]))
        raise AssertionError(say("day11.head_norm", name=name, b=b, h=h, err=f"{rel[worst]:.2e}", tol=f"{tol:.1e}",
                                 bad=int((rel > tol).sum()), heads=rel.size, replay=checks.replay(seed)))


def random_qkv(rng, batch: int, num_qo_heads: int, kv_shape: tuple, kv_dtype: str = "float16"):
    """q [batch, Hq, D] with a per-(request, head) scale from Q_SCALES, and normal k, v [kv_shape],
    D = kv_shape[-1]. float16 / bfloat16: all of that dtype. e4m3: fp16 q and an fp8 cache holding
    k / k_scale, v / v_scale with random per-tensor scales (the stored values up to ~100 of 448);
    returns (q, k, v, k_scale, v_scale) then, else (q, k, v)."""
    dt = device.dtype(OUT_DTYPE[kv_dtype])
    scales = rng.choice(np.array(Q_SCALES), size=(batch, num_qo_heads, 1))
    q = (scales * rng.standard_normal((batch, num_qo_heads, kv_shape[-1]))).astype(dt)
    k = rng.standard_normal(kv_shape, dtype=np.float32)
    v = rng.standard_normal(kv_shape, dtype=np.float32)
    if kv_dtype != "e4m3":
        return q, k.astype(dt), v.astype(dt)
    k_scale, v_scale = (float(np.float32(s)) for s in rng.uniform(0.02, 0.1, 2))
    return q, (k / k_scale).astype(E4M3), (v / v_scale).astype(E4M3), k_scale, v_scale


def _to_device(x: np.ndarray):
    """A host array on the device; an fp8 cache as its bytes (uint8)."""
    return device.asarray(x.view(np.uint8) if x.dtype == E4M3 else x)


def hnd(x: np.ndarray) -> np.ndarray:
    """An NHD cache [batch or pages, tokens, Hkv, D] in the HND layout [batch or pages, Hkv, tokens, D]."""
    return np.ascontiguousarray(x.transpose(0, 2, 1, 3))


def _heads_ok(num_qo_heads: int, num_kv_heads: int) -> None:
    if num_kv_heads < 1 or num_qo_heads < 1 or num_qo_heads % num_kv_heads:
        raise ValueError(say("day11.gqa", hq=num_qo_heads, hkv=num_kv_heads))


def _device_array(name: str, x, ndim: int, storage=np.float16, head_dims=(HEAD_DIM,)) -> None:
    if getattr(x, "dtype", None) != storage or x.ndim != ndim or not x.flags.c_contiguous:
        raise ValueError(say("day11.array", name=name, dtype=np.dtype(storage), ndim=ndim,
                                got=getattr(x, "dtype", type(x).__name__), shape=getattr(x, "shape", "?")))
    if x.shape[-1] not in head_dims:
        raise ValueError(say("day11.head_dim", name=name, head_dim=x.shape[-1], dims=" / ".join(map(str, head_dims))))


# ---- exercise 1: the online softmax, one thread per row -------------------------------------------

SOFTMAX_DIMS = 4            # dims of v in online_softmax.cu
SOFTMAX_ROWS_PER_BLOCK = 128


def online_reference(x: np.ndarray, v: np.ndarray, tile: int):
    """The state (m, d, o) of each row after each tile, in float64: x [rows, n] base-2 scores
    (-inf: masked), v [rows, n, dims]. Returns m, d [rows, tiles] and o [rows, tiles, dims]; a state
    that has seen only -inf is (-inf, 0, 0)."""
    rows, n = x.shape
    tiles = -(-n // tile)
    x, v = x.astype(np.float64), v.astype(np.float64)
    m = np.empty((rows, tiles))
    d = np.empty((rows, tiles))
    o = np.empty((rows, tiles, v.shape[2]))
    for t in range(tiles):
        seen = x[:, :(t + 1) * tile]
        top = seen.max(axis=1)
        safe = np.where(np.isneginf(top), 0.0, top)
        p = np.exp2(seen - safe[:, None])
        m[:, t], d[:, t] = top, p.sum(axis=1)
        o[:, t] = np.einsum("rj,rjk->rk", p, v[:, :(t + 1) * tile])
    return m, d, o


def check_online_softmax(module, seed: int, rows: int, n: int, tile: int) -> None:
    """Normal scores times 4 with a slope, so the running max jumps from tile to tile (row 0 rises
    steadily: every tile rescales); about one key in ten masked (-inf); row 1's first tile all -inf
    (the state stays empty); row 2 near 300, where 2^x overflows float without the max subtracted."""
    rng = np.random.default_rng(seed)
    x = (4 * rng.standard_normal((rows, n)) + rng.uniform(0, 8, (rows, 1)) * np.arange(n) / n).astype(np.float32)
    x[0] = np.linspace(-10, 30, n, dtype=np.float32)
    x[rng.random((rows, n)) < 0.1] = -np.inf
    if rows > 1:
        x[1, :tile] = -np.inf
    if rows > 2:
        x[2] += 300
    v = rng.standard_normal((rows, n, SOFTMAX_DIMS), dtype=np.float32)
    tiles = -(-n // tile)
    m = device.empty((rows, tiles), "float32")
    d = device.empty((rows, tiles), "float32")
    o = device.empty((rows, tiles, SOFTMAX_DIMS), "float32")
    grid = (max(1, -(-rows // SOFTMAX_ROWS_PER_BLOCK)),)
    device.launch(module.get_function("online_softmax"), grid, (SOFTMAX_ROWS_PER_BLOCK,),
                  (device.asarray(x), device.asarray(v), m, d, o, np.int32(rows), np.int32(n), np.int32(tile)),
                  what="online_softmax")
    m_ref, d_ref, o_ref = online_reference(x, v, tile)
    where = f"(rows={rows}, n={n}, tile={tile})"
    m_got, d_got, o_got = (device.to_host(a).astype(np.float64) for a in (m, d, o))
    empty = np.isneginf(m_ref)
    bad = np.argwhere(empty & ~np.isneginf(m_got))
    if bad.size:
        r, t = bad[0]
        raise AssertionError(say("day11.m_inf", where=where, r=r, t=t, got=f"{m_got[r, t]:.6g}",
                                 replay=checks.replay(seed)))
    checks.assert_close(m_got[~empty], m_ref[~empty], dt="float32", name=f"online_softmax m {where}", seed=seed)
    # ex2.approx (2 ulp) on every weight and float32 sums of up to n terms: relative 1e-4 on d; o is
    # checked by the norm of its error against the norm of the sum of |weights * v|, per state.
    checks.assert_close(d_got, d_ref, dt="float32", tol=checks.Tolerance(1e-4, 1e-30, False),
                        name=f"online_softmax d {where}", seed=seed)
    scale = np.einsum("rtk->rt", np.abs(o_ref)) + d_ref
    err = np.abs(o_got - o_ref).sum(axis=2) / np.maximum(scale, np.finfo(np.float64).tiny)
    if not np.all(np.isfinite(o_got)) or err.max() > 1e-4:
        r, t = np.unravel_index(np.nanargmax(np.where(np.isfinite(err), err, np.inf)), err.shape)
        raise AssertionError(say("day11.o_row", where=where, r=r, t=t,
                                 expected=np.array2string(o_ref[r, t], precision=5),
                                 got=np.array2string(o_got[r, t], precision=5), err=f"{err[r, t]:.2e}",
                                 replay=checks.replay(seed)))


# ---- exercise 2: merge states ------------------------------------------------------------------

def merge_states(module, v, lse2, kernel: str = "merge_states", out=None, sync: bool = True,
                 head_dim: int = HEAD_DIM):
    """Launch a merge kernel on device v [rows, S, head_dim] and lse2 [rows, S] (float32, C-contiguous):
    -> (o fp16 [rows, head_dim], lse2 float32 [rows]), written into `out` when given (o of the
    kernel's dtype: merge_chunks compiled for another configuration)."""
    rows, num_states = lse2.shape
    if (v.shape != (rows, num_states, head_dim) or v.dtype != np.float32 or lse2.dtype != np.float32
            or not (v.flags.c_contiguous and lse2.flags.c_contiguous)):
        raise ValueError(say("day11.merge", head_dim=head_dim, v=f"{v.dtype} {v.shape}",
                                lse2=f"{lse2.dtype} {lse2.shape}"))
    o, lse_out = out or (device.empty((rows, head_dim), "float16"), device.empty(rows, "float32"))
    grid = (max(1, -(-rows // MERGE_ROWS_PER_BLOCK)),)
    args = (v, lse2, o, lse_out, np.int32(rows), np.int32(num_states))
    fn = module.get_function(kernel)
    if sync:
        device.launch(fn, grid, (32 * MERGE_ROWS_PER_BLOCK,), args, what=kernel)
    else:
        fn(grid, (32 * MERGE_ROWS_PER_BLOCK,), args)
    return o, lse_out


def check_merge_states(module, seed: int, rows: int, num_states: int) -> None:
    """Random partial results: normal v, lse2 spread over +-40 with about one part in five empty
    (lse2 = -inf, v random: its weight must be exactly 0); row 1 has only empty parts (o = 0,
    lse2 = -inf) and row 2 sits at lse2 ~ 300, where 2^lse2 overflows float unless the max is
    subtracted first."""
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((rows, num_states, HEAD_DIM), dtype=np.float32)
    lse2 = (40 * rng.uniform(-1, 1, (rows, num_states))).astype(np.float32)
    lse2[rng.random((rows, num_states)) < 0.2] = -np.inf
    if rows > 1:
        lse2[1] = -np.inf
    if rows > 2:
        lse2[2] += 300
    o, lse_out = merge_states(module, device.asarray(v), device.asarray(lse2))
    o_ref, lse_ref = merge_reference(v, lse2)
    where = f"(rows={rows}, num_states={num_states})"
    checks.assert_close(device.to_host(o), o_ref, dt="float16", name=f"merge_states o {where}", seed=seed)
    assert_lse(device.to_host(lse_out), lse_ref, name=f"merge_states lse2 {where}", seed=seed)


# ---- exercise 3: one warp, one head ----------------------------------------------------------------

def check_decode_warp(module, seed: int, batch: int, kv_len: int, num_heads: int) -> None:
    """decode_warp.cu: one warp per (request, head), no GQA; o against float64."""
    rng = np.random.default_rng(seed)
    q, k, v = random_qkv(rng, batch, num_heads, (batch, kv_len, num_heads, HEAD_DIM))
    o = device.empty(q.shape, "float16")
    device.launch(module.get_function("decode_warp"), (num_heads, batch), (32,),
                  (device.asarray(q), device.asarray(k), device.asarray(v), o, np.int32(kv_len),
                   np.int32(num_heads), scale_log2()), what="decode_warp")
    o_ref, _ = attention_reference(q, k, v)
    _assert_o(device.to_host(o), o_ref, seed=seed,
              name=f"decode_warp o (batch={batch}, kv_len={kv_len}, heads={num_heads})")


# ---- exercise 4: contiguous KV -------------------------------------------------------------------

def decode_attention(module, q, k, v, layout: str = "NHD", k_scale: float = 1.0, v_scale: float = 1.0):
    """Decode attention over a contiguous KV cache with the day's kernel (the capstone calls this).

    q: device [batch, num_qo_heads, D], D 64, 128 or 256; k, v: device [batch, kv_len, num_kv_heads, D]
    (layout NHD) or [batch, num_kv_heads, kv_len, D] (HND): fp16 (q fp16), bf16 as uint16 bits (q
    too), or fp8 e4m3 as uint8 bytes holding k / k_scale, v / v_scale (q fp16); num_qo_heads a multiple
    of num_kv_heads; sm_scale = 1/sqrt(D). Returns device o like q.
    """
    kv_dtype = kv_dtype_of(k)
    _device_array("q", q, 3, Q_STORAGE[kv_dtype], HEAD_DIMS)
    _device_array("k", k, 4, k.dtype, (q.shape[-1],))
    if k.shape != v.shape or v.dtype != k.dtype or k.shape[0] != q.shape[0]:
        raise ValueError(say("day11.kv_match", k=f"{k.dtype} {k.shape}", v=f"{v.dtype} {v.shape}", batch=q.shape[0]))
    if layout not in LAYOUTS:
        raise ValueError(say("arg.one_of", what="layout", value=layout, known=LAYOUTS))
    kv_len, num_kv_heads = (k.shape[1], k.shape[2]) if layout == "NHD" else (k.shape[2], k.shape[1])
    if kv_len < 1:
        raise ValueError(say("day11.no_keys"))
    _heads_ok(q.shape[1], num_kv_heads)
    o = device.empty(q.shape, OUT_DTYPE[kv_dtype])
    launch_decode_attention(module, q, k, v, o, layout=layout, k_scale=k_scale, v_scale=v_scale)
    return o


def _where(kv_dtype: str, head_dim: int, layout: str) -> str:
    """', bfloat16 d64 HND' naming a case's configuration; '' for the tuned one (its names stay as they were)."""
    tuned = (kv_dtype, head_dim, layout) == ("float16", HEAD_DIM, "NHD")
    return "" if tuned else f", {kv_dtype} d{head_dim} {layout}"


def check_decode_attention(module, seed: int, batch: int, kv_len: int, num_qo_heads: int, num_kv_heads: int,
                           kv_dtype: str = "float16", head_dim: int = HEAD_DIM, layout: str = "NHD") -> None:
    """o against float64 from the same rounded (fp8: dequantised) inputs, in the case's configuration."""
    rng = np.random.default_rng(seed)
    q, k, v, *scales = random_qkv(rng, batch, num_qo_heads, (batch, kv_len, num_kv_heads, head_dim), kv_dtype)
    k_scale, v_scale = scales or (1.0, 1.0)
    kd, vd = (_to_device(hnd(x) if layout == "HND" else x) for x in (k, v))
    o = decode_attention(module, device.asarray(q), kd, vd, layout=layout, k_scale=k_scale, v_scale=v_scale)
    o_ref, _ = attention_reference(q, k.astype(np.float64) * k_scale, v.astype(np.float64) * v_scale)
    dt = OUT_DTYPE[kv_dtype]
    _assert_o(device.to_host(o, dt), o_ref, seed=seed, dt=dt,
              name=f"decode_attention o (batch={batch}, kv_len={kv_len}, heads {num_qo_heads}/{num_kv_heads}"
                   f"{_where(kv_dtype, head_dim, layout)})")


BENCH_BATCH, BENCH_QO_HEADS, BENCH_KV_HEADS = 64, 32, 8


def kv_bytes(batch: int, kv_len: int, num_kv_heads: int, head_dim: int = HEAD_DIM,
             kv_dtype: str = "float16") -> int:
    """Bytes of K and V that one decode step must read."""
    return 2 * batch * kv_len * num_kv_heads * head_dim * KV_DTYPES[kv_dtype][2].itemsize


def _random_cache(shape: tuple, kv_dtype: str, seed: int):
    """A device cache of random values for timing: normal fp16 / bf16, or finite e4m3 bytes."""
    if kv_dtype != "e4m3":
        return device.random(shape, kv_dtype, seed=seed)
    cp = device.require_gpu()
    b = cp.random.RandomState(seed).randint(0, 0xFE, size=shape, dtype=cp.int32)
    return (b + (b >= 0x7F)).astype(cp.uint8)  # every byte but 0x7F and 0xFF, e4m3's NaNs


#: The optional fp8 path of exercise 4 turned on (decode_attention.cu's switch, the stub has it false).
FP8_SWITCH = re.compile(r"constexpr\s+bool\s+FP8_ON_TENSOR_CORES\s*=\s*true\b")
BENCH_KV_DTYPES = ("float16", "e4m3")  # the benchmark's caches: the tuned configuration and the fp8 one


def fp8_on_tensor_cores(module) -> bool:
    """Whether a loaded decode_attention file takes its fp8 cache on the tensor cores (the switch on)."""
    return bool(FP8_SWITCH.search(getattr(module, "code", None) or ""))


def bench_lens(quick: bool, kv_dtypes: tuple[str, ...]) -> dict[str, list[int]]:
    """The kv_len of each point for each cache dtype: one dtype at the plain lengths; several at lengths
    that read the same KV bytes at each point (e4m3: twice fp16's tokens), so that one copy ceiling serves
    them all and the largest point is 2 GiB of KV for each."""
    lens = (1024, 4096, 8192) if quick else (256, 512, 1024, 2048, 4096, 8192)
    if len(kv_dtypes) == 1:
        return {kv_dtypes[0]: list(lens)}
    return {dt: [n * 2 // KV_DTYPES[dt][2].itemsize for n in lens] for dt in kv_dtypes}


def tokens_ratio_note(report: bench.Report, modules: dict, lens: dict[str, list[int]]) -> list[str]:
    """For each module, e4m3 over fp16 in tokens per second at each kv_len both caches were timed at:
    2 x their GB/s ratio (an e4m3 token is half the bytes). Nothing where untimed (the emulator)."""
    if set(lens) != {"float16", "e4m3"}:
        return []
    notes = []
    for label in modules:
        fp16, fp8 = (dict(zip(lens[dt], report.series[f"{label} {dt}"])) for dt in ("float16", "e4m3"))
        common = [n for n in fp16 if n in fp8 and fp16[n].timed and fp8[n].timed]
        if common:
            ratios = ", ".join(f"{n}: {2 * fp8[n].gbps / fp16[n].gbps:.2f}x" for n in common)
            notes.append(say("day11.fp8_tokens", label=phrased(label), ratios=ratios))
    return notes


def bench_decode_attention(modules: dict, quick: bool = False, kv_dtype: str | None = None,
                           head_dim: int = HEAD_DIM, layout: str = "NHD") -> bench.Report:
    """GB/s on KV bytes at batch 64, 32 query heads, 8 KV heads, under the copy of the same bytes, with
    two caches by default: the tuned configuration (fp16 KV, kv_len 256 .. 8192) and an e4m3 cache at
    twice the tokens (the same bytes: 64 MiB .. 2 GiB), both held to the target at 2 GiB (a launch's
    ramp-up and tail, ~2% of kv_len 4096's 0.38 ms, halve there). An e4m3 series is held only where the
    file turns its optional fp8 path on (FP8_ON_TENSOR_CORES); else it is drawn and tabled, not held.
    `kv_dtype` times that cache alone (kv_len 256 .. 8192); `head_dim` and `layout` another configuration."""
    device.require_gpu()
    kv_dtypes = BENCH_KV_DTYPES if kv_dtype is None else (kv_dtype,)
    lens = bench_lens(quick, kv_dtypes)
    first = kv_dtypes[0]
    sizes = [kv_bytes(BENCH_BATCH, n, BENCH_KV_HEADS, head_dim, first) for n in lens[first]]
    report = bench.Report(f"decode attention, batch {BENCH_BATCH}, heads {BENCH_QO_HEADS}/{BENCH_KV_HEADS}, "
                          f"d {head_dim}, {' / '.join(kv_dtypes)} KV, {layout}", "KV bytes read", "GB/s")

    def make(what, i: int):
        module, dt = what
        n = lens[dt][i]
        q = device.random((BENCH_BATCH, BENCH_QO_HEADS, head_dim), OUT_DTYPE[dt], seed=1)
        rows = (n, BENCH_KV_HEADS) if layout == "NHD" else (BENCH_KV_HEADS, n)
        shape = (BENCH_BATCH, *rows, head_dim)
        k, v = _random_cache(shape, dt, 2), _random_cache(shape, dt, 3)
        o = device.empty(q.shape, OUT_DTYPE[dt])
        return lambda: launch_decode_attention(module, q, k, v, o, sync=False, layout=layout)

    series = {label if len(kv_dtypes) == 1 else f"{label} {dt}": (module, dt)
              for label, module in modules.items() for dt in kv_dtypes}
    bench.bandwidth_sweep(report, series, make, list(range(len(sizes))), sizes)
    if "e4m3" in kv_dtypes and len(kv_dtypes) > 1:
        off = [label for label, module in modules.items() if not fp8_on_tensor_cores(module)]
        report.earlier += tuple(f"{label} e4m3" for label in off)
        report.notes += [say("day11.fp8_not_held", label=phrased(f"{label} e4m3")) for label in off]
    report.notes += tokens_ratio_note(report, modules, lens)
    return report


def torch_sdpa_decode(q, k, v, repeat: int = 20):
    """torch's scaled_dot_product_attention on the same data (GQA), timed like the kernels; None
    without torch or CUDA in torch. K and V are given to torch in its own [batch, heads, len, d]
    layout (copied before timing). Returns (Measurement on KV bytes, o as a device fp16 array)."""
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    cp = device.require_gpu()
    qt = torch.from_dlpack(q).unsqueeze(2)                       # [batch, Hq, 1, D]
    kt = torch.from_dlpack(k).transpose(1, 2).contiguous()       # [batch, Hkv, L, D]
    vt = torch.from_dlpack(v).transpose(1, 2).contiguous()
    gqa = q.shape[1] != k.shape[2]

    def run():
        return F.scaled_dot_product_attention(qt, kt, vt, enable_gqa=gqa)

    out = run()
    torch.cuda.synchronize()
    nbytes = kv_bytes(k.shape[0], k.shape[1], k.shape[2])
    m = bench.measure("torch SDPA", run, size=nbytes, nbytes=nbytes, repeat=repeat)
    return m, cp.from_dlpack(out.squeeze(2).contiguous())


# ---- exercise 5: paged KV and split-KV -----------------------------------------------------------

def plan_chunks(blocks: int, max_len: int, sms: int, min_chunk: int = 1024) -> int:
    """How many chunks to cut each request into (split-KV). None (1) when the (request, heads) blocks
    fill two per SM already; else enough for about 8 blocks per SM in all, so that the last wave is
    short, with chunks of at least `min_chunk` tokens: shorter ones spend more on each block's
    start and merge than they gain (on an H100, batch 1: 33 chunks of 993 tokens reached 65% of the
    copy bandwidth, 128 chunks of 256 tokens 40%)."""
    if blocks >= 2 * sms:
        return 1
    return max(1, min(-(-8 * sms // blocks), -(-max_len // min_chunk)))


def paged_buffers(batch: int, num_qo_heads: int, num_chunks: int = 1, head_dim: int = HEAD_DIM,
                  dt: str = "float16") -> dict:
    """The outputs of decode_paged (o of dtype dt, lse2) and, for split-KV, its partial results
    (tmp_o, tmp_lse2), NaN-poisoned."""
    rows = batch * num_qo_heads
    bufs = {"o": device.empty((batch, num_qo_heads, head_dim), dt),
            "lse2": device.empty((batch, num_qo_heads), "float32")}
    if num_chunks > 1:
        bufs["tmp_o"] = device.empty((rows, num_chunks, head_dim), "float32")
        bufs["tmp_lse2"] = device.empty((rows, num_chunks), "float32")
    return bufs


def decode_paged(module, q, k_pages, v_pages, kv_indptr, kv_indices, kv_last_page_len, *,
                 num_chunks: int = 1, max_len: int | None = None, buffers: dict | None = None,
                 sync: bool = True, layout: str = "NHD", k_scale: float = 1.0, v_scale: float = 1.0):
    """Paged decode attention: q [batch, Hq, D]; k_pages, v_pages [pool, page_size, Hkv, D] (layout
    NHD) or [pool, Hkv, page_size, D] (HND), dtypes as decode_attention's (an fp8 cache with its
    k_scale, v_scale); kv_indptr [batch + 1], kv_indices, kv_last_page_len [batch] int32 (all device
    arrays). With num_chunks > 1, each request's tokens are split into num_chunks chunks of
    ceil(max_len / num_chunks) tokens (max_len: the longest request) and merged by merge_chunks.
    Returns (o like q, lse2 float32 [batch, Hq]); `buffers` (paged_buffers) reuses preallocated outputs."""
    kv_dtype = kv_dtype_of(k_pages)
    _device_array("q", q, 3, Q_STORAGE[kv_dtype], HEAD_DIMS)
    _device_array("k_pages", k_pages, 4, k_pages.dtype, (q.shape[-1],))
    if v_pages.shape != k_pages.shape or v_pages.dtype != k_pages.dtype:
        raise ValueError(say("day11.pages", v=v_pages.shape, k=k_pages.shape))
    if layout not in LAYOUTS:
        raise ValueError(say("arg.one_of", what="layout", value=layout, known=LAYOUTS))
    if kv_dtype != "e4m3" and (k_scale, v_scale) != (1.0, 1.0):
        raise ValueError(say("day11.scales", k_scale=k_scale, v_scale=v_scale, kv_dtype=kv_dtype))
    batch, num_qo_heads, head_dim = q.shape
    page_size, num_kv_heads = k_pages.shape[1:3] if layout == "NHD" else k_pages.shape[2:0:-1]
    _heads_ok(num_qo_heads, num_kv_heads)
    for name, a, n in (("kv_indptr", kv_indptr, batch + 1), ("kv_last_page_len", kv_last_page_len, batch)):
        if a.dtype != np.int32 or a.shape != (n,):
            raise ValueError(f"{name}: expected int32 of shape ({n},), got {a.dtype} {a.shape}")
    if kv_indices.dtype != np.int32:
        raise ValueError(f"kv_indices: expected int32, got {kv_indices.dtype}")
    if num_chunks < 1:
        raise ValueError(f"num_chunks={num_chunks}: expected >= 1")
    if num_chunks > 1 and not max_len:
        raise ValueError(say("day11.max_len"))
    chunk_tokens = -(-max_len // num_chunks) if num_chunks > 1 else NO_CHUNKS
    bufs = buffers or paged_buffers(batch, num_qo_heads, num_chunks, head_dim, OUT_DTYPE[kv_dtype])
    o, lse2 = bufs["o"], bufs["lse2"]
    tmp_o, tmp_lse2 = (bufs["tmp_o"], bufs["tmp_lse2"]) if num_chunks > 1 else (o, lse2)  # unused
    launch_decode_paged(module, q, k_pages, v_pages, kv_indptr, kv_indices, kv_last_page_len, o, lse2, tmp_o,
                        tmp_lse2, num_chunks, chunk_tokens, sync=sync, layout=layout, k_scale=k_scale,
                        v_scale=v_scale)
    if num_chunks > 1:
        rows = batch * num_qo_heads
        merge_states(specialise(module, kv_dtype, head_dim, layout), tmp_o, tmp_lse2, kernel="merge_chunks",
                     out=(o.reshape(rows, head_dim), lse2.reshape(rows)), sync=sync, head_dim=head_dim)
    return o, lse2


def ragged_lengths(rng, batch: int, kv_len: int) -> list[int]:
    """Lengths in 1..kv_len: the first request has 1 token, the last kv_len, the rest random."""
    lengths = rng.integers(1, kv_len + 1, batch)
    lengths[0], lengths[-1] = 1, kv_len
    return [int(n) for n in lengths]


def check_decode_paged(module, seed: int, batch: int, kv_len: int, page_size: int, num_qo_heads: int,
                       num_kv_heads: int, chunks: int, kv_dtype: str = "float16", head_dim: int = HEAD_DIM,
                       layout: str = "NHD") -> None:
    """Ragged requests (1 .. kv_len tokens) in randomly placed pages; o and lse2 against float64."""
    rng = np.random.default_rng(seed)
    lengths = ragged_lengths(rng, batch, kv_len)
    q, k, v, *scales = random_qkv(rng, batch, num_qo_heads, (batch, kv_len, num_kv_heads, head_dim), kv_dtype)
    k_scale, v_scale = scales or (1.0, 1.0)
    indptr, indices, last, pool = page_table(rng, lengths, page_size)
    k_pages, v_pages = (paged_pool(x, lengths, indptr, indices, page_size, pool) for x in (k, v))
    if layout == "HND":
        k_pages, v_pages = hnd(k_pages), hnd(v_pages)
    o, lse2 = decode_paged(module, device.asarray(q), _to_device(k_pages), _to_device(v_pages),
                           device.asarray(indptr), device.asarray(indices), device.asarray(last),
                           num_chunks=chunks, max_len=kv_len, layout=layout, k_scale=k_scale, v_scale=v_scale)
    k64, v64 = k.astype(np.float64) * k_scale, v.astype(np.float64) * v_scale  # fp8: exact, then scaled
    o_ref, lse_ref = attention_reference(q, k64, v64, lengths)
    where = (f"(batch={batch}, kv_len<={kv_len}, page_size={page_size}, heads {num_qo_heads}/"
             f"{num_kv_heads}, chunks={chunks}{_where(kv_dtype, head_dim, layout)})")
    dt = OUT_DTYPE[kv_dtype]
    _assert_o(device.to_host(o, dt), o_ref, name=f"decode_paged o {where}", seed=seed, dt=dt)
    assert_lse(device.to_host(lse2).ravel(), (lse_ref * LOG2E).ravel(), name=f"decode_paged lse2 {where}",
                seed=seed)


SPLIT_LEN, SPLIT_PAGE = 32768, 16


def bench_decode_paged(modules: dict, quick: bool = False) -> bench.Report:
    """Batches of long requests (kv_len 32768, page size 16, pages in random order, heads 32/8): one
    chunk per request against split-KV (plan_chunks), GB/s on KV bytes against the batch size (the
    target is read at batch 32, where both fill the GPU)."""
    device.require_gpu()
    batches = (1, 8, 32) if quick else (1, 2, 4, 8, 16, 32)
    sms = device.properties()["sms"]
    sizes = [kv_bytes(b, SPLIT_LEN, BENCH_KV_HEADS) for b in batches]
    report = bench.Report(f"paged decode, kv_len {SPLIT_LEN}, page {SPLIT_PAGE}, heads "
                          f"{BENCH_QO_HEADS}/{BENCH_KV_HEADS}", "KV bytes read (batch 1 .. "
                          f"{batches[-1]})", "GB/s")
    g = heads_per_block(BENCH_QO_HEADS, BENCH_KV_HEADS)

    def make(what, b: int):
        module, split = what
        pages = b * SPLIT_LEN // SPLIT_PAGE
        shape = (pages, SPLIT_PAGE, BENCH_KV_HEADS, HEAD_DIM)
        k, v = device.random(shape, "float16", seed=2), device.random(shape, "float16", seed=3)
        q = device.random((b, BENCH_QO_HEADS, HEAD_DIM), "float16", seed=1)
        indptr = device.asarray(np.arange(0, pages + 1, SPLIT_LEN // SPLIT_PAGE, dtype=np.int32))
        indices = device.asarray(np.random.default_rng(b).permutation(pages).astype(np.int32))
        last = device.asarray(np.full(b, SPLIT_PAGE, dtype=np.int32))
        n = plan_chunks(b * BENCH_QO_HEADS // g, SPLIT_LEN, sms) if split else 1
        bufs = paged_buffers(b, BENCH_QO_HEADS, n)
        return lambda: decode_paged(module, q, k, v, indptr, indices, last, num_chunks=n, max_len=SPLIT_LEN,
                                    buffers=bufs, sync=False)

    series = {f"{label}, {kind}": (module, kind == "split-KV")
              for label, module in modules.items() for kind in ("one chunk", "split-KV")}
    return bench.bandwidth_sweep(report, series, make, batches, sizes)


# ---- the day's exercises -----------------------------------------------------------------------

SOFTMAX_CASES = ({"rows": 1, "n": 1, "tile": 1}, {"rows": 3, "n": 31, "tile": 8}, {"rows": 33, "n": 100, "tile": 32},
                 {"rows": 257, "n": 1000, "tile": 64}, {"rows": 4096, "n": 777, "tile": 128})

MERGE_CASES = ({"rows": 1, "num_states": 1}, {"rows": 3, "num_states": 2}, {"rows": 33, "num_states": 7},
               {"rows": 257, "num_states": 31}, {"rows": 4096, "num_states": 16})

WARP_CASES = ({"batch": 1, "kv_len": 1, "num_heads": 1}, {"batch": 3, "kv_len": 31, "num_heads": 2},
              {"batch": 2, "kv_len": 33, "num_heads": 3}, {"batch": 1, "kv_len": 257, "num_heads": 2},
              {"batch": 8, "kv_len": 4097, "num_heads": 64}, {"batch": 16, "kv_len": 2048, "num_heads": 128})
# The configurations checked beside the tuned one (fp16, d128, NHD): each dtype, head_dim and layout
# at least once, an fp8 cache in both layouts.
CONFIGS = (("bfloat16", 128, "NHD"), ("float16", 64, "HND"), ("bfloat16", 256, "HND"), ("float16", 128, "HND"),
           ("e4m3", 128, "NHD"), ("e4m3", 64, "HND"), ("e4m3", 256, "NHD"))


def decode_cost(case: dict) -> int:
    """A case's work on the emulator: the product of its sizes (scaling.case_size) with head_dim counted
    relative to 128, as the tuned cases (which do not name it) are."""
    sizes = [v for k, v in case.items() if isinstance(v, int) and v > 1 and k != "head_dim"]
    return math.prod(sizes) * case.get("head_dim", HEAD_DIM) // HEAD_DIM


def _with_configs(tuned: tuple, shapes) -> tuple:
    """The tuned configuration's cases and then each of CONFIGS at shapes(head_dim), with the largest
    tuned case kept last: the benchmark checks cases[-1] before it times the tuned configuration."""
    other = tuple({**shape, "kv_dtype": dt, "head_dim": d, "layout": layout}
                  for dt, d, layout in CONFIGS for shape in shapes(d))
    return tuned[:-1] + other + tuned[-1:]


DECODE_CASES = _with_configs(
    ({"batch": 1, "kv_len": 1, "num_qo_heads": 1, "num_kv_heads": 1},
     {"batch": 3, "kv_len": 31, "num_qo_heads": 4, "num_kv_heads": 4},
     {"batch": 2, "kv_len": 33, "num_qo_heads": 8, "num_kv_heads": 2},
     {"batch": 5, "kv_len": 1000, "num_qo_heads": 32, "num_kv_heads": 8},
     {"batch": 2, "kv_len": 4097, "num_qo_heads": 16, "num_kv_heads": 2},
     {"batch": 1, "kv_len": 257, "num_qo_heads": 12, "num_kv_heads": 2},
     {"batch": 7, "kv_len": 2049, "num_qo_heads": 14, "num_kv_heads": 2},
     {"batch": 16, "kv_len": 4096, "num_qo_heads": 32, "num_kv_heads": 8}),
    # the other configurations (each its own compile of the file): kv_len 1, 31 or 33 (a step of
    # tokens is 256 / (head_dim / 8)), 257 (the ring wraps), and a long one that only a GPU runs
    # (COURSE_EMULATOR_FULL=1 runs it on the emulator)
    lambda d: ({"batch": 1, "kv_len": 1, "num_qo_heads": 1, "num_kv_heads": 1},
               {"batch": 2, "kv_len": 31 if d > 64 else 33, "num_qo_heads": 8, "num_kv_heads": 2},
               {"batch": 3, "kv_len": 257, "num_qo_heads": 12, "num_kv_heads": 2},
               {"batch": 4, "kv_len": 4097, "num_qo_heads": 32, "num_kv_heads": 8}))

PAGED_CASES = _with_configs(
    ({"batch": 1, "kv_len": 1, "page_size": 1, "num_qo_heads": 4, "num_kv_heads": 1, "chunks": 1},
     {"batch": 3, "kv_len": 31, "page_size": 1, "num_qo_heads": 8, "num_kv_heads": 2, "chunks": 1},
     {"batch": 5, "kv_len": 33, "page_size": 16, "num_qo_heads": 4, "num_kv_heads": 4, "chunks": 1},
     {"batch": 7, "kv_len": 1000, "page_size": 16, "num_qo_heads": 32, "num_kv_heads": 8, "chunks": 1},
     {"batch": 4, "kv_len": 777, "page_size": 1, "num_qo_heads": 16, "num_kv_heads": 2, "chunks": 3},
     # a chunk longer than the block's page table (TABLE_PAGES = 1024): several segments, the
     # second chunk starting mid-page
     {"batch": 1, "kv_len": 3000, "page_size": 1, "num_qo_heads": 4, "num_kv_heads": 1, "chunks": 1},
     {"batch": 2, "kv_len": 5001, "page_size": 2, "num_qo_heads": 2, "num_kv_heads": 1, "chunks": 2},
     {"batch": 2, "kv_len": 5000, "page_size": 16, "num_qo_heads": 32, "num_kv_heads": 8, "chunks": 7},
     {"batch": 3, "kv_len": 20000, "page_size": 16, "num_qo_heads": 6, "num_kv_heads": 1, "chunks": 40}),
    # the other configurations: ragged requests in pages of 16, one chunk and split-KV, and a long
    # batch that only a GPU runs
    lambda d: ({"batch": 3, "kv_len": 33, "page_size": 16, "num_qo_heads": 4, "num_kv_heads": 2, "chunks": 1},
               {"batch": 2, "kv_len": 257, "page_size": 16, "num_qo_heads": 8, "num_kv_heads": 2, "chunks": 3},
               {"batch": 4, "kv_len": 5000, "page_size": 16, "num_qo_heads": 32, "num_kv_heads": 8, "chunks": 5}))

# The cores the student writes by hand: the state update and merge in exercises 1 and 3, state_t in
# exercise 2's state.cuh (which exercise 4 on builds on through course/attention/state.cuh). The main loop and the block's merge have no course
# copy: the student writes them in exercise 4 and brings them to exercise 5.
_OWN_STATE = (r"\.\s*merge\s*\(", "state_t::merge (state.cuh): write the merge yourself")

TECH_SOFTMAX = (Technique("the online softmax: exp as one ex2.approx (MUFU.EX2), the state in registers",
                          require=(r"MUFU\.EX2",), no_spills=True, source_forbid=(_OWN_STATE,)),)
TECH_MERGE = (Technique("the merge of softmax states: exp as one ex2.approx (MUFU.EX2), the state in registers",
                        require=(r"MUFU\.EX2",), no_spills=True,
                        source_forbid=((r"course/attention/", "the course's state_t (course/attention/state.cuh): "
                                        "write yours in state.cuh"),)),)
TECH_WARP = (Technique("a warp's decode: scores summed by warp shuffles, exp as ex2.approx, state in registers",
                       require=(r"SHFL\.BFLY", r"MUFU\.EX2"), no_spills=True,
                       source_forbid=(_OWN_STATE,)),)
TECH_DECODE = (Technique("streaming K and V with cp.async (LDGSTS), scores by warp shuffles, state in registers",
                         require=(r"LDGSTS", r"SHFL\.BFLY", r"MUFU\.EX2"), no_spills=True,
                         kernels=tuple(f"decode_attention_g{g}" for g in HEADS_PER_BLOCK)),)
TECH_PAGED = (Technique("the paged decode streaming K and V with cp.async (LDGSTS), state in registers",
                        require=(r"LDGSTS",), no_spills=True),)

EXERCISES = (
    Exercise("day11", "online_softmax", "online_softmax.cu", "the online softmax (m, d, o), one thread per row",
             check_online_softmax, SOFTMAX_CASES, technique=TECH_SOFTMAX),
    Exercise("day11", "merge_states", "merge_states.cu", "merge partial attention results (m, d, o) / lse",
             check_merge_states, MERGE_CASES, technique=TECH_MERGE),
    Exercise("day11", "decode_warp", "decode_warp.cu", "one warp decodes one head: shuffles, online softmax, merge",
             check_decode_warp, WARP_CASES, technique=TECH_WARP),
    Exercise("day11", "decode_attention", "decode_attention.cu",
             "decode attention over a contiguous KV cache, GQA, online softmax, cp.async pipeline",
             check_decode_attention, DECODE_CASES, bench=bench_decode_attention, target=0.95,
             technique=TECH_DECODE, cost=decode_cost),
    Exercise("day11", "decode_paged", "decode_paged.cu", "paged KV cache (page table) and split-KV",
             check_decode_paged, PAGED_CASES, bench=bench_decode_paged, target=0.88, technique=TECH_PAGED,
             cost=decode_cost),
)
