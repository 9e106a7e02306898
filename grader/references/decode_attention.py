"""Decode attention in float64 and the check of its log-sum-exp (day 11; days 12, 13 and the capstone).
"""
from __future__ import annotations

import math

import numpy as np

from grader import checks
from grader.messages import say


LSE_TOL = checks.Tolerance(1e-5, 1e-4, False)  # lse2: fp32 dot products and lg2.approx, |lse2| up to ~200


def attention_reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, lengths=None):
    """Decode attention in float64. q [batch, Hq, D]; k, v [batch, L, Hkv, D]; request b attends to
    its first lengths[b] tokens (all L when None). Returns o [batch, Hq, D] and the natural lse
    [batch, Hq]."""
    batch, hq, d = q.shape
    hkv = k.shape[2]
    lengths = [k.shape[1]] * batch if lengths is None else lengths
    o = np.empty((batch, hq, d))
    lse = np.empty((batch, hq))
    for b, n in enumerate(lengths):
        kb = np.repeat(k[b, :n].astype(np.float64), hq // hkv, axis=1)  # [n, Hq, D]: KV head h // group
        vb = np.repeat(v[b, :n].astype(np.float64), hq // hkv, axis=1)
        s = np.einsum("hd,nhd->hn", q[b].astype(np.float64), kb) / math.sqrt(d)
        m = s.max(axis=1, keepdims=True)
        p = np.exp(s - m)
        o[b] = np.einsum("hn,nhd->hd", p, vb) / p.sum(axis=1, keepdims=True)
        lse[b] = m[:, 0] + np.log(p.sum(axis=1))
    return o, lse


def assert_lse(got, expected, *, name: str, seed: int) -> None:
    """lse2 within LSE_TOL; an empty row must be exactly -inf."""
    got, expected = np.asarray(got, np.float64), np.asarray(expected, np.float64)
    empty = np.isneginf(expected)
    wrong = np.flatnonzero(empty & ~np.isneginf(got))
    if wrong.size:
        raise AssertionError(say("lse.empty_row", name=name, row=wrong[0], got=got[wrong[0]], replay=checks.replay(seed)))
    checks.assert_close(got[~empty], expected[~empty], dt="float32", tol=LSE_TOL, name=name, seed=seed)
