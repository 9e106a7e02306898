"""Day 15 (Hopper, sm_90a): warpgroup MMA (`wgmma`) from shared memory in the 128-byte swizzle, the
Tensor Memory Accelerator with an mbarrier, and the warp-specialised, pipelined GEMM built from them.

The kernels compile for sm_90a only (COURSE_REQUIRE_ARCH_SPECIFIC(90)): on another GPU the checks skip
with that reason, and without a GPU the emulator runs them (grader/emulator/ops/tensor_cores.py, async_copy.py).
"""
from __future__ import annotations

import numpy as np

from grader import bench, checks, device, tensor_map
from grader.exercises import Exercise
from grader.launchers.prepared import prepared_launch
from grader.messages import say
from grader.references.fp8 import dequantize_e4m3, quantize_e4m3
from grader.references.tensor_core import SUFFIX, dtype_ok, normal
from grader.references.tolerances import accumulate_tolerance
from grader.technique import Technique

# ---- exercise 1: one warpgroup, one 64 x 64 tile, wgmma from swizzled shared memory ---------------

TILE = 64  # wgmma_tile.cu: rows of A and B, and the K slice


def check_wgmma_tile(module, seed: int, count: int, k: int, dtype: str) -> None:
    """`count` independent tiles d = a @ b^T + d (a, b: [64, k], K-major), one warpgroup each."""
    dtype_ok(dtype)
    if k % TILE:
        raise ValueError(say("day15.k_slices", k=k, tile=TILE))
    rng = np.random.default_rng(seed)
    a, b = normal(rng, (count, TILE, k), dtype), normal(rng, (count, TILE, k), dtype)
    d0 = rng.standard_normal((count, TILE, TILE)).astype(np.float32)
    d = device.asarray(d0)
    name = f"wgmma_tile_{SUFFIX[dtype]}"
    device.launch(module.get_function(name), (count,), (128,),
                  (device.asarray(a), device.asarray(b), d, np.int32(k)), what=name)
    expected = np.einsum("tmk,tnk->tmn", a.astype(np.float64), b.astype(np.float64)) + d0
    checks.assert_close(device.to_host(d), expected, dt="float32", tol=accumulate_tolerance(k),
                        name=say("name.day15.wgmma", name=name, count=count, k=k), seed=seed)


# ---- exercise 2: TMA + mbarrier: copy a matrix box by box -----------------------------------------

BOX = 64  # tma_copy.cu: rows and columns of a box (128 bytes of 16-bit elements: the 128-byte swizzle)


