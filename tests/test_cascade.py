"""The LSE at work (issue: prefill results that merge with day 11's merge_states): cascade attention as
FlashInfer serves a shared prompt prefix. Requests whose KV is one shared prefix followed by their own
tokens are attended in two passes, the prefix once through the paged kernel (every request's page table
points at the same pages) and each request's own tokens through the ragged one (causal); day 11's
merge_states then combines the two partial results by their lse2. The merge must equal attention over
the whole KV in float64. The course's kernels, on the emulator without a GPU."""
import numpy as np
import pytest

from grader import checks, device, paths
from grader.exercises import day11, day12
from grader.references.decode_attention import assert_lse
from grader.references.prefill_attention import batch_reference

HQ, HKV, D, PREFIX, PAGE = 8, 2, 128, 70, 16


@pytest.fixture(scope="module")
def kernels():
    return (device.load(paths.SOLUTIONS / "day12" / "batch_prefill.cu"),
            device.load(paths.SOLUTIONS / "day11" / "merge_states.cu"))


def test_shared_prefix_and_own_tokens_merge_into_the_whole(kernels):
    prefill, merge = kernels
    rng = np.random.default_rng(7)
    qo, own = [3, 1, 17], [5, 1, 40]  # each request's queries are its last tokens: own >= qo
    qo_indptr = np.concatenate([[0], np.cumsum(qo)]).astype(np.int32)
    own_indptr = np.concatenate([[0], np.cumsum(own)]).astype(np.int32)
    q = rng.standard_normal((qo_indptr[-1], HQ, D)).astype(np.float16)
    k_own, v_own = (rng.standard_normal((own_indptr[-1], HKV, D)).astype(np.float16) for _ in range(2))
    k_pre, v_pre = (rng.standard_normal((PREFIX, HKV, D)).astype(np.float16) for _ in range(2))

    # pass 1: the prefix, in pages that all three page tables share (no mask: every query follows it)
    pages = -(-PREFIX // PAGE)
    pool = [np.full((pages, PAGE, HKV, D), np.nan, np.float16) for _ in range(2)]
    for x, p in zip((k_pre, v_pre), pool):
        p.reshape(-1, HKV, D)[:PREFIX] = x
    table = (np.arange(0, 3 * pages + 1, pages, dtype=np.int32), np.tile(np.arange(pages, dtype=np.int32), 3),
             np.full(3, PREFIX - (pages - 1) * PAGE, np.int32))
    o_pre, lse_pre = day12.batch_prefill_paged(prefill, device.asarray(q), *(device.asarray(p) for p in pool),
                                               qo_indptr, *table, causal=False)
    # pass 2: each request's own tokens, causal
    o_own, lse_own = day12.batch_prefill(prefill, device.asarray(q), device.asarray(k_own), device.asarray(v_own),
                                         qo_indptr, own_indptr, causal=True)
    # merge the two partial results of every (token, head) row
    rows = qo_indptr[-1] * HQ
    parts = np.stack([device.to_host(o_pre), device.to_host(o_own)], axis=2).reshape(rows, 2, D)
    lses = np.stack([device.to_host(lse_pre), device.to_host(lse_own)], axis=2).reshape(rows, 2)
    o, lse2 = day11.merge_states(merge, device.asarray(parts.astype(np.float32)), device.asarray(lses))

    # the whole: prefix ++ own tokens per request, causal aligned to the end
    spans = list(zip(own_indptr[:-1], own_indptr[1:]))
    whole_k, whole_v = (np.concatenate([np.concatenate([pre, own_x[a:b]]) for a, b in spans])
                        for pre, own_x in ((k_pre, k_own), (v_pre, v_own)))
    kv_indptr = np.concatenate([[0], np.cumsum([PREFIX + n for n in own])]).astype(np.int32)
    o_ref, lse_ref = batch_reference(q, whole_k, whole_v, qo_indptr, kv_indptr, causal=True)
    checks.assert_close(device.to_host(o), o_ref.reshape(rows, D), dt="float16", name="cascade o", seed=7)
    assert_lse(device.to_host(lse2), lse_ref.ravel(), name="cascade lse2", seed=7)
