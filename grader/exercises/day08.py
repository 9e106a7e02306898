"""Day 8: warp and block scans by hand, CUB block primitives, a single-pass scan with a decoupled
look-back, stream compaction and ragged (indptr) batches."""
from __future__ import annotations

import numpy as np

from grader import bench, checks, device
from grader.exercises import Exercise
from grader.messages import say
from grader.technique import Technique

BLOCK = 256                   # threads per block: every day 8 kernel is written for exactly this many
BLOCK_SCAN_TILE = BLOCK * 4   # block_scan.cu: items per block
SCAN_TILE = BLOCK * 16        # scan.cu: items per block
COMPACT_TILE = BLOCK * 8      # compact.cu: items per block
EXACT = checks.Tolerance(0.0, 0.0, False)
U32 = 2.0 ** -24              # unit roundoff of float32


def _positive(**sizes) -> None:
    bad = {k: v for k, v in sizes.items() if not (isinstance(v, (int, np.integer)) and v >= 1)}
    if bad:
        raise ValueError(say("day08.sizes", bad=bad))


def _workspace(tiles: int):
    """The look-back's zeroed state: one status word per tile, then the tile counter."""
    ws = device.asarray(np.zeros(tiles + 1, dtype=np.uint64))
    return ws, ws[tiles:]


def _assert_left_alone(got, poison, name: str, seed: int) -> None:
    """Integer outputs are poisoned with 0xFF bytes: the elements past the result must keep them."""
    checks.assert_close(got, np.full(got.shape, poison), tol=EXACT, seed=seed,
                        name=say("name.day08.left_alone", name=name, poison=poison))


# ---- warp and block scans by hand ---------------------------------------------------------------