def tma_copy_launch(module, x, out, rows: int, cols: int, *, sync: bool = True) -> None:
    """Copy x -> out ([rows, cols] 16-bit, on the device) with tma_copy, one block per 64 x 64 box."""
    if cols % 8:
        raise ValueError(say("day15.tma_rows", sizes=f"cols={cols}", rule="cols % 8 == 0"))
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
    checks.assert_close(device.to_host(out).view(np.uint16), bits, name=say("name.day15.tma_copy", rows=rows, cols=cols),
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


def gemm_prepare(module, a, b, c, m: int, n: int, k: int, dtype: str):
    """The launch of gemm_wgmma computing c [m, n] = a [m, k] @ b [n, k]^T (device arrays of `dtype`), its
    tensor maps built once: `run()` enqueues it, `run(sync=True)` waits and names a fault."""
    if k % 8:
        raise ValueError(say("day15.tma_rows", sizes=f"k={k}", rule="k % 8 == 0"))
    name = f"gemm_wgmma_{SUFFIX[dtype]}"
    box = (GEMM_TILE, GEMM_BK)
    args = (tensor_map.tensor_map(_as_bits(a), box, 128), tensor_map.tensor_map(_as_bits(b), box, 128), c,
            np.int32(m), np.int32(n), np.int32(k))
    grid = (-(-n // GEMM_TILE), -(-m // GEMM_TILE))
    return prepared_launch(module, name, grid, GEMM_THREADS, args, GEMM_SMEM, f"{name} (M={m}, N={n}, K={k})",
                           (a, b, c))


def _as_bits(x):
    """A bfloat16 device array is kept as its uint16 bits: its tensor map is encoded as fp16 (the TMA
    unit copies bytes; only their size matters to it). FP8 arrays are uint8 already."""
    return x.view(np.float16) if x.dtype == np.uint16 else x


def _check_gemm(prepare, name: str, seed: int, m: int, n: int, k: int, dtype: str) -> None:
    dtype_ok(dtype)
    rng = np.random.default_rng(seed)
    a, b = normal(rng, (m, k), dtype), normal(rng, (n, k), dtype)
    c = device.empty((m, n), dtype)
    prepare(device.asarray(a), device.asarray(b), c, m, n, k, dtype)(sync=True)
    expected = a.astype(np.float64) @ b.astype(np.float64).T
    checks.assert_close(device.to_host(c, dtype), expected, dt=dtype, tol=accumulate_tolerance(k, dtype),
                        name=f"{name}_{SUFFIX[dtype]} C = A @ B^T (M={m}, N={n}, K={k})", seed=seed)


def check_gemm_wgmma(module, seed: int, m: int, n: int, k: int, dtype: str) -> None:
    _check_gemm(lambda *args: gemm_prepare(module, *args), "gemm_wgmma", seed, m, n, k, dtype)


def _bench_gemm(modules: dict, title: str, quick: bool, setup) -> bench.Report:
    """TFLOP/s of each module's kernel against its ceiling on the same product, square sizes, kernels and
    ceiling timed in turns (`bench.measure_interleaved`). `setup(n)` makes the inputs of size n and returns
    (module -> its prepared launch, (the ceiling's label, its launch))."""
    device.require_gpu()
    sizes = (4096, 8192) if quick else (2048, 4096, 8192)
    report = bench.Report(title, "M = N = K", "TFLOP/s")
    for n in sizes:
        launch, (ceiling_label, ceiling) = setup(n)
        runs = {label: launch(module) for label, module in modules.items()}
        for run in runs.values():
            run(sync=True)  # a fault is named before anything is timed
        runs[ceiling_label] = ceiling
        found = bench.measure_interleaved(runs, size=n, flops=2.0 * n ** 3)
        for label in modules:
            report.series.setdefault(label, []).append(found[label])
        report.ceiling.append(found[ceiling_label])
        report.ceiling_name = ceiling_label.replace(" (ceiling)", "")
    return report


def _fp16_setup(prepare):
    """`setup` for `_bench_gemm`: fp16 a, b [n, n] and `prepare`'s kernel, against cuBLAS (`cupy.matmul(a, b.T)`)."""
    def setup(n: int):
        cp = device.require_gpu()
        a, b = device.random((n, n), "float16", seed=1), device.random((n, n), "float16", seed=2)
        c = cp.empty((n, n), dtype=np.float16)
        return (lambda module: prepare(module, a, b, c, n, n, n, "float16"),
                ("cuBLAS (ceiling)", lambda: cp.matmul(a, b.T, out=c)))
    return setup


def bench_gemm_wgmma(modules: dict, quick: bool = False) -> bench.Report:
    return _bench_gemm(modules, "Hopper GEMM c = a @ b^T, fp16 (fp32 accumulate), one block per 128 x 128 tile",
                       quick, _fp16_setup(gemm_prepare))


# ---- exercise 4: the persistent GEMM: grouped tile order, one wgmma group in flight, TMA stores ------

PERSISTENT_BM, PERSISTENT_BN, PERSISTENT_GROUP = 128, 256, 16  # gemm_persistent.cu's tile of c and GROUP


def persistent_smem(dtype: str) -> int:
    """gemm_persistent.cu's shared memory: its ring (RING: 4 stages in 16-bit, 3 in FP8) and two consumers'
    epilogue buffers of one pass (PASS: 128 columns of c in 16-bit, 256 in FP8), + alignment slack."""
    stages, cols = (3, PERSISTENT_BN) if dtype == "e4m3" else (4, PERSISTENT_BN // 2)
    return stages * (PERSISTENT_BM + PERSISTENT_BN) * 128 + 2 * 64 * cols * 2 + 2 * stages * 8 + 1024


def persistent_prepare(module, a, b, c, m: int, n: int, k: int, dtype: str, scale: float = 1.0):
    """The launch of gemm_persistent (at most one block per SM and per tile; the SMs rounded down to a
    multiple of PERSISTENT_GROUP, so that the blocks in flight cover whole columns of a band of tile-rows)
    computing c = scale * a @ b^T: dtype float16 or bfloat16 (c the same, scale 1), or e4m3 (a, b: uint8
    bits; c: bfloat16 bits)."""
    elem = 1 if dtype == "e4m3" else 2
    if (k * elem) % 16 or n % 8:
        raise ValueError(say("day15.tma_rows", sizes=f"k={k}, n={n}", rule=f"k % {16 // elem} == 0, n % 8 == 0"))
    name = f"gemm_persistent_{FP8_SUFFIX if dtype == 'e4m3' else SUFFIX[dtype]}"
    row = 128 // elem  # 128-byte rows: 64 16-bit or 128 FP8 values of k per stage
    args = (tensor_map.tensor_map(_as_bits(a), (PERSISTENT_BM, row), 128),
            tensor_map.tensor_map(_as_bits(b), (PERSISTENT_BN, row), 128),
            tensor_map.tensor_map(_as_bits(c), (64, 64), 128), np.int32(m), np.int32(n), np.int32(k))
    if dtype == "e4m3":
        args += (np.float32(scale),)
    tiles = -(-m // PERSISTENT_BM) * -(-n // PERSISTENT_BN)
    sms = device.properties()["sms"]
    blocks = min(tiles, max(3, sms // PERSISTENT_GROUP * PERSISTENT_GROUP))  # the emulator's one SM: 3 take turns
    return prepared_launch(module, name, (blocks,), GEMM_THREADS, args, persistent_smem(dtype),
                           f"{name} (M={m}, N={n}, K={k}, {blocks} blocks)", (a, b, c))


def grouped_order(tiles_m: int, tiles_n: int) -> np.ndarray:
    """[t] -> (tile-row, tile-column) of the t-th tile in grouped order (PERSISTENT_GROUP tile-rows at a time)."""
    t = np.arange(tiles_m * tiles_n)
    per_group = PERSISTENT_GROUP * tiles_n
    first = t // per_group * PERSISTENT_GROUP
    rows = np.minimum(PERSISTENT_GROUP, tiles_m - first)
    r = t % per_group
    return np.stack([first + r % rows, r // rows], axis=1)


def check_gemm_persistent(module, seed: int, m: int, n: int, k: int, dtype: str) -> None:
    _check_tile_order(module, -(-m // PERSISTENT_BM), -(-n // PERSISTENT_BN))
    _check_gemm(lambda *args: persistent_prepare(module, *args), "gemm_persistent", seed, m, n, k, dtype)


def _check_tile_order(module, tiles_m: int, tiles_n: int) -> None:
    """tile_of, alone: every tile once, in grouped order."""
    count = tiles_m * tiles_n
    out = device.asarray(np.full(2 * count, -1, np.int32))
    device.launch(module.get_function("gemm_persistent_tile_order"), (-(-count // 128),), (128,),
                  (out, np.int32(tiles_m), np.int32(tiles_n)), what="gemm_persistent_tile_order")
    got, expected = device.to_host(out).reshape(count, 2), grouped_order(tiles_m, tiles_n)
    wrong = np.flatnonzero((got != expected).any(axis=1))
    if wrong.size:
        t = int(wrong[0])
        raise AssertionError(say("day15.tile_of", t=t, tiles_m=tiles_m, tiles_n=tiles_n,
                                 got=tuple(map(int, got[t])), expected=tuple(map(int, expected[t])),
                                 group=PERSISTENT_GROUP, wrong=wrong.size, count=count))


def bench_gemm_persistent(modules: dict, quick: bool = False) -> bench.Report:
    return _bench_gemm(modules, "Persistent Hopper GEMM c = a @ b^T, fp16 (fp32 accumulate), grouped tiles, "
                       "TMA-store epilogue", quick, _fp16_setup(persistent_prepare))


# ---- exercise 5: the same kernel on FP8 (e4m3) with per-tensor scales -------------------------------

FP8_SUFFIX = "e4m3"


def check_gemm_fp8(module, seed: int, m: int, n: int, k: int) -> None:
    """c (bf16) = scale_a scale_b a @ b^T of e4m3 a [m, k] and b [n, k] against the float64 product of the
    dequantised inputs (day 10's quantisation): e4m3 products are exact, so fp32 accumulation and one
    bf16 rounding is all the error allowed; a scale left out or applied twice is off by a factor."""
    _check_tile_order(module, -(-m // PERSISTENT_BM), -(-n // PERSISTENT_BN))
    rng = np.random.default_rng(seed)
    (qa, sa), (qb, sb) = quantize_e4m3(rng.standard_normal((m, k))), quantize_e4m3(rng.standard_normal((n, k)))
    expected = dequantize_e4m3(qa, sa) @ dequantize_e4m3(qb, sb).T
    c = device.empty((m, n), "bfloat16")
    persistent_prepare(module, device.asarray(qa), device.asarray(qb), c, m, n, k, "e4m3", sa * sb)(sync=True)
    checks.assert_close(device.to_host(c, "bfloat16"), expected, dt="bfloat16", tol=accumulate_tolerance(k, "bfloat16"),
                        name=f"gemm_persistent_e4m3 C = scale A @ B^T (M={m}, N={n}, K={k}, scales {sa:.3g}, {sb:.3g})",
                        seed=seed)


def bench_gemm_fp8(modules: dict, quick: bool = False) -> bench.Report:
    """TFLOP/s of gemm_persistent_e4m3 against torch._scaled_mm (e4m3 in, bf16 out) on the same bytes, the
    two timed in turns; without torch, said so and cuBLAS fp16 stands in."""
    def setup(n: int):
        rng = device.require_gpu().random.default_rng(n)
        qa, qb = (rng.integers(0, 256, (n, n), dtype=np.uint8) & 0xF7 for _ in range(2))  # no NaN bytes
        c = device.empty((n, n), "bfloat16")
        return lambda module: persistent_prepare(module, qa, qb, c, n, n, n, "e4m3"), _scaled_mm(qa, qb, c, n)

    return _bench_gemm(modules, "Persistent Hopper GEMM, FP8 e4m3 in (fp32 accumulate), bf16 out, square", quick,
                       setup)


def _scaled_mm(qa, qb, c, n: int):
    """(label, launch) of torch._scaled_mm (cuBLASLt's FP8 GEMM) on the bytes of qa, qb into c (bf16),
    through DLPack; without torch or its FP8 GEMM, cuBLAS fp16 at the same size."""
    try:
        import torch

        ta, tb = (torch.from_dlpack(x).view(torch.float8_e4m3fn) for x in (qa, qb))
        one = torch.ones((), device=ta.device)
        tc = torch.from_dlpack(c).view(torch.bfloat16)
        run = lambda: torch._scaled_mm(ta, tb.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16, out=tc)  # noqa: E731
        run()
        return "torch._scaled_mm e4m3 (ceiling)", run
    except (ImportError, RuntimeError, AttributeError, TypeError):
        cp = device.require_gpu()
        a, b, out = (cp.ones((n, n), dtype=np.float16) for _ in range(3))
        return "cuBLAS fp16, torch._scaled_mm unavailable (ceiling)", lambda: cp.matmul(a, b.T, out=out)


# ---- the technique of each exercise (grader/technique.py, SASS of sm_90a) -------------------------

_ASM = r"\b(asm|__asm__)\s*(volatile|__volatile__)?\s*\(\s*\""
WGMMA_TECHNIQUE = Technique(
    why="wgmma.mma_async on descriptors of swizzled shared memory (HGMMA)", require=(r"HGMMA",),
    # a missing wgmma.fence or fence.proxy.async is named by the emulator, where it is read (ordering.py)
    source_require=((_ASM + r"wgmma\.commit_group", "`wgmma.commit_group.sync.aligned`"),
                    (_ASM + r"wgmma\.wait_group", "`wgmma.wait_group.sync.aligned`")))
TMA_TECHNIQUE = Technique(
    why="a TMA tensor copy (UTMALDG) completing on an mbarrier (SYNCS)", require=(r"UTMALDG", r"SYNCS"),
    forbid=(r"LDG",),
    source_require=((_ASM + r"mbarrier\.init", "`mbarrier.init`"),
                    (_ASM + r"mbarrier\.arrive\.expect_tx", "`mbarrier.arrive.expect_tx` with the box's bytes")),
    source_forbid=((r"course/hopper/tma\.cuh", "the course's finished TMA helpers (course/hopper/tma.cuh)"),))

GEMM_TECHNIQUE = Technique(
    why="producer and consumer warpgroups: TMA loads (UTMALDG) into mbarrier stages (SYNCS), wgmma (HGMMA), "
        "registers moved by setmaxnreg (USETMAXREG)",
    require=(r"HGMMA", r"UTMALDG", r"SYNCS", r"USETMAXREG"), forbid=(r"LDG", r"HMMA"), no_spills=True)

TILE_CASES = tuple({"count": c, "k": k, "dtype": dt} for dt in SUFFIX for c, k in ((1, 64), (3, 192)))
COPY_CASES = ({"rows": 1, "cols": 8}, {"rows": 64, "cols": 64}, {"rows": 33, "cols": 72},
              {"rows": 100, "cols": 200}, {"rows": 129, "cols": 1000}, {"rows": 4096, "cols": 4104})

PERSISTENT_TECHNIQUE = Technique(
    why="a persistent warp-specialised GEMM: TMA loads (UTMALDG) and TMA stores of c (UTMASTG), one wgmma "
        "group kept in flight (WARPGROUP.DEPBAR.LE gsb0, 0x1), no plain global stores",
    require=(r"HGMMA", r"UTMALDG", r"UTMASTG", r"SYNCS", r"USETMAXREG"), forbid=(r"LDG", r"HMMA", r"STG"),
    no_spills=True, kernels=("gemm_persistent_f16", "gemm_persistent_bf16"),
    require_lines=((r"WARPGROUP\.DEPBAR\.LE\s+gsb0,\s*0x1", "wgmma_wait<1>: one wgmma group left in flight"),))
FP8_TECHNIQUE = Technique(
    why="FP8 warpgroup MMA: wgmma m64n256k32 on e4m3 (QGMMA ... E4M3.E4M3), TMA in and out",
    require=(r"QGMMA\.64x256x32\.F32\.E4M3\.E4M3", r"UTMALDG", r"UTMASTG"), forbid=(r"HGMMA", r"LDG", r"STG"),
    no_spills=True, kernels=("gemm_persistent_e4m3",))

GEMM_CASES = tuple({"m": m, "n": n, "k": k, "dtype": dt} for dt in SUFFIX
                   for m, n, k in ((1, 8, 8), (128, 128, 64), (129, 136, 200), (64, 8, 584), (256, 384, 512),
                                   (4096, 4096, 4096)))

PERSISTENT_CASES = tuple({"m": m, "n": n, "k": k, "dtype": dt} for dt in SUFFIX
                         for m, n, k in ((1, 8, 8), (129, 136, 200), (200, 1032, 584), (1100, 264, 72),
                                         (4096, 4096, 4096)))

FP8_CASES = ({"m": 1, "n": 8, "k": 16}, {"m": 129, "n": 136, "k": 400}, {"m": 200, "n": 264, "k": 1040},
             {"m": 4096, "n": 4096, "k": 4096})

EXERCISES = (
    Exercise("day15", "wgmma_tile", "wgmma_tile.cu",
             "one warpgroup, one 64x64 tile: wgmma from shared memory in the 128-byte swizzle",
             check_wgmma_tile, TILE_CASES, technique=(WGMMA_TECHNIQUE,)),
    Exercise("day15", "tma_copy", "tma_copy.cu", "TMA and an mbarrier: a matrix copied box by box",
             check_tma_copy, COPY_CASES, bench=bench_tma_copy, technique=(TMA_TECHNIQUE,)),
    Exercise("day15", "gemm_wgmma", "gemm_wgmma.cu",
             "the warp-specialised GEMM: a TMA producer, a ring of mbarrier stages, wgmma consumers",
             check_gemm_wgmma, GEMM_CASES, bench=bench_gemm_wgmma, technique=(GEMM_TECHNIQUE,)),
    Exercise("day15", "gemm_persistent", "gemm_persistent.cu",
             "the persistent GEMM: grouped tile order, one wgmma group in flight, TMA stores of c",
             check_gemm_persistent, PERSISTENT_CASES, bench=bench_gemm_persistent, target=0.98,
             technique=(PERSISTENT_TECHNIQUE,)),
    Exercise("day15", "gemm_fp8", "gemm_persistent.cu",
             "the persistent GEMM on FP8: e4m3 in, wgmma k32, per-tensor scales, bf16 out",
             check_gemm_fp8, FP8_CASES, bench=bench_gemm_fp8, target=1.0, technique=(FP8_TECHNIQUE,)),
)
