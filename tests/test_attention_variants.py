"""Attention variants through the JIT (grader.launchers.variants, day 13): each built-in variant, and one
defined here the way a user would, rendered into day 12's batch prefill (the solution's), compiled by
grader.jit and checked against the float64 reference with the same variant in numpy, on ragged GQA
requests (an empty one, a one-query one, one with queries and no keys), and on decode steps (one query per
request). On the emulator without a GPU."""
import numpy as np
import pytest

from grader import checks, device, paths
from grader.references.decode_attention import assert_lse
from grader.references.prefill_attention import batch_reference, ragged_requests
from grader.launchers import variants

CASE = {"batch": 4, "qo_len": 37, "kv_len": 90, "num_qo_heads": 8, "num_kv_heads": 2, "head_dim": 64}


@pytest.fixture(scope="module")
def base():
    return device.load(paths.SOLUTIONS / "day12" / "batch_prefill.cu")


def _run(base, variant, causal, ref_logits=None, ref_visible=None, seed=3, head_dim=64, decode=False, **params):
    rng = np.random.default_rng(seed)
    case = {**CASE, "head_dim": head_dim}
    qo_indptr, kv_indptr = ragged_requests(rng, case["batch"], case["qo_len"], case["kv_len"])
    if decode:  # one query per request, at the end of its KV: FlashInfer's decode on tensor cores
        qo_indptr = np.arange(case["batch"] + 1, dtype=np.int32)
    q = (2 * rng.standard_normal((qo_indptr[-1], case["num_qo_heads"], head_dim))).astype(np.float16)
    k, v = (rng.standard_normal((kv_indptr[-1], case["num_kv_heads"], head_dim)).astype(np.float16) for _ in range(2))
    o, lse2 = variants.attention(variant, base, *(device.asarray(x) for x in (q, k, v)), qo_indptr, kv_indptr,
                                 causal, **params)
    o_ref, lse_ref = batch_reference(q, k, v, qo_indptr, kv_indptr, causal, logits=ref_logits,
                                           visible=ref_visible)
    name = f"{variant.name} ({'causal' if causal else 'no mask'}, {params})"
    checks.assert_close(device.to_host(o), o_ref, dt="float16", seed=seed, name=f"{name} o")
    assert_lse(device.to_host(lse2).ravel(), lse_ref.ravel(), name=f"{name} lse2", seed=seed)


@pytest.mark.parametrize("window", [1, 16, 70])
def test_sliding_window(base, window):
    _run(base, variants.SLIDING_WINDOW, True, ref_visible=lambda q_pos, key, head: key > q_pos - window,
         window=window)


@pytest.mark.parametrize("causal", [False, True])
def test_soft_cap(base, causal):
    cap = 2.0  # small: the cap bends most logits of these inputs
    _run(base, variants.SOFT_CAP, causal, ref_logits=lambda x, q_pos, key, head: cap * np.tanh(x / cap), cap=cap,
         head_dim=128)


def test_alibi(base):
    slopes = variants.alibi_slopes(CASE["num_qo_heads"])
    _run(base, variants.ALIBI, True,
         ref_logits=lambda x, q_pos, key, head: x + slopes[head] * (key - q_pos))


def test_a_variant_defined_by_the_user(base):
    """Attention sinks + a window (StreamingLLM): the first 4 keys and the last 8 before each query."""
    sink = variants.define_variant("sink_window", mask="return key < 4 || key > q_pos - static_cast<int>(w);",
                                   params=("w",))
    _run(base, sink, True, ref_visible=lambda q_pos, key, head: (key < 4) | (key > q_pos - 8), w=8)


@pytest.mark.parametrize("variant,ref", [
    (variants.SOFT_CAP, {"ref_logits": lambda x, q_pos, key, head: 2.0 * np.tanh(x / 2.0), "cap": 2.0}),
    (variants.SLIDING_WINDOW, {"ref_visible": lambda q_pos, key, head: key > q_pos - 20, "window": 20}),
], ids=["soft_cap", "sliding_window"])
def test_decode_steps(base, variant, ref):
    """A decode step (one query per request, GQA group 4; one request with no key) through the same
    template: FlashInfer's decode with use_tensor_cores, the prefill kernel on packed group rows."""
    _run(base, variant, True, decode=True, **ref)


def test_a_wrong_reference_is_caught(base):
    """The check can fail: the window off by one key."""
    with pytest.raises(AssertionError):
        _run(base, variants.SLIDING_WINDOW, True, ref_visible=lambda q_pos, key, head: key >= q_pos - 16, window=16)


def test_variants_are_cached_and_distinct(base):
    a, b = (variants.load(v, base) for v in (variants.SOFT_CAP, variants.ALIBI))
    assert a is not b and variants.load(variants.SOFT_CAP, base) is a
    assert "soft_cap_variant" in variants.render(variants.SOFT_CAP, base)


@pytest.mark.parametrize("kwargs,says", [
    ({"name": "2bad", "mask": "return true;"}, "expected an identifier"),
    ({"name": "v", "mask": "return true;", "params": ("key",)}, "would hide an argument"),
    ({"name": "v", "logits": "x * 2;"}, "must return a value"),
    ({"name": "v"}, "give a logits body, a mask body or both"),
])
def test_define_variant_says_what_is_wrong(kwargs, says):
    with pytest.raises(ValueError, match=says):
        variants.define_variant(**kwargs)


def test_missing_parameter_is_named(base):
    q = device.asarray(np.zeros((2, 8, 64), np.float16))
    k = device.asarray(np.zeros((3, 2, 64), np.float16))
    with pytest.raises(ValueError, match="takes window; got none"):
        variants.attention(variants.SLIDING_WINDOW, base, q, k, k, np.array([0, 2], np.int32),
                           np.array([0, 3], np.int32), True)
