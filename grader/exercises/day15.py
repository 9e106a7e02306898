"""Day 15 (Hopper, sm_90a): warpgroup MMA (`wgmma`) from shared memory in the 128-byte swizzle, the
Tensor Memory Accelerator with an mbarrier, and the warp-specialised, pipelined GEMM built from them.

The kernels compile for sm_90a only (COURSE_REQUIRE_ARCH_SPECIFIC(90)): on another GPU the checks skip
with that reason, and without a GPU the emulator runs them (grader/emulator/wgmma.py, async_copy.py).
"""
from __future__ import annotations

import numpy as np

from grader import bench, checks, device, tensor_map
from grader.exercises import Exercise
from grader.exercises.day09 import SUFFIX, _dtype_ok, _normal, accumulate_tolerance
from grader.technique import Technique

# ---- exercise 1: one warpgroup, one 64 x 64 tile, wgmma from swizzled shared memory ---------------

TILE = 64  # wgmma_tile.cu: rows of A and B, and the K slice


def check_wgmma_tile(module, seed: int, count: int, k: int, dtype: str) -> None:
    """`count` independent tiles d = a @ b^T + d (a, b: [64, k], K-major), one warpgroup each."""
    _dtype_ok(dtype)
    if k % TILE:
        raise ValueError(f"k={k}: wgmma_tile takes K in slices of {TILE}")
    rng = np.random.default_rng(seed)
    a, b = _normal(rng, (count, TILE, k), dtype), _normal(rng, (count, TILE, k), dtype)
    d0 = rng.standard_normal((count, TILE, TILE)).astype(np.float32)
    d = device.asarray(d0)
    name = f"wgmma_tile_{SUFFIX[dtype]}"
    device.launch(module.get_function(name), (count,), (128,),
                  (device.asarray(a), device.asarray(b), d, np.int32(k)), what=name)
    expected = np.einsum("tmk,tnk->tmn", a.astype(np.float64), b.astype(np.float64)) + d0
    checks.assert_close(device.to_host(d), expected, dt="float32", tol=accumulate_tolerance(k),
                        name=f"{name} D = A @ B^T + D [tile, row, col] (count={count}, K={k})", seed=seed)


# ---- exercise 2: TMA + mbarrier: copy a matrix box by box -----------------------------------------

BOX = 64  # tma_copy.cu: rows and columns of a box (128 bytes of 16-bit elements: the 128-byte swizzle)


def tma_copy_launch(module, x, out, rows: int, cols: int, *, sync: bool = True) -> None:
    """Copy x -> out ([rows, cols] 16-bit, on the device) with tma_copy, one block per 64 x 64 box."""
    if cols % 8:
        raise ValueError(f"cols={cols}: a TMA tensor's rows must be multiples of 16 bytes (cols % 8 == 0)")
    tmap = tensor_map.tensor_map(x, (BOX, BOX), swizzle=128)
    grid = (-(-cols // BOX), -(-rows // BOX))
    kernel, args = module.get_function("tma_copy"), (tmap, out, np.int32(rows), np.int32(cols))
    if sync:
        device.launch(kernel, grid, (128,), args, what=f"tma_copy (rows={rows}, cols={cols})")
    else:  # timed: launches queue up
        kernel(grid, (128,), args)


def check_tma_copy(module, seed: int, rows: int, cols: int) -> None:
    """Random 16-bit patterns copied exactly, boxes that cross the matrix's edge included."""
    bits = np.random.default_rng(seed).integers(0, 1 << 16, (rows, cols), dtype=np.uint16)
    out = device.empty((rows, cols), "float16")  # poisoned: NaN until written
    tma_copy_launch(module, device.asarray(bits.view(np.float16)), out, rows, cols)
    checks.assert_close(device.to_host(out).view(np.uint16), bits, name=f"tma_copy out [row, col] (rows={rows}, cols={cols})",
                        seed=seed)


def bench_tma_copy(modules: dict, quick: bool = False) -> bench.Report:
    """GB/s (2 bytes read + 2 written per element) of the box-by-box TMA copy against the device copy."""
    device.require_gpu()
    sizes = (4096, 8192) if quick else (1024, 2048, 4096, 8192)
    report = bench.Report("TMA copy, 64 x 64 boxes of fp16, square matrices", "rows = cols", "GB/s")

    def make(module, n: int):
        x, out = device.random((n, n), "float16"), device.empty((n, n), "float16")
        tma_copy_launch(module, x, out, n, n)
        return lambda: tma_copy_launch(module, x, out, n, n, sync=False)

    return bench.bandwidth_sweep(report, modules, make, list(sizes), [4 * n * n for n in sizes], xs=list(sizes))


# ---- the technique of each exercise (grader/technique.py, SASS of sm_90a) -------------------------

_ASM = r"\b(asm|__asm__)\s*(volatile|__volatile__)?\s*\(\s*\""
WGMMA_TECHNIQUE = Technique(
    why="wgmma.mma_async on descriptors of swizzled shared memory (HGMMA)", require=(r"HGMMA",),
    source_require=((_ASM + r"wgmma\.fence", "`wgmma.fence.sync.aligned` before the first mma_async"),
                    (_ASM + r"wgmma\.commit_group", "`wgmma.commit_group.sync.aligned`"),
                    (_ASM + r"wgmma\.wait_group", "`wgmma.wait_group.sync.aligned`"),
                    (_ASM + r"fence\.proxy\.async", "`fence.proxy.async` after the shared-memory stores")))
TMA_TECHNIQUE = Technique(
    why="a TMA tensor copy (UTMALDG) completing on an mbarrier (SYNCS)", require=(r"UTMALDG", r"SYNCS"),
    forbid=(r"LDG",),
    source_require=((_ASM + r"mbarrier\.init", "`mbarrier.init`"),
                    (_ASM + r"mbarrier\.arrive\.expect_tx", "`mbarrier.arrive.expect_tx` with the box's bytes")))

TILE_CASES = tuple({"count": c, "k": k, "dtype": dt} for dt in SUFFIX for c, k in ((1, 64), (3, 192)))
COPY_CASES = ({"rows": 1, "cols": 8}, {"rows": 64, "cols": 64}, {"rows": 33, "cols": 72},
              {"rows": 100, "cols": 200}, {"rows": 129, "cols": 1000}, {"rows": 4096, "cols": 4104})

EXERCISES = (
    Exercise("day15", "wgmma_tile", "wgmma_tile.cu",
             "one warpgroup, one 64x64 tile: wgmma from shared memory in the 128-byte swizzle",
             check_wgmma_tile, TILE_CASES, technique=(WGMMA_TECHNIQUE,)),
    Exercise("day15", "tma_copy", "tma_copy.cu", "TMA and an mbarrier: a matrix copied box by box",
             check_tma_copy, COPY_CASES, bench=bench_tma_copy, technique=(TMA_TECHNIQUE,)),
)
