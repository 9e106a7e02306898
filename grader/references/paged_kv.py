"""A paged KV cache in numpy: a page table over a pool of pages, and the pool holding a cache as the
table says (days 11 and 12).
"""
from __future__ import annotations

import numpy as np

from grader.messages import say


def page_table(rng, lengths, page_size: int, spare_pages: int = 3):
    """A page table for requests of the given lengths: (kv_indptr, kv_indices, kv_last_page_len,
    num_pages) as int32 numpy arrays and the pool size. The pages are a random permutation of a pool
    with `spare_pages` pages that no request owns. A request of length 0 has no page (last length 0)."""
    if page_size < 1 or min(lengths) < 0:
        raise ValueError(say("paged.sizes", page_size=page_size, length=min(lengths)))
    pages = [-(-n // page_size) for n in lengths]
    indptr = np.concatenate([[0], np.cumsum(pages)]).astype(np.int32)
    pool = int(indptr[-1]) + spare_pages
    indices = rng.permutation(pool)[:indptr[-1]].astype(np.int32)
    last = np.array([n - (p - 1) * page_size if p else 0 for n, p in zip(lengths, pages)], dtype=np.int32)
    return indptr, indices, last, pool


def paged_pool(k: np.ndarray, lengths, indptr, indices, page_size: int, pool: int) -> np.ndarray:
    """The paged cache [pool, page_size, Hkv, D] (NHD; `hnd` makes it HND) holding k [batch, L, Hkv, D]
    (request b's first lengths[b] tokens) as the table says; every other slot is NaN, so reading one
    shows."""
    out = np.full((pool, page_size) + k.shape[2:], np.nan, dtype=k.dtype)
    for b, n in enumerate(lengths):
        for t in range(0, n, page_size):
            page = indices[indptr[b] + t // page_size]
            m = min(page_size, n - t)
            out[page, :m] = k[b, t:t + m]
    return out
