"""Memory statistics of a launch, counted in batches: each memory instruction's deferred accesses
(from ops/memory_access) become its requests, 32-byte sectors and shared-memory wavefronts, against the ideal."""
from __future__ import annotations

import numpy as np


def _firsts(x: np.ndarray) -> np.ndarray:
    """True where a sorted array's value starts (differs from the one before)."""
    out = np.empty(x.size, bool)
    out[:1] = True
    np.not_equal(x[1:], x[:-1], out=out[1:])
    return out


PENDING_LIMIT = 1 << 21  # deferred accesses (and shared warps x 32) counted at once, at most


def defer(launch, key, item):
    launch.pending.setdefault(key, []).append(item)
    launch.pending_size += item[0].size + (32 * item[1] if key[1] == "shared" else 0)
    if launch.pending_size > PENDING_LIMIT:
        count_pending(launch)


def count_pending(launch):
    """Count the deferred accesses into launch.counts, each instruction's in one batch: requests are
    warps, so the warps of several executions simply add up."""
    for (pc, kind), items in launch.pending.items():
        (_count_global if kind == "global" else _count_shared)(launch.counts, pc, items)
    launch.pending, launch.pending_size = {}, 0


def _count_global(counts, pc, items):
    """32-byte sectors per warp request: distinct (warp, sector) pairs, against the ideal."""
    rec = counts.setdefault((pc, "global"), {"kind": "global", "requests": 0, "sectors": 0, "ideal": 0, "bytes": 0})
    sector = np.concatenate([it[0] for it in items])
    first = np.concatenate([it[1] for it in items])  # every execution starts a warp
    warps = sum(it[2] for it in items)
    # O(k) when the sectors do not decrease within a warp (the usual case), a sort otherwise
    step = (sector[1:] - sector[:-1])[~first[1:]]
    if (step >= 0).all():
        distinct = warps + int(np.count_nonzero(step))
    else:
        warp = np.cumsum(first)
        order = np.lexsort((sector, warp))
        s, w = sector[order], warp[order]
        distinct = 1 + int(np.count_nonzero((s[1:] != s[:-1]) | (w[1:] != w[:-1])))
    rec["requests"] += warps
    rec["sectors"] += distinct
    rec["ideal"] += sum(it[3] for it in items)
    rec["bytes"] += sum(it[4] for it in items)


def _count_shared(counts, pc, items):
    """Wavefronts per warp request against the ideal. A warp's request needs, per bank, one wavefront
    for each distinct word the bank serves (broadcasts are free). An access of n >= 2 whole words is
    n-aligned, so it is counted by its group of n words: each of the n banks of a group serves the
    group's count."""
    rec = counts.setdefault((pc, "shared"), {"kind": "shared", "requests": 0, "wavefronts": 0, "ideal": 0,
                                             "max_ways": 0})
    warps = sum(it[1] for it in items)
    if not warps:
        return
    nwords = items[0][2]
    groups = 32 // nwords
    base = np.cumsum([0] + [it[1] for it in items[:-1]])  # each execution's warps follow the last's
    key = np.concatenate([it[0] + (int(b) << 32) for it, b in zip(items, base)])  # (warp, group of words)
    if (key[1:] < key[:-1]).any():
        key = np.sort(key)
    key = key[_firsts(key)]
    per_bank = np.bincount((key >> 32) * groups + (key & (groups - 1)), minlength=warps * groups)
    per_bank = per_bank.reshape(warps, groups)
    waves = per_bank.max(axis=1)  # the most distinct words any bank serves
    ideal = -(-per_bank.sum(axis=1) * nwords // 32)
    rec["requests"] += warps
    rec["wavefronts"] += int(np.maximum(waves, ideal).sum())
    rec["ideal"] += int(ideal.sum())
    rec["max_ways"] = max(rec["max_ways"], int(waves.max()))
