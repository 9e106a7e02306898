"""Prefill attention (day 12; days 13 and 16): the float64 references, causal or over ragged batches,
their flops, and the benchmark's shapes and its ceiling (torch's flash SDPA).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from grader import bench
from grader.launchers.decode import LOG2E


DTYPE = "float16"


def visible_keys(q_len: int, kv_len: int, causal: bool) -> np.ndarray:
    """How many keys each query sees: kv_len, or with causal min(kv_len, i + kv_len - q_len + 1)."""
    if not causal:
        return np.full(q_len, kv_len, dtype=np.int64)
    return np.clip(np.arange(q_len) + (kv_len - q_len) + 1, 0, kv_len)


def attention_reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool,
                        sm_scale: float | None = None) -> np.ndarray:
    """float64 softmax(q k^T * sm_scale + mask) v per head, from the (rounded) inputs; rows that see
    no key at all are 0."""
    q64, k64, v64 = (x.astype(np.float64) for x in (q, k, v))
    scale = 1.0 / math.sqrt(q.shape[-1]) if sm_scale is None else float(np.float32(sm_scale))
    s = q64 @ k64.transpose(0, 2, 1) * scale
    seen = visible_keys(q.shape[1], k.shape[1], causal)
    s[:, np.arange(k.shape[1])[None, :] >= seen[:, None]] = -np.inf
    m = s.max(axis=-1, keepdims=True)
    p = np.exp(s - np.where(np.isfinite(m), m, 0.0))
    denom = p.sum(axis=-1, keepdims=True)
    return p @ v64 / np.where(denom > 0, denom, 1.0)


#: q's scale in a case of large logits: scores of about +-100 (exp overflows float past 88), so a kernel
#: that does not subtract a running maximum gets inf, then NaN.
LOGIT_SCALE = 30.0


def attention_queries(rng, shape: tuple, logits: str = "normal") -> np.ndarray:
    """Normal queries (float64); LOGIT_SCALE times larger for a case of large logits."""
    return rng.standard_normal(shape) * (1.0 if logits == "normal" else LOGIT_SCALE)


def attention_keys(rng, heads: int, kv_len: int, head_dim: int, logits: str = "normal") -> np.ndarray:
    """Normal keys [heads, kv_len, head_dim] (float64); "rising" / "falling": scaled from 1 to 4 along
    the KV (or back), so that the row maximum keeps growing in one order of the tiles or the other and a
    kernel that does not rescale its sums when the maximum grows (or keeps a stale one) overflows."""
    k = rng.standard_normal((heads, kv_len, head_dim))
    if logits in ("rising", "falling"):
        ramp = 1.0 + 3.0 * np.arange(kv_len) / max(kv_len - 1, 1)
        k *= (ramp if logits == "rising" else ramp[::-1])[None, :, None]
    return k


def attention_flops(heads: int, q_len: int, kv_len: int, head_dim: int, causal: bool) -> float:
    """4 d flops (two products) per visible (query, key) pair: causal counts about half."""
    return 4.0 * head_dim * heads * float(visible_keys(q_len, kv_len, causal).sum())


# platform-notes.md, torch 2.11 flash SDPA on the H100, B4 H16 S4096 D128 fp16: used only where torch
# cannot be imported, and said so in the report.
TORCH_ANCHOR_TFLOPS = {False: 351.0, True: 289.0}
ANCHOR_LABEL = "torch SDPA anchor (H100, platform-notes)"


def _torch_sdpa():
    """(torch, its flash-only SDPA context) or None when torch is missing or has no flash backend."""
    try:
        import torch
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    return torch, functools.partial(sdpa_kernel, SDPBackend.FLASH_ATTENTION)


def sdpa_ceiling(q, k, v, batch: int, heads: int, seq: int, head_dim: int, causal: bool,
                 flops: float, repeat: int = 20, nhd: bool = False) -> bench.Measurement:
    """torch.nn.functional.scaled_dot_product_attention (flash backend only) on the same cupy arrays,
    handed over through DLPack (no copy), timed like the kernels. Without torch: the anchor. The arrays
    hold [batch, heads, seq, head_dim], or with `nhd` [batch, seq, heads, head_dim] (viewed transposed)."""
    found = _torch_sdpa()
    if found is not None:
        torch, flash_only = found
        if nhd:
            tq, tk, tv = (torch.from_dlpack(x).view(batch, seq, heads, head_dim).transpose(1, 2) for x in (q, k, v))
        else:
            tq, tk, tv = (torch.from_dlpack(x).view(batch, heads, seq, head_dim) for x in (q, k, v))
        f = torch.nn.functional.scaled_dot_product_attention
        try:
            with flash_only():
                return bench.measure("torch flash SDPA (ceiling)", lambda: f(tq, tk, tv, is_causal=causal),
                                     size=seq, flops=flops, repeat=repeat)
        except RuntimeError:  # this torch build has no flash kernel for the GPU: fall back to the anchor
            pass
    ms = flops / (TORCH_ANCHOR_TFLOPS[causal] * 1e12) * 1e3
    return bench.Measurement(ANCHOR_LABEL, seq, ms, flops=flops)


def bench_shapes(quick: bool) -> list[tuple[int, int]]:
    """(batch, seq): 16 heads, d 128 and 16384 tokens each; the last one is B4 H16 S4096 D128."""
    seqs = (1024, 2048, 4096) if quick else (512, 1024, 2048, 4096)
    return [(16384 // s, s) for s in seqs]


HEADS = 16
BENCH_DIM = 128


def ragged_requests(rng, batch: int, qo_len: int, kv_len: int) -> tuple[np.ndarray, np.ndarray]:
    """(qo_indptr, kv_indptr), int32, of `batch` requests with up to qo_len queries and kv_len keys:
    the last request has both maxima; with 3 or more, the first has no query and the second one; with
    4 or more, the third has queries but no key (its rows: o = 0, lse2 = -inf)."""
    qo = rng.integers(0, qo_len + 1, batch)
    kv = rng.integers(0, kv_len + 1, batch)
    qo[-1], kv[-1] = qo_len, kv_len
    if batch >= 3:
        qo[0], qo[1] = 0, 1
    if batch >= 4:
        qo[2], kv[2] = max(1, qo_len // 2), 0
    return (np.concatenate([[0], np.cumsum(qo)]).astype(np.int32),
            np.concatenate([[0], np.cumsum(kv)]).astype(np.int32))


def batch_reference(q, k, v, qo_indptr, kv_indptr, causal: bool, logits=None,
                    visible=None) -> tuple[np.ndarray, np.ndarray]:
    """float64 (o [total_q, Hq, D], lse2 [total_q, Hq]) of ragged GQA attention: query head h reads KV
    head h // (Hq / Hkv); with causal, query i of a request sees key j iff j <= i + kv_len - qo_len.
    A row that sees no key: o = 0, lse2 = -inf. An attention variant (day 13) in numpy: logits(x, q_pos,
    key, head) maps the scaled logits x [Hq, n, m] (q_pos [1, n, 1] the queries' positions in the KV,
    key [1, 1, m], head [Hq, 1, 1]); visible(q_pos, key, head) False hides a key."""
    total_q, hq, d = q.shape
    group = hq // k.shape[1]
    o = np.zeros((total_q, hq, d))
    lse2 = np.full((total_q, hq), -np.inf)
    for b in range(len(qo_indptr) - 1):
        qs, qe, ks, ke = int(qo_indptr[b]), int(qo_indptr[b + 1]), int(kv_indptr[b]), int(kv_indptr[b + 1])
        if qe == qs or ke == ks:
            continue
        qb = q[qs:qe].astype(np.float64).transpose(1, 0, 2)                         # [Hq, n, D]
        kb, vb = (np.repeat(x[ks:ke].astype(np.float64).transpose(1, 0, 2), group, axis=0) for x in (k, v))
        s = qb @ kb.transpose(0, 2, 1) / math.sqrt(d)
        q_pos = (np.arange(qe - qs) + (ke - ks) - (qe - qs))[None, :, None]
        key, head = np.arange(ke - ks)[None, None, :], np.arange(hq)[:, None, None]
        if logits is not None:
            s = logits(s, q_pos, key, head)
        if visible is not None:
            s = np.where(np.broadcast_to(visible(q_pos, key, head), s.shape), s, -np.inf)
        seen = visible_keys(qe - qs, ke - ks, causal)
        s[:, np.arange(ke - ks)[None, :] >= seen[:, None]] = -np.inf
        m = s.max(axis=-1, keepdims=True)
        p = np.exp(s - np.where(np.isfinite(m), m, 0.0))
        den = p.sum(axis=-1)
        o[qs:qe] = (p @ vb / np.where(den > 0, den, 1.0)[..., None]).transpose(1, 0, 2)
        with np.errstate(divide="ignore"):
            lse2[qs:qe] = np.where(den > 0, (m[..., 0] + np.log(den)) * LOG2E, -np.inf).T
    return o, lse2


def batch_prefill_cost(case: dict) -> int:
    """The work of a case: queries x keys x query heads x d (the emulator's measure)."""
    return case["batch"] * case["qo_len"] * case["kv_len"] * case["num_qo_heads"] * case["head_dim"]
