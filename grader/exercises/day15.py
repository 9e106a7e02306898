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


# ---- exercise 3: the warp-specialised GEMM: c = a @ b^T --------------------------------------------

GEMM_TILE, GEMM_BK, GEMM_STAGES, GEMM_THREADS = 128, 64, 4, 384  # gemm_wgmma.cu's BM = BN, BK, STAGES, threads
GEMM_SMEM = GEMM_STAGES * 2 * GEMM_TILE * GEMM_BK * 2 + 2 * GEMM_STAGES * 8 + 1024  # + alignment slack


def gemm_launch(module, a, b, c, m: int, n: int, k: int, dtype: str, *, sync: bool = True) -> None:
    """c [m, n] = a [m, k] @ b [n, k]^T with gemm_wgmma (device arrays of `dtype`)."""
    if k % 8:
        raise ValueError(f"k={k}: a TMA tensor's rows must be multiples of 16 bytes (k % 8 == 0)")
    kernel = module.get_function(f"gemm_wgmma_{SUFFIX[dtype]}")
    kernel.max_dynamic_shared_size_bytes = GEMM_SMEM  # above 48 KiB a kernel must opt in
    box = (GEMM_TILE, GEMM_BK)
    args = (tensor_map.tensor_map(_as_16bit(a), box, 128), tensor_map.tensor_map(_as_16bit(b), box, 128), c,
            np.int32(m), np.int32(n), np.int32(k))
    grid = (-(-n // GEMM_TILE), -(-m // GEMM_TILE))
    if sync:
        device.launch(kernel, grid, (GEMM_THREADS,), args, shared_mem=GEMM_SMEM,
                      what=f"gemm_wgmma_{SUFFIX[dtype]} (M={m}, N={n}, K={k})")
    else:
        kernel(grid, (GEMM_THREADS,), args, shared_mem=GEMM_SMEM)


def _as_16bit(x):
    """A bfloat16 device array is kept as its uint16 bits: its tensor map is encoded as fp16 (the TMA
    unit copies bytes; only their size matters to it)."""
    return x.view(np.float16) if x.dtype == np.uint16 else x


def check_gemm_wgmma(module, seed: int, m: int, n: int, k: int, dtype: str) -> None:
    _dtype_ok(dtype)
    rng = np.random.default_rng(seed)
    a, b = _normal(rng, (m, k), dtype), _normal(rng, (n, k), dtype)
    c = device.empty((m, n), dtype)
    gemm_launch(module, device.asarray(a), device.asarray(b), c, m, n, k, dtype)
    expected = a.astype(np.float64) @ b.astype(np.float64).T
    checks.assert_close(device.to_host(c, dtype), expected, dt=dtype, tol=accumulate_tolerance(k, dtype),
                        name=f"gemm_wgmma_{SUFFIX[dtype]} C = A @ B^T (M={m}, N={n}, K={k})", seed=seed)


def bench_gemm_wgmma(modules: dict, quick: bool = False) -> bench.Report:
    """TFLOP/s of gemm_wgmma (fp16) against cuBLAS on the same product (`cupy.matmul(a, b.T)`), square."""
    cp = device.require_gpu()
    sizes = (4096, 8192) if quick else (2048, 4096, 8192)
    report = bench.Report("Hopper GEMM c = a @ b^T, fp16 (fp32 accumulate), square", "M = N = K", "TFLOP/s")
    ceiling = []
    for n in sizes:
        a, b = device.random((n, n), "float16", seed=1), device.random((n, n), "float16", seed=2)
        c = cp.empty((n, n), dtype=np.float16)
        for label, module in modules.items():
            gemm_launch(module, a, b, c, n, n, n, "float16")
            run = (lambda mod: lambda: gemm_launch(mod, a, b, c, n, n, n, "float16", sync=False))(module)
            report.series.setdefault(label, []).append(bench.measure(label, run, size=n, flops=2.0 * n ** 3,
                                                                     repeat=10))
        ceiling.append(bench.measure("cuBLAS (ceiling)", lambda: cp.matmul(a, b.T, out=c), size=n,
                                     flops=2.0 * n ** 3, repeat=10))
    report.ceiling = ceiling
    return report


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

GEMM_TECHNIQUE = Technique(
    why="producer and consumer warpgroups: TMA loads (UTMALDG) into mbarrier stages (SYNCS), wgmma (HGMMA), "
        "registers moved by setmaxnreg (USETMAXREG)",
    require=(r"HGMMA", r"UTMALDG", r"SYNCS", r"USETMAXREG"), forbid=(r"LDG", r"HMMA"), no_spills=True)

TILE_CASES = tuple({"count": c, "k": k, "dtype": dt} for dt in SUFFIX for c, k in ((1, 64), (3, 192)))
COPY_CASES = ({"rows": 1, "cols": 8}, {"rows": 64, "cols": 64}, {"rows": 33, "cols": 72},
              {"rows": 100, "cols": 200}, {"rows": 129, "cols": 1000}, {"rows": 4096, "cols": 4104})

GEMM_CASES = tuple({"m": m, "n": n, "k": k, "dtype": dt} for dt in SUFFIX
                   for m, n, k in ((1, 8, 8), (128, 128, 64), (129, 136, 200), (64, 8, 584), (256, 384, 512),
                                   (4096, 4096, 4096)))

EXERCISES = (
    Exercise("day15", "wgmma_tile", "wgmma_tile.cu",
             "one warpgroup, one 64x64 tile: wgmma from shared memory in the 128-byte swizzle",
             check_wgmma_tile, TILE_CASES, technique=(WGMMA_TECHNIQUE,)),
    Exercise("day15", "tma_copy", "tma_copy.cu", "TMA and an mbarrier: a matrix copied box by box",
             check_tma_copy, COPY_CASES, bench=bench_tma_copy, technique=(TMA_TECHNIQUE,)),
    Exercise("day15", "gemm_wgmma", "gemm_wgmma.cu",
             "the warp-specialised GEMM: a TMA producer, a ring of mbarrier stages, wgmma consumers",
             check_gemm_wgmma, GEMM_CASES, bench=bench_gemm_wgmma, technique=(GEMM_TECHNIQUE,)),
)
