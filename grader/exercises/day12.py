"""Day 12: prefill attention, a FlashAttention-2 forward with mma.sync and a cp.async pipeline.

The steps, each graded: attention_scalar (the online softmax, one thread per query), qk_tile (one
warp's tile of scores q k^T on the tensor cores), attention_mma (the whole FlashAttention-2 warp: the
online softmax in registers, p reused as an A fragment; graded without a mask, then causal), prefill
and prefill_causal (the same warp steps fed by a cp.async pipeline), batch_prefill (ragged requests,
GQA rows packed per KV head, the log-sum-exp beside o: FlashInfer's batch prefill) and
batch_prefill_paged (the same over day 11's paged KV cache).

Every attention kernel of the day computes, per head h (batch and heads folded into one axis, fp16):

    o[h] = softmax(q[h] k[h]^T * sm_scale + mask) v[h]      q, o: [heads, q_len, d]   k, v: [heads, kv_len, d]

with head_dim d = 64 or 128, and with `causal` the mask aligned to the end of the KV (FlashInfer's
convention for queries appended to a cache): query i sees key j iff j <= i + kv_len - q_len.
The ceiling is torch's flash SDPA on the same shapes, timed in the same process.
"""
from __future__ import annotations

import math

import numpy as np

from grader import bench, checks, device, runner
from grader.exercises import Exercise
from grader.messages import say
from grader.launchers.prefill import (HEAD_DIMS, batch_prefill, batch_prefill_tiles, launch_batch_prefill,
                                     launch_batch_prefill_paged, prefill_geometry, prefill_outputs)
from grader.references.decode_attention import assert_lse
from grader.references.paged_kv import page_table, paged_pool
from grader.references.prefill_attention import (ANCHOR_LABEL, BENCH_DIM, DTYPE, HEADS, attention_flops,
                                                attention_keys, attention_queries, attention_reference,
                                                batch_prefill_cost, batch_reference, bench_shapes, ragged_requests,
                                                sdpa_ceiling)
from grader.technique import Technique


# ---- the shapes the kernels take (the references: grader/references/prefill_attention.py) -------

def validate(q_len: int, kv_len: int, head_dim: int, causal: bool) -> None:
    if head_dim not in HEAD_DIMS:
        raise ValueError(say("day12.head_dim", head_dim=head_dim, dims=HEAD_DIMS))
    if q_len < 1 or kv_len < 1:
        raise ValueError(say("day12.lengths", q_len=q_len, kv_len=kv_len))
    if causal and q_len > kv_len:
        raise ValueError(say("day12.causal", q_len=q_len, kv_len=kv_len, count=q_len - kv_len))


# ---- the three kernel families and how they are launched ----------------------------------------

def _geometry(family: str, module, head_dim: int) -> tuple[int, int, int]:
    if family == "attention_scalar":
        return 64, 64, 0
    if family == "attention_mma":
        return 64, 128, 0
    return prefill_geometry(module)[head_dim]


