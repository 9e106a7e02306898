"""Day 5: warp-level programming: shuffle scan, one-pass (online) softmax statistics, warp-per-row softmax,
ballot-based stream compaction."""
from __future__ import annotations

import numpy as np

from grader import bench, checks, device
from grader.exercises import Exercise
from grader.messages import say
from grader.technique import Technique

WARPS_PER_BLOCK = 8  # block = (256,): one row per warp, 8 rows per block
EXACT = checks.Tolerance(0.0, 0.0, False)


def _rows_launch(rows: int):
    return (-(-rows // WARPS_PER_BLOCK),), (32 * WARPS_PER_BLOCK,)


# ---- warp scan ----------------------------------------------------------------------------------

def check_warp_scan(module, seed: int, rows: int, d: int) -> None:
    """Non-negative int32 "lengths" (0 to 100, zeros included): the inclusive scan is exact, so it must
    match np.cumsum exactly. The output is poisoned with -1, which no sum of non-negative values is."""
    x = np.random.default_rng(seed).integers(0, 101, (rows, d), dtype=np.int32)
    out = device.empty((rows, d), "int32")
    grid, block = _rows_launch(rows)
    device.launch(module.get_function("warp_scan"), grid, block,
                  (device.asarray(x), out, np.int32(rows), np.int32(d)), what="warp_scan")
    checks.assert_close(device.to_host(out), np.cumsum(x, axis=1, dtype=np.int64), dt="int32",
                        name=say("name.day05.scan", rows=rows, d=d), seed=seed)


# ---- softmax ------------------------------------------------------------------------------------

SUFFIX = {"float32": "f32", "float16": "f16"}
INPUTS = ("normal", "large")


def softmax_reference(x: np.ndarray) -> np.ndarray:
    """float64 softmax over the last axis, from the (rounded) inputs, stabilised by the row max."""
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_inputs(rng: np.random.Generator, rows: int, d: int, inputs: str) -> np.ndarray:
    """float64 logits. "normal": 3 x standard normal. "large": each row centred at +-(85..95) with a
    spread of 4, so that a naive exp overflows (exp(89) = inf in float32) or underflows to 0 for
    the whole row: only a kernel that subtracts the row max gets finite results."""
    if inputs not in INPUTS:
        raise ValueError(say("arg.one_of", what="inputs", value=inputs, known=", ".join(INPUTS)))
    x = 3 * rng.standard_normal((rows, d))
    if inputs == "large":
        centre = rng.uniform(85, 95, (rows, 1)) * rng.choice(np.array([-1.0, 1.0]), (rows, 1))
        x = centre + 4 / 3 * x
    return x


def check_softmax_stats(module, seed: int, rows: int, d: int, inputs: str) -> None:
    """m must be each row's max exactly; s = sum exp(x - m) within float32's element-wise tolerance
    (relative 1e-5: ex2.approx and the rescaling merges stay far inside). Both outputs are poisoned."""
    x = softmax_inputs(np.random.default_rng(seed), rows, d, inputs).astype(np.float32)
    m_out, s_out = device.empty(rows, "float32"), device.empty(rows, "float32")
    grid, block = _rows_launch(rows)
    device.launch(module.get_function("softmax_stats"), grid, block,
                  (device.asarray(x), m_out, s_out, np.int32(rows), np.int32(d)), what="softmax_stats")
    x64 = x.astype(np.float64)
    m = x64.max(axis=1)
    where = f"(rows={rows}, d={d}, {inputs} inputs)"
    checks.assert_close(device.to_host(m_out), m, dt="float32", tol=EXACT, seed=seed,
                        name=say("name.day05.m", where=where))
    checks.assert_close(device.to_host(s_out), np.exp(x64 - m[:, None]).sum(axis=1), dt="float32", seed=seed,
                        name=say("name.day05.s", where=where))


def _softmax_launch(module, dtype: str, out, x, rows: int, d: int, sync=True):
    kernel = module.get_function(f"softmax_{SUFFIX[dtype]}")
    grid, block = _rows_launch(rows)
    args = (out, x, np.int32(rows), np.int32(d))
    if sync:
        device.launch(kernel, grid, block, args, what=f"softmax_{SUFFIX[dtype]}")
    else:
        kernel(grid, block, args)


def check_softmax(module, seed: int, rows: int, d: int, dtype: str, inputs: str) -> None:
    """float32 element by element (relative 1e-5, absolute 1e-6: ex2.approx and the float sum stay
    well inside); float16 by the norm of the error (1e-3)."""
    if dtype not in SUFFIX:
        raise ValueError(say("arg.one_of", what="dtype", value=dtype, known=", ".join(SUFFIX)))
    x = softmax_inputs(np.random.default_rng(seed), rows, d, inputs).astype(device.dtype(dtype))
    out = device.empty((rows, d), dtype)
    _softmax_launch(module, dtype, out, device.asarray(x), rows, d)
    checks.assert_close(device.to_host(out), softmax_reference(x), dt=dtype, seed=seed,
                        name=say("name.day05.softmax", dtype=dtype, rows=rows, d=d, inputs=inputs))


BENCH_D = 1024


def bench_softmax(modules: dict, quick: bool = False, dtypes=tuple(SUFFIX)) -> bench.Report:
    """Bandwidth (the row read once, written once) against bytes moved, rows of 1024. Each dtype gets the
    same byte counts (fp16 twice the rows), so one copy ceiling per size serves every series; the
    largest is 65536 rows of fp32 (131072 of fp16), 512 MiB moved."""
    device.require_gpu()
    fp32_rows = (8192, 65536) if quick else (1024, 4096, 16384, 65536)
    sizes = [2 * 4 * BENCH_D * r for r in fp32_rows]
    report = bench.Report(f"softmax, rows of {BENCH_D}", "bytes moved (read + written)", "GB/s")

    def make(what, nbytes: int):
        module, dtype = what
        rows = nbytes // (2 * BENCH_D * device.dtype(dtype).itemsize)
        x = device.random((rows, BENCH_D), dtype, seed=1)
        out = device.empty((rows, BENCH_D), dtype)
        return lambda: _softmax_launch(module, dtype, out, x, rows, BENCH_D, sync=False)

    series = {f"{label} {dtype}": (module, dtype) for label, module in modules.items() for dtype in dtypes}
    return bench.bandwidth_sweep(report, series, make, sizes, sizes)


# Row lengths: 1, around a warp, non-multiples of 4 and 8 (the scalar path), 1024 (all in registers),
# and past 1024 (re-read from memory). The last case is the largest: the one run before timing.
SOFTMAX_SHAPES = ({"rows": 1, "d": 1}, {"rows": 7, "d": 31}, {"rows": 9, "d": 33}, {"rows": 3, "d": 128},
                  {"rows": 257, "d": 1000}, {"rows": 5, "d": 1022}, {"rows": 100, "d": 1024},
                  {"rows": 3, "d": 4097}, {"rows": 6, "d": 3000})
SOFTMAX_CASES = (tuple({**s, "dtype": dt, "inputs": "normal"} for dt in SUFFIX for s in SOFTMAX_SHAPES)
                 + tuple({**s, "dtype": dt, "inputs": "large"} for dt in SUFFIX
                         for s in ({"rows": 7, "d": 33}, {"rows": 64, "d": 1024}, {"rows": 3, "d": 4097}))
                 + ({"rows": 4096, "d": 1024, "dtype": "float32", "inputs": "normal"},))


STATS_CASES = (tuple({**s, "inputs": "normal"} for s in (
    {"rows": 1, "d": 1}, {"rows": 7, "d": 31}, {"rows": 9, "d": 33}, {"rows": 3, "d": 128},
    {"rows": 257, "d": 1000}, {"rows": 5, "d": 4097}, {"rows": 100, "d": 1024}))
    + tuple({**s, "inputs": "large"} for s in ({"rows": 7, "d": 33}, {"rows": 64, "d": 1024})))

# Where the student writes the warp's reductions: shuffles in their own code, not the course's helpers.
HELPERS = (r"course::(warp|block)_reduce|course/(reduce|warp)\.cuh",
           "the course's finished warp reductions (course/reduce.cuh, course/warp.cuh)")
SCAN_TECHNIQUE = Technique(
    why="a warp scan with shuffles (__shfl_up_sync), every lane taking part",
    require=(r"SHFL",), source_forbid=((r"warp_(inclusive|exclusive)_scan", "course::warp_inclusive_scan "
                                        "(course/warp.cuh's finished scan)"),))
STATS_TECHNIQUE = Technique(why="merging (max, sum) states across the warp with a __shfl_xor_sync butterfly",
                            require=(r"SHFL\.BFLY", r"MUFU\.EX2"), no_spills=True, source_forbid=(HELPERS,))
SOFTMAX_TECHNIQUE = Technique(
    why="a softmax whose max and sum are your own __shfl_xor_sync butterflies, the row kept in registers",
    require=(r"SHFL\.BFLY", r"MUFU\.EX2"), no_spills=True, source_forbid=(HELPERS,))


# ---- stream compaction --------------------------------------------------------------------------

COMPACT_BLOCK = 256  # elements per block, one per thread


def compact_inputs(rng: np.random.Generator, n: int, density: float) -> tuple[np.ndarray, np.float32]:
    """float32 x uniform in (0, 1] and the threshold 1 - density: about density * n elements have
    x > threshold; density 0 keeps none, density 1 keeps all."""
    if not 0.0 <= density <= 1.0:
        raise ValueError(say("day05.density", density=density))
    return (1.0 - rng.random(n)).astype(np.float32), np.float32(1.0 - density)


def check_compact(module, seed: int, n: int, density: float) -> None:
    """First the per-block counts (exact), then the compacted values and indices: exactly x[x > t] and
    np.flatnonzero(x > t), in input order (stable), with nothing written past the count."""
    x, threshold = compact_inputs(np.random.default_rng(seed), n, density)
    keep = x > threshold
    where = f"(n={n}, density={density})"
    blocks = -(-n // COMPACT_BLOCK)
    grid, block = (blocks,), (COMPACT_BLOCK,)
    x_dev = device.asarray(x)

    counts = device.empty(blocks, "int32")
    device.launch(module.get_function("compact_count"), grid, block, (x_dev, np.int32(n), threshold, counts),
                  what="compact_count")
    padded = np.zeros(blocks * COMPACT_BLOCK, dtype=bool)
    padded[:n] = keep
    expected_counts = padded.reshape(blocks, COMPACT_BLOCK).sum(axis=1)
    checks.assert_close(device.to_host(counts), expected_counts, dt="int32", seed=seed,
                        name=say("name.day05.counts", where=where))

    offsets = np.concatenate(([0], np.cumsum(expected_counts)[:-1])).astype(np.int32)
    count = int(keep.sum())
    out, out_idx = device.empty(n + 1, "float32", guard=1), device.empty(n + 1, "int32", guard=1)
    device.launch(module.get_function("compact_scatter"), grid, block,
                  (x_dev, np.int32(n), threshold, device.asarray(offsets), out, out_idx), what="compact_scatter")
    got, got_idx = device.to_host(out), device.to_host(out_idx)
    checks.assert_close(got_idx[:count], np.flatnonzero(keep), dt="int32", seed=seed,
                        name=say("name.day05.kept_idx", count=count, where=where))
    checks.assert_close(got[:count], x[keep].astype(np.float64), dt="float32", tol=EXACT, seed=seed,
                        name=say("name.day05.kept", count=count, where=where))
    checks.assert_untouched(got[count:], np.ones(n + 1 - count, bool), seed=seed,
                            name=say("name.day05.past", count=count, where=where))
    written = np.flatnonzero(got_idx[count:] != -1)
    if written.size:
        raise AssertionError(say("day05.past_count", count=count, where=where, written=written.size,
                                 index=count + written[0], replay=checks.replay(seed)))


COMPACT_CASES = tuple({"n": n, "density": p} for n in (1, 31, 33, 1000, 4097, (1 << 20) + 3)
                      for p in (0.0, 0.1, 0.5, 1.0))

EXERCISES = (
    Exercise("day05", "warp_scan", "warp_scan.cu", "inclusive scan of each row with shfl_up, one warp per row",
             check_warp_scan,
             tuple({"rows": r, "d": d} for r, d in ((1, 1), (3, 31), (5, 32), (7, 33), (4, 1000), (2, 1024),
                                                    (3, 4097), (1000, 37), (4099, 64))),
             technique=(SCAN_TECHNIQUE,)),
    Exercise("day05", "softmax_stats", "softmax_stats.cu",
             "a row's max and sum of exponentials in one pass: online (m, s) states merged by a warp butterfly",
             check_softmax_stats, STATS_CASES, technique=(STATS_TECHNIQUE,)),
    Exercise("day05", "softmax", "softmax.cu", "numerically stable softmax, one warp per row, fp32 and fp16",
             check_softmax, SOFTMAX_CASES, bench=bench_softmax, target=0.80, technique=(SOFTMAX_TECHNIQUE,)),
    Exercise("day05", "compact", "compact.cu", "stable stream compaction with __ballot_sync and __popc",
             check_compact, COMPACT_CASES),
)