def check_block_scan(module, seed: int, n: int) -> None:
    """Integers 0..63 (sums exact in int32, never the poison -1):
    1. warp_inclusive_sum_i32: each warp's 32 elements scanned inclusively, exactly;
    2. block_exclusive_sum_i32: each tile of 1024 scanned exclusively, and each tile's sum, exactly.
    Both leave the element past n alone."""
    _positive(n=n)
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 64, n, dtype=np.int32)
    x_dev = device.asarray(x)
    pad = lambda size: np.concatenate([x.astype(np.int64), np.zeros(-n % size, np.int64)]).reshape(-1, size)

    out = device.empty(n + 1, "int32", guard=1)
    device.launch(module.get_function("warp_inclusive_sum_i32"), (-(-n // BLOCK),), (BLOCK,),
                  (x_dev, out, np.int64(n)), what="warp_inclusive_sum_i32")
    got = device.to_host(out)
    checks.assert_close(got[:n], np.cumsum(pad(32), axis=1).ravel()[:n], tol=EXACT, seed=seed,
                        name=say("name.day08.warp", n=n))
    _assert_left_alone(got[n:], -1, name=say("name.day08.past", what="warp_inclusive_sum_i32 out", n=n), seed=seed)

    tiles = -(-n // BLOCK_SCAN_TILE)
    out, sums = device.empty(n + 1, "int32", guard=1), device.empty(tiles + 1, "int32", guard=1)
    device.launch(module.get_function("block_exclusive_sum_i32"), (tiles,), (BLOCK,),
                  (x_dev, out, sums, np.int64(n)), what="block_exclusive_sum_i32")
    rows = pad(BLOCK_SCAN_TILE)
    got, got_sums = device.to_host(out), device.to_host(sums)
    checks.assert_close(got_sums[:tiles], rows.sum(axis=1), tol=EXACT, seed=seed,
                        name=say("name.day08.tile_sums", n=n, tiles=tiles, tile=BLOCK_SCAN_TILE))
    _assert_left_alone(got_sums[tiles:], -1, name=say("name.day08.past_tile", n=n), seed=seed)
    checks.assert_close(got[:n], (np.cumsum(rows, axis=1) - rows).ravel()[:n], tol=EXACT, seed=seed,
                        name=say("name.day08.block", n=n, tile=BLOCK_SCAN_TILE))
    _assert_left_alone(got[n:], -1, name=say("name.day08.past", what="block_exclusive_sum_i32 out", n=n), seed=seed)


# ---- single-pass exclusive scan -----------------------------------------------------------------

def _scan_launch(module, x, out, n: int, ws, counter, sync=True):
    grid = (max(1, -(-n // SCAN_TILE)),)
    args = (x, out, np.int64(n), ws, counter)
    if sync:
        device.launch(module.get_function("exclusive_sum_i32"), grid, (BLOCK,), args,
                      what=say("name.day08.scan_launch", tiles=grid[0]))
    else:
        module.get_function("exclusive_sum_i32")(grid, (BLOCK,), args)


AGGREGATE, PREFIX = 1, 2     # course::TileFlag


def check_lookback(module, rng, seed: int, tiles: int) -> None:
    """The look-back alone, against tile states left in any order: `tiles` tiles with random
    aggregates, each already published as TILE_AGGREGATE or (sparsely) TILE_PREFIX, except 8 probed
    tiles (the last among them) whose blocks run the look-back now. Each must return the exact sum of
    the aggregates before it and leave TILE_PREFIX with its inclusive sum."""
    agg = rng.integers(0, 1000, tiles).astype(np.int64)
    inclusive = np.cumsum(agg)
    flags = np.where(rng.random(tiles) < 0.04, PREFIX, AGGREGATE)
    words = (flags.astype(np.uint64) << np.uint64(32)) | np.where(flags == PREFIX, inclusive, agg).astype(np.uint64)
    probed = np.sort(np.concatenate([rng.choice(tiles - 1, min(7, tiles - 1), replace=False), [tiles - 1]]))
    words[probed] = 0  # TILE_EMPTY: the probed blocks publish these themselves
    status = device.asarray(words)
    exclusive = device.empty(probed.size + 1, "int32", guard=1)
    device.launch(module.get_function("lookback_i32"), (probed.size,), (32,),
                  (status, device.asarray(probed.astype(np.int64)), device.asarray(agg[probed].astype(np.int32)),
                   exclusive), what=say("name.day08.lookback_launch", probed=probed.size, tiles=tiles))
    where = say("name.day08.lookback_where", probed=probed.tolist(), tiles=tiles,
                prefixes=int((flags == PREFIX).sum()))
    got = device.to_host(exclusive)
    checks.assert_close(got[:probed.size], (inclusive - agg)[probed], tol=EXACT, seed=seed,
                        name=say("name.day08.lookback_prefix", where=where))
    final = device.to_host(status)[probed]
    checks.assert_close((final >> np.uint64(32)).astype(np.int64), np.full(probed.size, PREFIX), tol=EXACT,
                        seed=seed, name=say("name.day08.lookback_flags", where=where))
    checks.assert_close((final & np.uint64(0xFFFFFFFF)).astype(np.int64), inclusive[probed], tol=EXACT, seed=seed,
                        name=say("name.day08.lookback_published", where=where))


def check_scan(module, seed: int, n: int) -> None:
    """1. The look-back alone (check_lookback), over as many tiles as the scan has, plus 70 (more than
    two windows of 32). 2. The scan of integers 0..63: every prefix is exact in int32 up to n = 2^25,
    so the result must match exactly, and never -1, so an element left at the poison always shows."""
    _positive(n=n)
    rng = np.random.default_rng(seed)
    check_lookback(module, rng, seed, -(-n // SCAN_TILE) + 70)
    x = rng.integers(0, 64, n, dtype=np.int32)
    expected = np.concatenate([[0], np.cumsum(x, dtype=np.int64)[:-1]])
    out = device.empty(n + 1, "int32", guard=1)
    ws, counter = _workspace(-(-n // SCAN_TILE))
    _scan_launch(module, device.asarray(x), out, n, ws, counter)
    got = device.to_host(out)
    checks.assert_close(got[:n], expected, tol=EXACT, seed=seed, name=f"exclusive_sum_i32 out (n={n})")
    _assert_left_alone(got[n:], -1, name=say("name.day08.past", what="exclusive_sum_i32 out", n=n), seed=seed)


def bench_scan(modules: dict, quick: bool = False) -> bench.Report:
    """Bandwidth (4 bytes read + 4 written per int) against n; the ceiling is `cupy.cumsum` into an
    int32 output on the same data, measured here. Each timed run includes zeroing the look-back state."""
    cp = device.require_gpu()
    sizes = (1 << 24, 1 << 26) if quick else (1 << 20, 1 << 22, 1 << 24, 1 << 26)
    report = bench.Report("exclusive scan of int32 against cupy.cumsum", "n (int32 elements)", "GB/s",
                          ceiling_name="cupy.cumsum")
    for label in modules:
        report.series[label] = []
    for n in sizes:
        x = device.asarray(np.random.default_rng(1).integers(0, 64, n, dtype=np.int32))
        out = device.empty(n, "int32")
        ws, counter = _workspace(-(-n // SCAN_TILE))
        for label, module in modules.items():
            def run(module=module):
                ws.fill(0)
                _scan_launch(module, x, out, n, ws, counter, sync=False)
            report.series[label].append(bench.measure(label, run, size=n, nbytes=8 * n))
        report.ceiling.append(bench.measure("cupy.cumsum (ceiling)",
                                            lambda: cp.cumsum(x, dtype=np.int32, out=out),
                                            size=n, nbytes=8 * n))
        del x, out, ws, counter
    return report


# ---- stream compaction --------------------------------------------------------------------------

def check_compact(module, seed: int, n: int, threshold: float) -> None:
    """out[:count] must be exactly the kept elements in order; out[count:] keeps its NaN poison."""
    _positive(n=n)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n, dtype=np.float32)
    kept = x[x > np.float32(threshold)]
    out, count = device.empty(n), device.empty(1, "int32")
    ws, counter = _workspace(-(-n // COMPACT_TILE))
    device.launch(module.get_function("compact_f32"), (-(-n // COMPACT_TILE),), (BLOCK,),
                  (device.asarray(x), out, count, np.int64(n), np.float32(threshold), ws, counter),
                  what="compact_f32")
    where = f"(n={n}, threshold={threshold})"
    checks.assert_close(device.to_host(count), np.array([kept.size]), tol=EXACT, seed=seed,
                        name=f"compact_f32 count {where}")
    got = device.to_host(out)
    checks.assert_close(got[:kept.size], kept.astype(np.float64), tol=EXACT, seed=seed,
                        name=f"compact_f32 out[:count] {where}")
    checks.assert_untouched(got[kept.size:], np.ones(n - kept.size, bool), seed=seed,
                            name=f"compact_f32 out[count:] {where}")


# ---- ragged batches -----------------------------------------------------------------------------

def ragged_lengths(rng, batch: int, max_len: int) -> np.ndarray:
    """Random lengths 0..max_len, about a quarter of them forced to 0 (empty sequences)."""
    lengths = rng.integers(0, max_len + 1, batch).astype(np.int32)
    lengths[rng.random(batch) < 0.25] = 0
    return lengths


def indptr_reference(lengths: np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])


def _build_indptr(module, lengths: np.ndarray, seed: int, what: str):
    """Run build_indptr, check it exactly, and return it on the device."""
    batch = lengths.size
    indptr = device.empty(batch + 2, "int32", guard=1)  # one extra element that must stay untouched
    device.launch(module.get_function("build_indptr"), (1,), (BLOCK,),
                  (device.asarray(lengths), indptr, np.int32(batch)), what="build_indptr")
    got = device.to_host(indptr)
    checks.assert_close(got[:batch + 1], indptr_reference(lengths), tol=EXACT, seed=seed,
                        name=say("name.day08.indptr", what=what))
    _assert_left_alone(got[batch + 1:], -1, name=say("name.day08.past_indptr", what=what), seed=seed)
    return indptr[:batch + 1]


def check_ragged(module, seed: int, batch: int, max_len: int, d: int) -> None:
    """1. build_indptr from random lengths (a quarter of them 0), exactly.
    2. segment_sum of normal floats per sequence, within 64 * 2^-24 * sum(|x|) of the float64 sum
       (the largest such bound over the sequences; 0.0 exactly for an empty sequence).
    3. gather_rows of random sequence ids (repeats and empty sequences included) into a new packed
       batch whose indptr comes from build_indptr of the selected lengths: rows copied exactly, and
       the row after the last left alone."""
    _positive(batch=batch, d=d)
    if max_len < 0:
        raise ValueError(say("day08.max_len", max_len=max_len))
    rng = np.random.default_rng(seed)
    where = f"(batch={batch}, max_len={max_len}, d={d})"
    lengths = ragged_lengths(rng, batch, max_len)
    indptr_host = indptr_reference(lengths)
    indptr = _build_indptr(module, lengths, seed, what=say("name.day08.lengths", where=where))
    nnz = int(indptr_host[-1])

    values = rng.standard_normal(nnz, dtype=np.float32)
    sums = device.empty(batch)
    device.launch(module.get_function("segment_sum"), (batch,), (BLOCK,),
                  (device.asarray(values), indptr, sums), what="segment_sum")
    v64 = np.concatenate([values.astype(np.float64), [0.0]])  # reduceat needs an index at nnz
    starts = indptr_host[:-1]
    expected = np.where(lengths > 0, np.add.reduceat(v64, starts), 0.0)
    bound = 64 * U32 * float(np.where(lengths > 0, np.add.reduceat(np.abs(v64), starts), 0.0).max())
    checks.assert_close(device.to_host(sums), expected, tol=checks.Tolerance(0.0, bound, False), seed=seed,
                        name=say("name.day08.segment_sum", where=where, bound=bound))

    num_ids = max(1, batch // 2 + 1)
    ids = rng.integers(0, batch, num_ids).astype(np.int32)
    out_indptr = _build_indptr(module, lengths[ids], seed, what=say("name.day08.selected", where=where))
    out_rows = int(lengths[ids].sum(dtype=np.int64))
    data = rng.standard_normal((nnz, d), dtype=np.float32)
    out = device.empty((out_rows + 1, d), guard=1)
    if out_rows:
        device.launch(module.get_function("gather_rows"), (-(-out_rows // (BLOCK // 32)),), (BLOCK,),
                      (device.asarray(data), indptr, device.asarray(ids), out_indptr, out,
                       np.int32(num_ids), np.int64(out_rows), np.int32(d)), what="gather_rows")
    rows = np.concatenate([np.arange(indptr_host[i], indptr_host[i + 1]) for i in ids]).astype(np.int64)
    got = device.to_host(out)
    checks.assert_close(got[:out_rows], data[rows].astype(np.float64), tol=EXACT, seed=seed,
                        name=say("name.day08.gather", where=where, ids=num_ids, rows=out_rows))
    checks.assert_untouched(got[out_rows:], np.ones((1, d), bool), seed=seed,
                            name=say("name.day08.past_row", where=where))


SCAN_SIZES = (1, 31, 33, 4095, 4096, 4097, 100_003, 1_000_000, (1 << 24) + 5)
COMPACT_CASES = tuple({"n": n, "threshold": t} for n, t in
                      ((1, 0.0), (1, -10.0), (31, 0.5), (33, 10.0), (2047, 0.0), (2049, -10.0),
                       (100_003, 1.5), (1_000_001, 10.0), (1_000_001, -0.5), ((1 << 24) + 3, 0.0)))
RAGGED_CASES = ({"batch": 1, "max_len": 1, "d": 1}, {"batch": 1, "max_len": 5000, "d": 3},
                {"batch": 31, "max_len": 0, "d": 4}, {"batch": 31, "max_len": 40, "d": 33},
                {"batch": 33, "max_len": 300, "d": 128}, {"batch": 1000, "max_len": 17, "d": 64},
                {"batch": 1025, "max_len": 2, "d": 7}, {"batch": 5000, "max_len": 64, "d": 128},
                {"batch": 70_000, "max_len": 3, "d": 1})

BLOCK_SCAN_SIZES = (1, 31, 33, 255, 1023, 1024, 1025, 100_003, (1 << 20) + 5)

NO_CUB = (r"\bcub::", "CUB (write the scans yourself here)")
SCAN_TECHNIQUE = Technique(
    why="the decoupled look-back: tiles claimed with an atomic counter, states published with a release "
        "store and read with acquire loads, predecessors scanned 32 at a time with warp votes",
    require=(r"ATOMG?\.E\.ADD", r"VOTE\.ANY", r"STG\.E\.64\.STRONG\.GPU", r"LDG\.E\.64\.STRONG\.GPU"),
    no_spills=True, kernels=("exclusive_sum_i32",),
    source_require=((r"st\.release\.gpu\.global", "inline PTX st.release.gpu.global"),
                    (r"ld\.acquire\.gpu\.global", "inline PTX ld.acquire.gpu.global")),
    source_forbid=((r"course/scan\.cuh", "the course's finished look-back (course/scan.cuh)"),))

EXERCISES = (
    Exercise("day08", "block_scan", "block_scan.cu", "scans by hand: a warp scan with shuffles, then a block scan",
             check_block_scan, tuple({"n": n} for n in BLOCK_SCAN_SIZES),
             technique=(Technique(why="scans written with warp shuffles (shfl.sync.up), no library",
                                  require=(r"SHFL\.UP",), no_spills=True, source_forbid=(NO_CUB,)),)),
    Exercise("day08", "scan", "scan.cu", "single-pass exclusive scan: CUB block scan + decoupled look-back",
             check_scan, tuple({"n": n} for n in SCAN_SIZES), bench=bench_scan, target=0.70,
             technique=(SCAN_TECHNIQUE,)),
    Exercise("day08", "compact", "compact.cu", "stream compaction with a block exclusive scan",
             check_compact, COMPACT_CASES),
    Exercise("day08", "ragged", "ragged.cu", "ragged batches: indptr from lengths, segment sums, gathering rows",
             check_ragged, RAGGED_CASES),
)
