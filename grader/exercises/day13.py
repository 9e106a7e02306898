"""Day 13: the JIT system. First the two parts of a compile cache the student writes (jit_cache.py: a key
that follows the includes, an atomic write; checks in day13_cache.py). Then one kernel family (rotary embedding, rope.cu), specialised by
`grader.jit` from kernels/templates/rope.cu.jinja for each layout (rotate half or interleaved),
dtype, head_dim and tile shape. The rendering and launch live in `grader.launchers.rope`, which the
day-14 API shares; the lesson and its tests reach them here (day13.render_rope, day13.spec_name, ...).
Then attention variants (attention_variants.cu): masks the student writes, rendered by
`grader.launchers.variants` into day 12's batch prefill (the course's, so that day 13 grades the mask)."""
from __future__ import annotations

import numpy as np

from grader import bench, checks, device, paths
from grader.emulator import scaling
from grader.exercises import Exercise
from grader.messages import say
from grader.exercises.day13_cache import (CACHE_KEY_CASES, WRITE_ATOMIC_CASES, check_cache_key, check_write_atomic,
                                          host_only)
from grader.launchers import variants
from grader.launchers.rope import THETA, kernel_source, launch_rope, render_rope, rope_kernel, spec_name

__all__ = ["EXERCISES", "MAX_POS", "THETA", "base_prefill", "bench_rope", "check_chunked", "check_prefix_lm", "check_rope",
           "check_mask_table", "check_rope_interleaved", "chunked", "kernel_mask", "kernel_source", "launch_rope", "prefix_lm", "render_rope",
           "rope_kernel", "rope_reference", "spec_name", "variant_attention"]  # the launchers' too
from grader.references.decode_attention import assert_lse
from grader.references.layers import rope_reference
from grader.references.prefill_attention import batch_prefill_cost, batch_reference, ragged_requests
from grader.technique import Technique

MAX_POS = 4096


def check_rope(module, seed: int, tokens: int, heads: int, extra_heads: int, head_dim: int, dtype: str,
               vec: int, heads_per_block: int) -> None:
    """Rotate half: rows of `heads` heads to rotate, then `extra_heads` NaN heads (a packed v) that
    must stay untouched. Positions are drawn from 1..4095, so an unrotated head always shows."""
    _check(module, seed, tokens, heads, extra_heads, head_dim, dtype, vec, heads_per_block, False)


def check_rope_interleaved(module, seed: int, tokens: int, heads: int, extra_heads: int, head_dim: int,
                           dtype: str, vec: int, heads_per_block: int) -> None:
    """The same check for the interleaved layout (pairs (2i, 2i + 1))."""
    _check(module, seed, tokens, heads, extra_heads, head_dim, dtype, vec, heads_per_block, True)


def _check(module, seed, tokens, heads, extra_heads, head_dim, dtype, vec, heads_per_block, interleaved):
    kernel = rope_kernel(module, dtype, head_dim, vec, heads_per_block, interleaved=interleaved)
    rng = np.random.default_rng(seed)
    row_heads = heads + extra_heads
    x = (2 * rng.standard_normal((tokens, row_heads, head_dim))).astype(device.dtype(dtype))
    x[:, heads:] = np.nan
    pos = rng.integers(1, MAX_POS, tokens).astype(np.int32)
    x_dev = device.asarray(x)
    launch_rope(kernel, x_dev, device.asarray(pos), tokens, heads, row_heads * head_dim, head_dim, vec,
                heads_per_block)
    got = device.to_host(x_dev, dtype)
    where = f"({kernel.name}, tokens={tokens}, heads={heads})"
    layout = "interleaved pairs (2i, 2i + 1)" if interleaved else "rotate half, pairs (i, i + head_dim / 2)"
    checks.assert_close(got[:, :heads], rope_reference(x, pos, heads, interleaved=interleaved)[:, :heads],
                        dt=dtype, name=say("name.day13.rotated", layout=layout, where=where), seed=seed)
    checks.assert_untouched(got[:, heads:], np.ones(got[:, heads:].shape, bool),
                            name=say("name.day13.past", where=where), seed=seed)


BENCH_VEC, BENCH_HEADS_PER_BLOCK = 8, 4  # 16-byte vectors; the notebook sweeps the others