def attention_launch(family: str, module, q, k, v, out, heads: int, q_len: int, kv_len: int,
                     head_dim: int, causal: bool, sync: bool = True) -> None:
    """Launch `{family}_d{head_dim}` on device arrays: grid (ceil(q_len / BLOCK_M), heads)."""
    validate(q_len, kv_len, head_dim, causal)
    block_m, threads, smem = _geometry(family, module, head_dim)
    kernel = module.get_function(f"{family}_d{head_dim}")
    if smem > 48 * 1024:  # above 48 KiB a kernel must opt in to more dynamic shared memory
        kernel.max_dynamic_shared_size_bytes = smem
    grid, block = (-(-q_len // block_m), heads), (threads,)
    args = (q, k, v, out, np.int32(q_len), np.int32(kv_len), np.int32(causal),
            np.float32(1.0 / math.sqrt(head_dim)))
    if sync:
        device.launch(kernel, grid, block, args, shared_mem=smem, what=f"{family}_d{head_dim}")
    else:
        kernel(grid, block, args, shared_mem=smem)


def _mask(causal: bool) -> str:
    """The mask a case uses, as its check's name says it."""
    return say("name.day12.causal") if causal else say("name.day12.no_mask")


def _check(family: str, module, seed: int, heads: int, q_len: int, kv_len: int, head_dim: int,
           causal: bool, logits: str = "normal") -> None:
    validate(q_len, kv_len, head_dim, causal)
    rng = np.random.default_rng(seed)
    dt = device.dtype(DTYPE)
    q = attention_queries(rng, (heads, q_len, head_dim), logits).astype(dt)
    k = attention_keys(rng, heads, kv_len, head_dim, logits).astype(dt)
    v = rng.standard_normal((heads, kv_len, head_dim)).astype(dt)
    out = device.empty((heads, q_len, head_dim), DTYPE)
    attention_launch(family, module, device.asarray(q), device.asarray(k), device.asarray(v), out,
                     heads, q_len, kv_len, head_dim, causal)
    checks.assert_close(device.to_host(out), attention_reference(q, k, v, causal), dt=DTYPE, seed=seed,
                        name=say("name.day12.out", family=family, d=head_dim, heads=heads, q_len=q_len, kv_len=kv_len,
                                 mask=_mask(causal)))


QK_ROWS, QK_KEYS = 16, 64  # one warp's queries, one K tile


def check_qk_tile(module, seed: int, heads: int, head_dim: int) -> None:
    """s = q k^T (float) for one warp's 16 queries against one tile of 64 keys, per head."""
    rng = np.random.default_rng(seed)
    dt = device.dtype(DTYPE)
    q = rng.standard_normal((heads, QK_ROWS, head_dim)).astype(dt)
    k = rng.standard_normal((heads, QK_KEYS, head_dim)).astype(dt)
    s = device.empty((heads, QK_ROWS, QK_KEYS), "float32")
    device.launch(module.get_function(f"qk_tile_d{head_dim}"), (heads,), (32,),
                  (device.asarray(q), device.asarray(k), s), what=f"qk_tile_d{head_dim}")
    expected = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1)
    # Products of fp16 are exact in float32; only the float32 sums round: 1e-5 of the norm is ample,
    # an fp16 accumulator or a wrong fragment is far outside it.
    checks.assert_close(device.to_host(s), expected, dt="float32", seed=seed,
                        tol=checks.Tolerance(1e-5, 0.0, True),
                        name=f"qk_tile_d{head_dim} s (heads={heads}, 16 queries x 64 keys)")


def check_attention_scalar(module, seed: int, heads: int, q_len: int, kv_len: int, head_dim: int,
                           causal: bool, logits: str = "normal") -> None:
    _check("attention_scalar", module, seed, heads, q_len, kv_len, head_dim, causal, logits)


def check_attention_mma(module, seed: int, heads: int, q_len: int, kv_len: int, head_dim: int,
                        causal: bool, logits: str = "normal") -> None:
    _check("attention_mma", module, seed, heads, q_len, kv_len, head_dim, causal, logits)


def check_prefill(module, seed: int, heads: int, q_len: int, kv_len: int, head_dim: int,
                  causal: bool, logits: str = "normal") -> None:
    _check("prefill", module, seed, heads, q_len, kv_len, head_dim, causal, logits)


# ---- the ceiling: torch's flash SDPA on the same data -------------------------------------------

def _bench(family: str, modules: dict, causal: bool, quick: bool, repeat: int = 20) -> bench.Report:
    """TFLOP/s of each module against torch's flash SDPA, same shapes, same inputs, same run."""
    device.require_gpu()
    mask = "causal" if causal else "non-causal"
    report = bench.Report(f"{family}, fp16 {mask}, {HEADS} heads, d {BENCH_DIM}, batch x seq = 16384",
                          "sequence length (q_len = kv_len)", "TFLOP/s")
    for label in modules:
        report.series[label] = []
    for batch, seq in bench_shapes(quick):
        heads = batch * HEADS
        q, k, v = (device.random((heads, seq, BENCH_DIM), DTYPE, seed=i) for i in range(3))
        out = device.empty((heads, seq, BENCH_DIM), DTYPE)
        flops = attention_flops(heads, seq, seq, BENCH_DIM, causal)
        for label, module in modules.items():
            report.series[label].append(bench.measure(
                label, lambda m=module: attention_launch(family, m, q, k, v, out, heads, seq, seq, BENCH_DIM,
                                                         causal, sync=False),
                size=seq, flops=flops, repeat=repeat))
        report.ceiling.append(sdpa_ceiling(q, k, v, batch, HEADS, seq, BENCH_DIM, causal, flops, repeat))
        del q, k, v, out
    report.ceiling_name = "torch flash SDPA"
    if any(c.label == ANCHOR_LABEL for c in report.ceiling):
        report.ceiling_name = "torch flash SDPA (H100 anchor, not measured)"
        report.notes.append(say("day12.anchor_note"))
    return report


def bench_attention_scalar(modules: dict, quick: bool = False) -> bench.Report:
    return _bench("attention_scalar", modules, False, quick=True, repeat=3)


def bench_attention_mma(modules: dict, quick: bool = False) -> bench.Report:
    return _bench("attention_mma", modules, False, quick)


def bench_prefill(modules: dict, quick: bool = False) -> bench.Report:
    return _bench("prefill", modules, False, quick)


def bench_prefill_causal(modules: dict, quick: bool = False) -> bench.Report:
    return _bench("prefill", modules, True, quick)


# ---- exercise 5: batch prefill, GQA, LSE ---------------------------------------------------------

def check_batch_prefill(module, seed: int, batch: int, qo_len: int, kv_len: int, num_qo_heads: int,
                        num_kv_heads: int, head_dim: int, causal: bool, logits: str = "normal") -> None:
    """Ragged requests (an empty one, a one-token one, the rest random), GQA, o and lse2 against float64."""
    rng = np.random.default_rng(seed)
    q, k, v, qo_indptr, kv_indptr = _ragged_inputs(rng, batch, qo_len, kv_len, num_qo_heads, num_kv_heads, head_dim,
                                                   logits)
    o, lse2 = batch_prefill(module, device.asarray(q), device.asarray(k), device.asarray(v), qo_indptr, kv_indptr,
                            causal)
    o_ref, lse_ref = batch_reference(q, k, v, qo_indptr, kv_indptr, causal)
    where = say("name.day12.ragged", batch=batch, qo_len=qo_len, kv_len=kv_len, hq=num_qo_heads, hkv=num_kv_heads,
                d=head_dim, mask=_mask(causal))
    checks.assert_close(device.to_host(o), o_ref, dt=DTYPE, seed=seed, name=f"batch_prefill o {where}")
    assert_lse(device.to_host(lse2).ravel(), lse_ref.ravel(), name=f"batch_prefill lse2 {where}", seed=seed)


def _ragged_inputs(rng, batch, qo_len, kv_len, num_qo_heads, num_kv_heads, head_dim, logits="normal"):
    """Ragged requests' q, k, v (normal; "rising": large logits growing along each request's keys, as
    attention_keys) and their indptrs."""
    qo_indptr, kv_indptr = ragged_requests(rng, batch, qo_len, kv_len)
    dt = device.dtype(DTYPE)
    total_kv = int(kv_indptr[-1])
    q = attention_queries(rng, (int(qo_indptr[-1]), num_qo_heads, head_dim), logits)
    k = attention_keys(rng, 1, total_kv, num_kv_heads * head_dim, logits).reshape(total_kv, num_kv_heads, head_dim)
    v = rng.standard_normal((total_kv, num_kv_heads, head_dim))
    return q.astype(dt), k.astype(dt), v.astype(dt), qo_indptr, kv_indptr


def batch_prefill_paged(module, q, k_pages, v_pages, qo_indptr, kv_indptr, kv_indices, kv_last_page_len,
                        causal: bool):
    """GQA prefill over a paged KV cache: q [total_q, Hq, D] and k_pages, v_pages [pool, page_size, Hkv, D]
    fp16 device arrays; qo_indptr [batch + 1] and day 11's page table (kv_indptr [batch + 1] in pages,
    kv_indices, kv_last_page_len [batch]) int32 numpy arrays. Returns (o fp16 like q, lse2 float32)."""
    _, hq, d = q.shape
    if k_pages.ndim != 4 or k_pages.shape[3] != d or v_pages.shape != k_pages.shape or d not in HEAD_DIMS:
        raise ValueError(say("day12.pools", q=q.shape, k=k_pages.shape, v=v_pages.shape, dims=HEAD_DIMS))
    hkv = k_pages.shape[2]
    if hq % hkv:
        raise ValueError(say("day12.gqa", hq=hq, hkv=hkv))
    tables = [np.asarray(a) for a in (qo_indptr, kv_indptr, kv_indices, kv_last_page_len)]
    if any(a.dtype != np.int32 for a in tables) or len(tables[0]) != len(tables[1]) or len(tables[3]) != len(tables[0]) - 1:
        raise ValueError(say("day12.tables"))
    o, lse2 = prefill_outputs(q)
    tiles = batch_prefill_tiles(module, tables[0], hq, hkv, d)
    launch_batch_prefill_paged(module, q, k_pages, v_pages, o, lse2, *(device.asarray(a) for a in tables),
                               tiles, causal)
    return o, lse2


def check_batch_prefill_paged(module, seed: int, batch: int, qo_len: int, kv_len: int, num_qo_heads: int,
                              num_kv_heads: int, head_dim: int, causal: bool, page_size: int,
                              logits: str = "normal") -> None:
    """The ragged requests of check_batch_prefill, their keys in randomly placed pages (day 11's page table;
    every slot no request owns is NaN), o and lse2 against float64."""
    rng = np.random.default_rng(seed)
    q, k, v, qo_indptr, kv_indptr = _ragged_inputs(rng, batch, qo_len, kv_len, num_qo_heads, num_kv_heads, head_dim,
                                                   logits)
    lengths = [int(n) for n in np.diff(kv_indptr)]
    page_indptr, indices, last, pool = page_table(rng, lengths, page_size)
    padded = [np.zeros((batch, max(lengths), num_kv_heads, head_dim), k.dtype) for _ in range(2)]
    for b, n in enumerate(lengths):
        for x, pad in zip((k, v), padded):
            pad[b, :n] = x[kv_indptr[b]:kv_indptr[b + 1]]
    k_pages, v_pages = (paged_pool(pad, lengths, page_indptr, indices, page_size, pool) for pad in padded)
    o, lse2 = batch_prefill_paged(module, device.asarray(q), device.asarray(k_pages), device.asarray(v_pages),
                                  qo_indptr, page_indptr, indices, last, causal)
    o_ref, lse_ref = batch_reference(q, k, v, qo_indptr, kv_indptr, causal)
    where = say("name.day12.paged", batch=batch, qo_len=qo_len, kv_len=kv_len, page_size=page_size, hq=num_qo_heads,
                hkv=num_kv_heads, d=head_dim, mask=_mask(causal))
    checks.assert_close(device.to_host(o), o_ref, dt=DTYPE, seed=seed, name=f"batch_prefill_paged o {where}")
    assert_lse(device.to_host(lse2).ravel(), lse_ref.ravel(), name=f"batch_prefill_paged lse2 {where}", seed=seed)


GQA_HEADS = (32, 8)  # the benchmark's query and KV heads (Llama-3 8B); MHA: 32 / 32


def bench_batch_prefill(modules: dict, quick: bool = False, repeat: int = 20) -> bench.Report:
    """TFLOP/s of the batch prefill, GQA (32/8 heads) against MHA (32/32), equal requests of seq tokens
    (batch x seq = 16384), causal, d 128, against torch's flash SDPA on the MHA shape (same flops)."""
    device.require_gpu()
    hq, hkv = GQA_HEADS
    report = bench.Report(f"batch prefill, fp16 causal, {hq} query heads, d {BENCH_DIM}, batch x seq = 16384",
                          "sequence length (qo_len = kv_len)", "TFLOP/s")
    for label in modules:
        report.series[f"{label}, GQA {hq}/{hkv}"], report.series[f"{label}, MHA {hq}/{hq}"] = [], []
    for batch, seq in bench_shapes(quick):
        indptr = np.arange(0, batch * seq + 1, seq, dtype=np.int32)
        ptr = device.asarray(indptr)
        q = device.random((batch * seq, hq, BENCH_DIM), DTYPE, seed=0)
        o, lse2 = device.empty(q.shape, DTYPE), device.empty((batch * seq, hq), "float32")
        flops = attention_flops(batch * hq, seq, seq, BENCH_DIM, True)
        for heads in (hkv, hq):
            k, v = (device.random((batch * seq, heads, BENCH_DIM), DTYPE, seed=i) for i in (1, 2))
            for label, module in modules.items():
                tiles = batch_prefill_tiles(module, indptr, hq, heads, BENCH_DIM)
                name = f"{label}, {'GQA' if heads < hq else 'MHA'} {hq}/{heads}"
                report.series[name].append(bench.measure(
                    name, lambda m=module, k=k, v=v, t=tiles: launch_batch_prefill(
                        m, q, k, v, o, lse2, ptr, ptr, t, True, sync=False), size=seq, flops=flops, repeat=repeat))
        report.ceiling.append(sdpa_ceiling(q, k, v, batch, hq, seq, BENCH_DIM, True, flops, repeat, nhd=True))
        del q, k, v, o, lse2
    report.ceiling_name = report.ceiling[-1].label
    return report


PAGE_SIZE = 16  # the paged benchmark's tokens per page (FlashInfer's and vLLM's usual page)


def bench_batch_prefill_paged(modules: dict, quick: bool = False, repeat: int = 20) -> bench.Report:
    """TFLOP/s of the paged batch prefill (GQA 32/8 heads, causal, d 128, batch x seq = 16384, pages of
    PAGE_SIZE tokens placed in a shuffled pool) against the same file's ragged batch prefill on the same
    requests: what the page table costs. The ceiling is the first module's ragged kernel."""
    device.require_gpu()
    hq, hkv = GQA_HEADS
    report = bench.Report(f"paged batch prefill, fp16 causal, {hq}/{hkv} heads, d {BENCH_DIM}, "
                          f"page size {PAGE_SIZE}, batch x seq = 16384",
                          "sequence length (qo_len = kv_len)", "TFLOP/s")
    report.series.update({label: [] for label in modules})
    first = next(iter(modules.values()))
    for batch, seq in bench_shapes(quick):
        indptr = np.arange(0, batch * seq + 1, seq, dtype=np.int32)
        pages = -(-seq // PAGE_SIZE)
        order = np.random.default_rng(0).permutation(batch * pages).astype(np.int32)
        page_indptr = device.asarray(np.arange(0, batch * pages + 1, pages, dtype=np.int32))
        indices, ptr = device.asarray(order), device.asarray(indptr)
        last = device.asarray(np.full(batch, seq - (pages - 1) * PAGE_SIZE, dtype=np.int32))
        q = device.random((batch * seq, hq, BENCH_DIM), DTYPE, seed=0)
        k, v = (device.random((batch * seq, hkv, BENCH_DIM), DTYPE, seed=i) for i in (1, 2))
        k_pages, v_pages = (device.random((batch * pages, PAGE_SIZE, hkv, BENCH_DIM), DTYPE, seed=i) for i in (3, 4))
        o, lse2 = device.empty(q.shape, DTYPE), device.empty((batch * seq, hq), "float32")
        flops = attention_flops(batch * hq, seq, seq, BENCH_DIM, True)
        for label, module in modules.items():
            tiles = batch_prefill_tiles(module, indptr, hq, hkv, BENCH_DIM)
            report.series[label].append(bench.measure(
                label, lambda m=module, t=tiles: launch_batch_prefill_paged(
                    m, q, k_pages, v_pages, o, lse2, ptr, page_indptr, indices, last, t, True, sync=False),
                size=seq, flops=flops, repeat=repeat))
        tiles = batch_prefill_tiles(first, indptr, hq, hkv, BENCH_DIM)
        report.ceiling.append(bench.measure(
            "ragged batch prefill", lambda: launch_batch_prefill(first, q, k, v, o, lse2, ptr, ptr, tiles, True,
                                                                 sync=False), size=seq, flops=flops, repeat=repeat))
        del q, k, v, k_pages, v_pages, o, lse2
    report.ceiling_name = report.ceiling[-1].label
    return report


# ---- the progression, and what each knob of the pipelined kernel is worth ------------------------

# (warps, stages, BLOCK_N): other settings of attention_prefill.cu's compile-time knobs (-D options)
# than its default (4 warps, 2 stages, 64 keys), which was the fastest of these on the H100.
PREFILL_CONFIGS = ((4, 3, 64), (8, 2, 64), (8, 3, 64), (4, 2, 32))


def config_options(warps: int, stages: int, block_n: int) -> tuple[str, ...]:
    return (f"-DPREFILL_WARPS={warps}", f"-DPREFILL_STAGES={stages}", f"-DPREFILL_BLOCK_N={block_n}")


def prefill_variant(warps: int, stages: int, block_n: int, solutions: bool | None = None):
    """attention_prefill.cu (yours, or the solution) compiled with one configuration of its knobs."""
    source = runner.source_of(_exercise("prefill"), solutions)
    return device.load(source, config_options(warps, stages, block_n))


def progression(quick: bool = True, causal: bool = False, configs=PREFILL_CONFIGS) -> bench.Report:
    """The day's versions on the same shapes against torch's flash SDPA: scalar, mma without a
    pipeline, the pipelined kernel as its file configures it, then the same file with other `configs`
    of (warps, stages, keys per tile). Each is checked before it is timed."""
    scalar, mma, prefill = _exercise("attention_scalar"), _exercise("attention_mma"), _exercise("prefill")
    versions = [("attention_scalar", "1. scalar", runner.load(scalar)),
                ("attention_mma", "2. mma.sync, no pipeline", runner.load(mma)),
                ("prefill", "3. cp.async pipeline (file's config)", runner.load(prefill))]
    for cfg in configs:
        versions.append(("prefill", "   {} warps, {} stages, n {}".format(*cfg), prefill_variant(*cfg)))
    reports = []
    for family, label, module in versions:
        check_prefill_family(family, module)
        repeat = 3 if family == "attention_scalar" else 10
        reports.append(_bench(family, {label: module}, causal, quick, repeat=repeat))
    merged = reports[-1]
    merged.title = f"day 12 progression, fp16 {'causal' if causal else 'non-causal'}, 16 heads, d 128"
    merged.series = {label: ms for r in reports for label, ms in r.series.items()}
    return merged


def _exercise(name: str) -> Exercise:
    return next(ex for ex in EXERCISES if ex.name == name)


def check_prefill_family(family: str, module, seed: int = 12) -> None:
    """One mid-sized case of each kind before timing: a wrong kernel's speed means nothing."""
    for head_dim, causal in ((64, True), (128, False)):
        _check(family, module, seed, heads=2, q_len=300, kv_len=333, head_dim=head_dim, causal=causal)


# ---- exercises ----------------------------------------------------------------------------------

def _cases(*rows) -> tuple[dict, ...]:
    """Cases from (heads, q_len, kv_len, head_dim, causal[, logits]) rows."""
    return tuple({"heads": h, "q_len": q, "kv_len": kv, "head_dim": d, "causal": c, **({"logits": r[0]} if r else {})}
                 for h, q, kv, d, c, *r in rows)


# Awkward lengths (1, 31, 33, not multiples of any tile), queries shorter than the KV (a cache being
# extended: the causal diagonal moves right), queries longer than the KV (no mask), large logits whose
# maximum grows along the KV one way or the other (a kernel without the running maximum's rescale
# overflows), and one large case last (the runner checks it before timing).
ALL_CASES = _cases((1, 1, 1, 64, False), (1, 1, 1, 128, True), (3, 31, 33, 128, False),
                   (2, 33, 33, 64, True), (2, 1, 513, 128, True), (2, 100, 1000, 128, True),
                   (2, 17, 300, 64, True), (2, 200, 65, 64, False), (2, 64, 64, 128, True),
                   (4, 257, 257, 128, True), (2, 1000, 1000, 64, False), (2, 1000, 1000, 128, True),
                   (1, 40, 200, 128, False, "rising"), (2, 40, 200, 64, True, "falling"),
                   (4, 2048, 2048, 128, True))
NON_CAUSAL = _cases((1, 1, 1, 64, False), (3, 31, 33, 128, False), (2, 200, 65, 64, False),
                    (2, 129, 1000, 128, False), (2, 1000, 1000, 64, False), (2, 127, 4097, 64, False),
                    (1, 40, 200, 128, False, "rising"), (2, 40, 200, 64, False, "falling"),
                    (4, 2048, 2048, 128, False))
CAUSAL = _cases((1, 1, 1, 128, True), (2, 33, 33, 64, True), (2, 1, 513, 128, True),
                (2, 100, 1000, 128, True), (2, 17, 300, 64, True), (2, 64, 64, 128, True),
                (4, 257, 257, 128, True), (2, 1000, 1000, 64, True), (2, 1000, 1000, 128, True),
                (1, 40, 200, 128, True, "rising"), (2, 40, 200, 64, True, "falling"),
                (4, 2048, 2048, 128, True))

# (batch, qo_len, kv_len, num_qo_heads, num_kv_heads, head_dim, causal): the maxima of ragged requests
# (an empty request and a one-token one from batch 3 on); groups of 1, 4, 6 (no power of two) and 8;
# packed rows past one tile (17 x 4 > 64); queries longer than their keys; large logits growing along the
# keys (a kernel without the running maximum overflows); one large case last.
BATCH_CASES = tuple({"batch": b, "qo_len": q, "kv_len": kv, "num_qo_heads": hq, "num_kv_heads": hkv,
                     "head_dim": d, "causal": c, **({"logits": r[0]} if r else {})}
                    for b, q, kv, hq, hkv, d, c, *r in ((1, 1, 1, 1, 1, 64, False), (1, 1, 1, 4, 1, 128, True),
                                                     (3, 31, 33, 8, 2, 64, True), (4, 33, 100, 4, 4, 128, False),
                                                     (3, 17, 300, 32, 8, 64, True), (5, 100, 150, 6, 1, 128, True),
                                                     (2, 200, 65, 8, 8, 64, False), (4, 257, 513, 8, 1, 128, True),
                                                     (3, 20, 150, 4, 2, 128, True, "rising"),
                                                     (4, 1000, 1000, 32, 8, 128, True)))
# The same shapes in pages of 1, 16 and 5 tokens (a page size that divides nothing).
PAGED_CASES = tuple({**c, "page_size": p} for c, p in zip(BATCH_CASES, (1, 16, 5, 16, 1, 16, 5, 16, 5, 16),
                                                            strict=True))


def _tensor_cores(kernels: tuple[str, ...], *extra: str, why: str) -> Technique:
    return Technique(why=why, require=(r"HMMA", r"LDSM") + extra, no_spills=True, kernels=kernels)


QK_TECHNIQUE = _tensor_cores(("qk_tile_d64", "qk_tile_d128"),
                             why="mma.sync on the tensor cores fed by ldmatrix")
MMA_TECHNIQUE = _tensor_cores(("attention_mma_d64", "attention_mma_d128"), r"SHFL", r"MUFU\.EX2",
                              why="FlashAttention-2 on mma.sync: ldmatrix fragments, the online softmax "
                                  "in registers with quad shuffles, exp2 on the SFU")
PREFILL_TECHNIQUE = _tensor_cores(("prefill_d64", "prefill_d128"), r"LDGSTS", r"SHFL", r"MUFU\.EX2",
                                  why="FlashAttention-2 on mma.sync fed by a cp.async pipeline")
BATCH_TECHNIQUE = _tensor_cores(("batch_prefill_d64", "batch_prefill_d128"), r"LDGSTS", r"MUFU\.LG2",
                                why="GQA rows packed onto the tensor cores, with the log-sum-exp")
PAGED_TECHNIQUE = _tensor_cores(("batch_prefill_paged_d64", "batch_prefill_paged_d128"), r"LDGSTS", r"MUFU\.LG2",
                                why="the packed GQA prefill reading K and V through a page table")

EXERCISES = (
    Exercise("day12", "attention_scalar", "attention_scalar.cu",
             "attention with the online softmax, one thread per query (no tensor cores)",
             check_attention_scalar, ALL_CASES, bench=bench_attention_scalar),
    Exercise("day12", "qk_tile", "qk_tile.cu",
             "one warp's tile of scores s = q k^T with ldmatrix and mma.sync",
             check_qk_tile, ({"heads": 1, "head_dim": 64}, {"heads": 3, "head_dim": 128},
                             {"heads": 2, "head_dim": 64}),
             technique=(QK_TECHNIQUE,)),
    Exercise("day12", "attention_mma", "attention_mma.cu",
             "FlashAttention-2 on mma.sync: q in registers, online softmax in registers, no pipeline, "
             "no mask", check_attention_mma, NON_CAUSAL, bench=bench_attention_mma, technique=(MMA_TECHNIQUE,)),
    Exercise("day12", "attention_mma_causal", "attention_mma.cu",
             "FlashAttention-2 on mma.sync, causal mask aligned to the end of the KV",
             check_attention_mma, CAUSAL, technique=(MMA_TECHNIQUE,)),
    Exercise("day12", "prefill", "attention_prefill.cu",
             "pipelined prefill attention (cp.async stages), no mask", check_prefill, NON_CAUSAL,
             bench=bench_prefill, target=1.0, technique=(PREFILL_TECHNIQUE,)),
    Exercise("day12", "prefill_causal", "attention_prefill.cu",
             "pipelined prefill attention (cp.async stages), causal mask aligned to the end of the KV",
             check_prefill, CAUSAL, bench=bench_prefill_causal, target=0.98, technique=(PREFILL_TECHNIQUE,)),
    Exercise("day12", "batch_prefill", "batch_prefill.cu",
             "batch prefill over ragged requests: GQA rows packed per KV head, causal per request, the LSE",
             check_batch_prefill, BATCH_CASES, bench=bench_batch_prefill, target=0.90, cost=batch_prefill_cost,
             technique=(BATCH_TECHNIQUE,)),
    Exercise("day12", "batch_prefill_paged", "batch_prefill.cu",
             "the same batch prefill over a paged KV cache (day 11's page table, a fast division by the page size)",
             check_batch_prefill_paged, PAGED_CASES, bench=bench_batch_prefill_paged, target=1.0,
             cost=batch_prefill_cost, technique=(PAGED_TECHNIQUE,)),
)
