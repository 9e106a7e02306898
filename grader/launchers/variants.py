"""Attention variants through the JIT (day 13), after FlashInfer's `AttentionVariant` and its JIT's
`define_variant`: a variant is two small pieces of CUDA that day 12's batch prefill (batch_prefill.cu,
yours or the solution) calls on every score, rendered into it from kernels/templates/attention_variant.cu.jinja
and compiled by `grader.jit` once per (variant, source):

    window = variants.SLIDING_WINDOW                                  # or define_variant(...)
    o, lse2 = variants.attention(window, module, q, k, v, qo_indptr, kv_indptr, causal=True, window=128)

- `logits`: the body of `float logits(float x, int q_pos, int key, int qo_head)`, x the scaled logit
  q . k * sm_scale, returning the logit the softmax uses (soft-cap, ALiBi);
- `mask`: the body of `bool visible(int q_pos, int key, int qo_head)`, false hiding the key (a sliding
  window, a custom pattern), on top of the kernel's own causal mask;
- `params`: names of float parameters the bodies use (fields of the variant, arguments of the kernel);
  `num_qo_heads` is always there. q_pos is the query's position in its request's KV (the queries are the
  request's last tokens), key the key's;
- `source`: device functions the bodies may call (day 13's attention_variants.cu), rendered before them.
"""
from __future__ import annotations

import hashlib
import keyword
import re
from dataclasses import dataclass

import numpy as np

from grader import jit
from grader.messages import say
from grader.launchers.prefill import batch_prefill
from grader.launchers.rope import kernel_source

TEMPLATE = "attention_variant.cu.jinja"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Variant:
    name: str
    logits: str = "return x;"
    mask: str = "return true;"
    params: tuple[str, ...] = ()
    source: str = ""


def define_variant(name: str, *, logits: str | None = None, mask: str | None = None,
                   params: tuple[str, ...] = (), source: str = "") -> Variant:
    """A variant from CUDA bodies (see the module's docstring); ValueError naming what is wrong."""
    for key, ident in [("variant.name", name)] + [("variant.parameter", p) for p in params]:
        if not isinstance(ident, str) or not _NAME.match(ident) or keyword.iskeyword(ident):
            raise ValueError(say(key, ident=repr(ident)))
    clash = set(params) & {"x", "q_pos", "key", "qo_head", "num_qo_heads"}
    if clash:
        raise ValueError(say("variant.clash", param=repr(sorted(clash)[0])))
    for what, body in (("logits", logits), ("mask", mask)):
        if body is not None and "return" not in body:
            raise ValueError(say("variant.no_return", name=name, what=what))
    if logits is None and mask is None:
        raise ValueError(say("variant.no_body", name=name))
    if not isinstance(source, str):
        raise ValueError(say("variant.source", name=name, got=type(source).__name__))
    return Variant(name, logits or "return x;", mask or "return true;", tuple(params), source)


# FlashInfer's built-in variants (flashinfer/jit/attention/variants.py), in the course's terms.
SLIDING_WINDOW = define_variant("sliding_window", mask="return key > q_pos - static_cast<int>(window);",
                                params=("window",))
SOFT_CAP = define_variant("soft_cap", logits="return cap * tanhf(x / cap);", params=("cap",))
ALIBI = define_variant("alibi", logits="return x + exp2f(-8.f * (qo_head + 1) / num_qo_heads) * (key - q_pos);")


def render(variant: Variant, base_module) -> str:
    """The variant's CUDA source: the batch prefill's text (of `base_module`) with the variant's kernels."""
    return jit.render(TEMPLATE, name=variant.name, kernel_source=kernel_source(base_module),
                      logits=variant.logits, mask=variant.mask, params=list(variant.params),
                      variant_source=variant.source)


def load(variant: Variant, base_module):
    """The compiled variant (from the JIT's cache after the first time)."""
    source = render(variant, base_module)
    tag = hashlib.sha256(source.encode()).hexdigest()[:8]
    return jit.load(f"attention_{variant.name}_{tag}", source)


def attention(variant: Variant, base_module, q, k, v, qo_indptr, kv_indptr, causal: bool, **params):
    """Ragged GQA prefill with the variant: q [total_q, Hq, D], k, v [total_kv, Hkv, D] fp16 device
    arrays, qo_indptr, kv_indptr int32 numpy arrays, the variant's parameters by name. Returns
    (o fp16 like q, lse2 float32 [total_q, Hq])."""
    missing, unknown = set(variant.params) - set(params), set(params) - set(variant.params)
    if missing or unknown:
        raise ValueError(say("variant.params", name=variant.name, takes=", ".join(variant.params) or say("variant.none"),
                             got=", ".join(sorted(params)) or say("variant.none")))
    return batch_prefill(load(variant, base_module), q, k, v, qo_indptr, kv_indptr, causal, kernel=variant.name,
                         extra=tuple(np.float32(params[p]) for p in variant.params))


def alibi_slopes(num_qo_heads: int) -> np.ndarray:
    """ALiBi's per-head slopes 2^(-8 (h + 1) / H), as ALIBI computes them."""
    return 2.0 ** (-8.0 * (np.arange(num_qo_heads) + 1) / num_qo_heads)