def bench_rope(modules: dict, quick: bool = False, dtype: str = "float16") -> bench.Report:
    """Bandwidth (bytes read + written) of q and k rotation, 40 heads of 128 (32 q + 8 k), against
    the number of tokens, with 16-byte vectors and 4 heads per block."""
    cp = device.require_gpu()
    head_dim, heads = 128, 40
    token_counts = (4096, 16384) if quick else (1024, 4096, 16384, 65536)
    sizes = [2 * t * heads * head_dim * 2 for t in token_counts]
    report = bench.Report(f"rope {dtype}, {heads} heads x {head_dim}", "bytes moved (read + written)", "GB/s")
    vec, bdy = BENCH_VEC, BENCH_HEADS_PER_BLOCK

    def make(kernel, tokens: int):
        x = device.random((tokens, heads, head_dim), dtype, seed=1)
        pos = cp.arange(tokens, dtype=cp.int32) % MAX_POS
        return lambda: launch_rope(kernel, x, pos, tokens, heads, heads * head_dim, head_dim, vec, bdy, sync=False)

    series = {label: rope_kernel(module, dtype, head_dim, vec, bdy) for label, module in modules.items()}
    return bench.bandwidth_sweep(report, series, make, token_counts, sizes)


def _cases():
    shapes = ({"tokens": 1, "heads": 1, "extra_heads": 0}, {"tokens": 31, "heads": 5, "extra_heads": 2},
              {"tokens": 33, "heads": 40, "extra_heads": 8}, {"tokens": 257, "heads": 3, "extra_heads": 1})
    configs = [("float16", 128, 8, 4), ("bfloat16", 128, 8, 4), ("float16", 64, 4, 1),
               ("bfloat16", 256, 2, 3), ("float16", 256, 8, 2), ("float16", 128, 1, 4)]
    cases = [{**s, "head_dim": d, "dtype": dt, "vec": v, "heads_per_block": h}
             for dt, d, v, h in configs for s in shapes[:3]]
    cases.append({"tokens": 4099, "heads": 40, "extra_heads": 8, "head_dim": 128, "dtype": "float16",
                  "vec": 8, "heads_per_block": 4})
    return tuple(cases)


def _interleaved_cases():
    shapes = ({"tokens": 1, "heads": 1, "extra_heads": 0}, {"tokens": 31, "heads": 5, "extra_heads": 2},
              {"tokens": 33, "heads": 40, "extra_heads": 8})
    configs = [("float16", 128, 8, 4), ("bfloat16", 64, 4, 2), ("float16", 256, 1, 1), ("bfloat16", 128, 2, 3)]
    cases = [{**s, "head_dim": d, "dtype": dt, "vec": v, "heads_per_block": h}
             for (dt, d, v, h), s in zip(configs, shapes + shapes[1:2])]
    cases.append({"tokens": 4099, "heads": 40, "extra_heads": 8, "head_dim": 128, "dtype": "bfloat16",
                  "vec": 8, "heads_per_block": 4})
    return tuple(cases)


# ---- exercises 3 and 4: attention variants (attention_variants.cu) -----------------------------------

def chunked(module) -> variants.Variant:
    """Chunked attention (Llama 4) from the mask in `module`'s attention_variants.cu; parameter chunk."""
    return variants.define_variant("chunked", mask="return day13::chunked_visible(q_pos, key, static_cast<int>(chunk));",
                                   params=("chunk",), source=kernel_source(module))


def prefix_lm(module) -> variants.Variant:
    """Prefix-LM from the mask in `module`'s attention_variants.cu; parameter prefix; run without causal."""
    return variants.define_variant("prefix_lm", mask="return day13::prefix_lm_visible(q_pos, key, static_cast<int>(prefix));",
                                   params=("prefix",), source=kernel_source(module))


def base_prefill():
    """The batch prefill the variants are rendered into, compiled: the course's (day 12's solution), or
    in a student edition (no solutions/) the student's own days/day12/batch_prefill.cu."""
    if paths.SOLUTIONS.is_dir():
        return device.load(paths.SOLUTIONS / "day12" / "batch_prefill.cu")
    return device.load(paths.DAYS / "day12" / "batch_prefill.cu")


def variant_attention(variant: variants.Variant, q, k, v, qo_indptr, kv_indptr, causal: bool, **params):
    """The variant rendered into the course's batch prefill and run: (o, lse2) on the host."""
    o, lse2 = variants.attention(variant, base_prefill(), *(device.asarray(x) for x in (q, k, v)), qo_indptr, kv_indptr,
                                 causal, **params)
    return device.to_host(o), device.to_host(lse2)


def kernel_mask(variant: variants.Variant, seq: int, causal: bool, **params) -> np.ndarray:
    """Which keys each query of one request of `seq` tokens (seq <= 64) sees, read back from the kernel:
    q = k = 0 make every visible key weigh the same and v[key] = e_key puts that weight in column key,
    so o[i, key] > 0 exactly where the rendered mask lets query i see the key. [seq, seq] bool."""
    if not 1 <= seq <= 64:
        raise ValueError(say("day13.seq", seq=seq))
    q, k = np.zeros((seq, 1, 64), np.float16), np.zeros((seq, 1, 64), np.float16)
    v = np.eye(seq, 64, dtype=np.float16)[:, None, :]
    indptr = np.array([0, seq], np.int32)
    o, _ = variant_attention(variant, q, k, v, indptr, indptr, causal, **params)
    return o[:, 0, :seq] > 0


def _check_variant(variant, visible, causal, seed, batch, qo_len, kv_len, num_qo_heads, num_kv_heads, head_dim,
                   what, **params):
    rng = np.random.default_rng(seed)
    qo_indptr, kv_indptr = ragged_requests(rng, batch, qo_len, kv_len)
    q = (2 * rng.standard_normal((int(qo_indptr[-1]), num_qo_heads, head_dim))).astype(np.float16)
    k, v = (rng.standard_normal((int(kv_indptr[-1]), num_kv_heads, head_dim)).astype(np.float16) for _ in range(2))
    o, lse2 = variant_attention(variant, q, k, v, qo_indptr, kv_indptr, causal, **params)
    o_ref, lse_ref = batch_reference(q, k, v, qo_indptr, kv_indptr, causal, visible=visible)
    where = say("name.day13.variant", what=what, batch=batch, qo_len=qo_len, kv_len=kv_len, hq=num_qo_heads,
                hkv=num_kv_heads, d=head_dim, edition="" if paths.SOLUTIONS.is_dir() else say("name.day13.edition"))
    checks.assert_close(o, o_ref, dt="float16", seed=seed, name=say("name.day13.o", variant=variant.name, where=where))
    assert_lse(lse2.ravel(), lse_ref.ravel(), name=say("name.day13.lse2", variant=variant.name, where=where), seed=seed)


MASK_TABLE_MAX = 130  # positions of the mask table checked first (past a chunk or prefix of 64)


def check_mask_table(module, which: str, param: int, n: int) -> None:
    """The mask alone, from the file's mask_table kernel over positions [0, n)^2, against numpy, before any
    attention runs: a wrong answer is named by its (q_pos, key). For chunked (run with the kernel's causal
    mask) only key <= q_pos counts."""
    q_pos, key = np.indices((n, n))
    if which == "chunked":
        expected, counts, name = key // param == q_pos // param, key <= q_pos, "chunk"
    else:
        expected, counts, name = (key < param) | (key <= q_pos), np.ones((n, n), bool), "prefix"
    out = device.asarray(np.full((n, n), 2, np.uint8))  # 2: never written
    device.launch(module.get_function("mask_table"), (-(-n * n // 256),), (256,),
                  (out, np.int32(n), np.int32(0 if which == "chunked" else 1), np.int32(param)),
                  what=f"mask_table ({which})")
    got = device.to_host(out)
    wrong = np.argwhere(counts & (got != expected))
    if wrong.size:
        q, k = (int(x) for x in wrong[0])
        said = {0: "false", 1: "true"}.get(int(got[q, k])) or say("day13.not_written", value=got[q, k])
        raise AssertionError(say("day13.mask", which=which, q=q, k=k, name=name, param=param, said=said,
                                 expected=str(bool(expected[q, k])).lower(), wrong=len(wrong),
                                 pairs=int(counts.sum()), last=n - 1))


def check_chunked(module, seed: int, batch: int, qo_len: int, kv_len: int, num_qo_heads: int, num_kv_heads: int,
                  head_dim: int, chunk: int) -> None:
    """The mask's table, then chunked attention on ragged GQA requests, causal, against float64 with the
    same mask in numpy."""
    check_mask_table(module, "chunked", chunk, min(kv_len, MASK_TABLE_MAX))
    _check_variant(chunked(module), lambda q_pos, key, head: key // chunk == q_pos // chunk, True, seed, batch,
                   qo_len, kv_len, num_qo_heads, num_kv_heads, head_dim, say("name.day13.chunked", chunk=chunk),
                   chunk=chunk)


def check_prefix_lm(module, seed: int, batch: int, qo_len: int, kv_len: int, num_qo_heads: int,
                    num_kv_heads: int, head_dim: int, prefix: int) -> None:
    """The mask's table, then prefix-LM on ragged GQA requests, without the kernel's causal mask, against
    float64."""
    check_mask_table(module, "prefix_lm", prefix, min(kv_len, MASK_TABLE_MAX))
    _check_variant(prefix_lm(module), lambda q_pos, key, head: (key < prefix) | (key <= q_pos), False, seed,
                   batch, qo_len, kv_len, num_qo_heads, num_kv_heads, head_dim,
                   say("name.day13.prefix_lm", prefix=prefix), prefix=prefix)


def _variant_cases(param: str, values) -> tuple[dict, ...]:
    shapes = ((1, 1, 1, 1, 1, 64), (3, 31, 33, 8, 2, 64), (4, 33, 100, 4, 4, 128), (3, 70, 130, 8, 1, 64),
              (2, 200, 257, 6, 2, 128))
    return tuple({"batch": b, "qo_len": q, "kv_len": kv, "num_qo_heads": hq, "num_kv_heads": hkv, "head_dim": d,
                  param: value} for (b, q, kv, hq, hkv, d), value in zip(shapes, values))


# chunk 1: a query sees itself only; 7 and 48 cut tiles of 64 keys; 64 on tile edges; 1000 > kv_len: causal.
CHUNKED_CASES = _variant_cases("chunk", (1, 7, 64, 48, 1000))
# prefix 0: causal; 5: a short prompt; 300 > kv_len: every query sees every key of its request.
PREFIX_CASES = _variant_cases("prefix", (0, 5, 300, 17, 100))


def variant_cost(case: dict) -> int:
    """A case's emulator work: the mask runs inside day 12's tensor-core kernel, whose work the emulator
    allows up to its tensor-core limit; scaled to the limit of a file without mma of its own."""
    return batch_prefill_cost(case) * scaling.LIMIT // scaling.TENSOR_LIMIT


# The graded file compiled on its own holds one vec-8 specialisation of each layout: 16-byte accesses.
WIDE = Technique("16-byte vector loads and stores (course::vec_t<T, 8>, LDG.E.128 / STG.E.128)",
                 require=(r"LDG\.E\.128", r"STG\.E\.128"))

EXERCISES = (
    Exercise("day13", "cache_key", "jit_cache.py", "a cache key that follows the source's includes",
             check_cache_key, CACHE_KEY_CASES, cost=host_only, hint_parts=(0,)),
    Exercise("day13", "write_atomic", "jit_cache.py", "a write no reader sees half of, even when it fails",
             check_write_atomic, WRITE_ATOMIC_CASES, cost=host_only, hint_parts=(1,)),
    Exercise("day13", "rope", "rope.cu", "rotary embedding (rotate half), a family specialised by the JIT",
             check_rope, _cases(), bench=bench_rope, target=0.85,
             technique=(Technique(WIDE.why, WIDE.require, kernels=("rope_f16_d128_v8_h4",)),)),
    Exercise("day13", "rope_interleaved", "rope.cu", "the interleaved (GPT-J) layout of the same family",
             check_rope_interleaved, _interleaved_cases(),
             technique=(Technique(WIDE.why, WIDE.require, kernels=("rope_interleaved_f16_d128_v8_h4",)),)),
    Exercise("day13", "chunked", "attention_variants.cu",
             "an attention variant: chunked attention's mask, rendered into the batch prefill by the JIT",
             check_chunked, CHUNKED_CASES, cost=variant_cost),
    Exercise("day13", "prefix_lm", "attention_variants.cu",
             "an attention variant: the prefix-LM mask, bidirectional over a prefix, causal after it",
             check_prefix_lm, PREFIX_CASES, cost=variant_cost),
)
