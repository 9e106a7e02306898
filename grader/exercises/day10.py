"""Day 10: GEMM (fp16 in, fp32 accumulate, fp16 out), its configuration space and the progression.

The exercises, in graded steps: the naive and tiled kernels (CUDA cores), the swizzle of shared tiles
(`swizzle.cu`, its properties checked on the CPU), one tensor-core block tile fed by cp.async through
swizzled shared memory (`gemm_mma.cu`), then the pipelined, configurable GEMM (`gemm.cu`).

`GemmConfig` is the kernel's configuration (tile sizes, warps, stages, swizzle), mirrored by
course/gemm.cuh's `Config` and compiled in with -D options; it and the kernel's launch live in
`grader.launchers.gemm`, which the day-14 API shares. `search_space` is what `python -m grader autotune`
measures; `gemm(module, a, b)` runs a module with the autotuner's configuration.

Shapes: a [M, K] and b [K, N], both row-major fp16 on the device; c [M, N] fp16. K must be a multiple
of 8 (every row of A must start 16-byte aligned for cp.async): other K are rejected with a clear error.
M and N are arbitrary; when N % 8 != 0, `gemm` copies b into a zero-padded [K, ceil8(N)] buffer.
"""
from __future__ import annotations

import functools
import itertools
import json
import math

import numpy as np

from grader import bench, checks, device, paths
from grader.exercises import Exercise, open_design
from grader.messages import say
from grader.launchers.gemm import (CHUNK, GemmConfig, launch, padded_b, prepared_kernel, validate_shapes,
                                   with_config)
from grader.references.fp8 import dequantize_e4m3, quantize_e4m3
from grader.references.tolerances import accumulate_tolerance
from grader.technique import Technique

TUNED_FILE = paths.STATE / "autotune" / "day10_gemm.json"


# ---- the configuration space --------------------------------------------------------------------

# The default: 8 warps of 64x64 (the largest warp tile whose 128 accumulators per thread fit in the
# registers beside double-buffered fragments) on a 128x256 block tile, which copies a quarter fewer
# bytes per mma than 128x128 does; one block per SM, 3 stages. On the H100 61-63% / 64% of cuBLAS at
# 4096^3 / 8192^3 (cuBLAS in the same run); the autotuner's best, the same with 4 stages, 63% / 65%.
DEFAULT = GemmConfig()

# The progression of day 10: each step adds one idea (naive and tiled are their own kernels).
PROGRESSION = {
    "naive": None,
    "tiled": None,
    "mma": GemmConfig(64, 64, 32, 2, 2, stages=1, swizzle=False),
    "pipelined": GemmConfig(128, 128, 32, 2, 2, stages=3, swizzle=False),
    "swizzled": GemmConfig(128, 128, 32, 2, 2, stages=3, swizzle=True),
    "tuned": None,  # the autotuner's best for the shape, when saved for this GPU (else the default)
}


def search_space(max_smem: int = 227 * 1024, max_threads: int = 256) -> list[GemmConfig]:
    """Every valid swizzled configuration worth timing: block tiles 128x128, 128x256 and 256x128 with
    warp tiles of 64x64, 64x32 or 32x64 (128 or 256 threads), bk 32 or 64, 2 to 4 stages; those that
    fit `max_smem` bytes of shared memory and `max_threads` threads."""
    out = []
    tiles = ((128, 128), (128, 256), (256, 128))
    for (bm, bn), bk, stages in itertools.product(tiles, (32, 64), (2, 3, 4)):
        for wm, wn in ((64, 64), (64, 32), (32, 64)):
            if bm % wm or bn % wn:
                continue
            cfg = GemmConfig(bm, bn, bk, bm // wm, bn // wn, stages, True)
            if cfg.threads in (128, 256) and cfg.threads <= max_threads and not cfg.problems(max_smem):
                out.append(cfg)
    return out


# ---- launching ----------------------------------------------------------------------------------

def load_config(path, config: GemmConfig):
    """gemm.cu at `path` compiled with `config`."""
    return device.load(path, options=config.validate().defines())


def _tuned(shape: tuple[int, int, int]) -> GemmConfig | None:
    """The autotuner's best configuration for this GPU at the nearest tuned shape, if any."""
    if not TUNED_FILE.is_file():
        return None
    entries = json.loads(TUNED_FILE.read_text()).get(device.properties()["name"], {})
    if not entries:
        return None

    def distance(key: str) -> float:
        return sum(abs(math.log(int(x) / s)) for x, s in zip(key.split("x"), shape))

    best = min(entries, key=distance)
    return GemmConfig.from_dict(entries[best]["config"])


def gemm(module, a, b, config: GemmConfig | None = None, tuned: bool = True):
    """c = a @ b for device fp16 arrays a [M, K] and b [K, N] (row-major); returns device fp16 c [M, N].

    `module` is a compiled gemm.cu (the student's or the solution's). It runs with `config` if given,
    else with the autotuner's best configuration for this GPU and shape (`python -m grader autotune`)
    when one is saved and `tuned`, else with the configuration the module was compiled with.
    """
    cp = device.require_gpu()
    m, n, k = validate_shapes(a.shape, b.shape, a.dtype, b.dtype)
    a, b = cp.ascontiguousarray(a), cp.ascontiguousarray(b)
    chosen = config or (_tuned((m, n, k)) if tuned else None)
    if chosen is not None:
        module = with_config(module, chosen)
    b, ldb = padded_b(b, n)
    c = cp.empty((m, n), dtype=np.float16)
    launch(module, a, b, c, m, n, k, ldb)
    return c


# ---- checks -------------------------------------------------------------------------------------

def _inputs(seed: int, m: int, n: int, k: int):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    return a, b, a.astype(np.float64) @ b.astype(np.float64)


def _compare(got, expected, name: str, k: int, seed: int) -> None:
    checks.assert_close(got, expected, dt="float16", tol=accumulate_tolerance(k, "float16"), name=name, seed=seed)


def _simple_launch(kernel_name: str, tile: int, block: tuple):
    def run(module, a, b, c, m, n, k, sync=True):
        kernel = module.get_function(kernel_name)
        grid = (-(-n // tile), -(-m // tile))
        args = (a, b, c, np.int32(m), np.int32(n), np.int32(k))
        if sync:
            device.launch(kernel, grid, block, args, what=f"{kernel_name} (M={m}, N={n}, K={k})")
        else:
            kernel(grid, block, args)
    return run


naive_launch = _simple_launch("gemm_naive_f16", 16, (16, 16))
tiled_launch = _simple_launch("gemm_tiled_f16", 64, (256,))


def _check_simple(run, name: str):
    def check(module, seed: int, m: int, n: int, k: int) -> None:
        a, b, expected = _inputs(seed, m, n, k)
        c = device.empty((m, n), "float16")
        run(module, device.asarray(a), device.asarray(b), c, m, n, k)
        _compare(device.to_host(c), expected, f"{name} C (M={m}, N={n}, K={k})", k, seed)
    check.__name__ = f"check_{name}"
    return check


check_gemm_naive = _check_simple(naive_launch, "gemm_naive")
check_gemm_tiled = _check_simple(tiled_launch, "gemm_tiled")


def check_gemm(module, seed: int, m: int, n: int, k: int) -> None:
    """The module's own configuration (the autotuner checks each configuration before timing it),
    into a NaN-poisoned C."""
    validate_shapes((m, k), (k, n))
    a, b, expected = _inputs(seed, m, n, k)
    b_dev, ldb = padded_b(device.asarray(b), n)
    c = device.empty((m, n), "float16")
    launch(module, device.asarray(a), b_dev, c, m, n, k, ldb)
    _, config, _ = prepared_kernel(module)
    _compare(device.to_host(c), expected, f"gemm [{config.name}] C (M={m}, N={n}, K={k})", k, seed)


# ---- the swizzle of shared tiles (swizzle.cu) -----------------------------------------------------

SWIZZLE_COLS = (32, 64, 128, 256)  # the tile widths of the GEMM: BK = 32, 64 and BN = 64 .. 256
SWIZZLE_ROWS = 16


def check_swizzle_offsets(offsets: np.ndarray, cols: int) -> None:
    """AssertionError unless `offsets` [rows, cols] (element offsets of a 16-bit tile with `cols`
    columns) keep each row in place and each 16-byte chunk whole, and give every ldmatrix (8
    consecutive rows, from a multiple of 8, of one chunk column) 8 different 16-byte bank slots."""
    rows = offsets.shape[0]
    for r in range(rows):
        got = np.sort(offsets[r])
        if not np.array_equal(got, np.arange(r * cols, (r + 1) * cols)):
            raise AssertionError(say("day10.swizzle_rows", cols=cols, r=r, lo=r * cols, hi=(r + 1) * cols - 1,
                                     got=offsets[r][:16].tolist()))
    within = offsets - offsets[:, (np.arange(cols) // CHUNK) * CHUNK]
    bad = np.argwhere(within != np.arange(cols) % CHUNK)
    if len(bad):
        r, c = bad[0]
        raise AssertionError(say("day10.swizzle_chunk", cols=cols, r=r, c=c, at=offsets[r, c], within=within[r, c],
                                 expected=c % CHUNK))
    for r0 in range(0, rows, 8):
        for chunk in range(cols // CHUNK):
            slots = (offsets[r0:r0 + 8, chunk * CHUNK] * 2 // 16) % 8  # 16-byte slot in its 128-byte line
            ways = int(np.bincount(slots, minlength=8).max())
            if ways > 1:
                raise AssertionError(say("day10.swizzle_conflict", cols=cols, r0=r0, r1=r0 + 7, chunk=chunk,
                                         slots=slots.tolist(), ways=ways))


def check_swizzle(module, seed: int, cols: int, rows_valid: int, cols_valid: int) -> None:
    """The offsets of a [16, cols] tile (properties), then a tile through swizzled shared memory and
    back, zeros outside rows_valid x cols_valid (cols_valid a multiple of 8)."""
    if cols not in SWIZZLE_COLS:
        raise ValueError(say("arg.one_of", what="cols", value=cols, known=SWIZZLE_COLS))
    if not (0 <= rows_valid <= SWIZZLE_ROWS and 0 <= cols_valid <= cols and cols_valid % CHUNK == 0):
        raise ValueError(say("day10.swizzle_valid", rows_valid=rows_valid, cols_valid=cols_valid, rows=SWIZZLE_ROWS,
                             cols=cols, chunk=CHUNK))
    out = device.empty((SWIZZLE_ROWS, cols), "int32")
    device.launch(module.get_function(f"swizzle_offsets_{cols}"), (cols // CHUNK,), (CHUNK, SWIZZLE_ROWS),
                  (out,), what=f"swizzle_offsets_{cols}")
    check_swizzle_offsets(device.to_host(out).astype(np.int64), cols)
    tile = np.random.default_rng(seed).standard_normal((SWIZZLE_ROWS, cols)).astype(np.float16)
    back = device.empty((SWIZZLE_ROWS, cols), "float16")
    device.launch(module.get_function(f"swizzle_roundtrip_{cols}"), (1,), (128,),
                  (device.asarray(tile), back, np.int32(rows_valid), np.int32(cols_valid)),
                  what=f"swizzle_roundtrip_{cols}")
    expected = np.zeros_like(tile)
    expected[:rows_valid, :cols_valid] = tile[:rows_valid, :cols_valid]
    checks.assert_close(device.to_host(back), expected, dt="float16", tol=checks.Tolerance(0.0, 0.0, False),
                        name=say("name.day10.roundtrip", cols=cols, rows_valid=rows_valid, cols_valid=cols_valid),
                        seed=seed)


# ---- one tensor-core block tile (gemm_mma.cu) ------------------------------------------------------

MMA_TILE = 64  # gemm_mma.cu: a 64x64 block tile, 4 warps


def mma_launch(module, a, b, c, m: int, n: int, k: int, ldb: int) -> None:
    grid = (-(-n // MMA_TILE), -(-m // MMA_TILE))
    device.launch(module.get_function("gemm_mma_f16"), grid, (128,),
                  (a, b, c, np.int32(m), np.int32(n), np.int32(k), np.int32(ldb)),
                  what=f"gemm_mma_f16 (M={m}, N={n}, K={k})")


def check_gemm_mma(module, seed: int, m: int, n: int, k: int) -> None:
    validate_shapes((m, k), (k, n))
    a, b, expected = _inputs(seed, m, n, k)
    b_dev, ldb = padded_b(device.asarray(b), n)
    c = device.empty((m, n), "float16")
    mma_launch(module, device.asarray(a), b_dev, c, m, n, k, ldb)
    _compare(device.to_host(c), expected, f"gemm_mma C (M={m}, N={n}, K={k})", k, seed)


# ---- FP8: e4m3 in, fp32 accumulate, per-tensor scales (gemm_fp8.cu) ------------------------------

FP8_CHUNK = 16  # e4m3 values in 16 bytes


def validate_fp8_shapes(m: int, n: int, k: int) -> None:
    if min(m, n, k) < 1:
        raise ValueError(say("day10.empty", m=m, n=n, k=k))
    if k % FP8_CHUNK:
        raise ValueError(say("day10.fp8_k", k=k, padded=-(-k // FP8_CHUNK) * FP8_CHUNK))


def fp8_launch(module, a, b, c, m: int, n: int, k: int, scale_a: float, scale_b: float, sync: bool = True) -> None:
    validate_fp8_shapes(m, n, k)
    kernel, grid = module.get_function("gemm_fp8_e4m3"), (-(-n // MMA_TILE), -(-m // MMA_TILE))
    args = (a, b, c, np.int32(m), np.int32(n), np.int32(k), np.float32(scale_a), np.float32(scale_b))
    if sync:
        device.launch(kernel, grid, (128,), args, what=f"gemm_fp8_e4m3 (M={m}, N={n}, K={k})")
    else:
        kernel(grid, (128,), args)


def check_gemm_fp8(module, seed: int, m: int, n: int, k: int) -> None:
    """C = scale_a scale_b A B^T of e4m3 A [M, K] and B [N, K], against the float64 product of the
    dequantised inputs: the products of e4m3 values are exact, so the only error allowed is fp32
    accumulation (2^-23 K by norm) on top of fp32 output: an fp16 accumulator, a scale applied twice or
    an output rounded to 16 bits fails."""
    rng = np.random.default_rng(seed)
    (qa, sa), (qb, sb) = quantize_e4m3(rng.standard_normal((m, k))), quantize_e4m3(rng.standard_normal((n, k)))
    expected = dequantize_e4m3(qa, sa) @ dequantize_e4m3(qb, sb).T
    c = device.empty((m, n), "float32")
    fp8_launch(module, device.asarray(qa), device.asarray(qb), c, m, n, k, sa, sb)
    checks.assert_close(device.to_host(c), expected, dt="float32", tol=accumulate_tolerance(k, "float32"),
                        name=f"gemm_fp8 C (M={m}, N={n}, K={k}, scales {sa:.3g}, {sb:.3g})", seed=seed)


def scaled_mm_ceiling(qa, qb, sa: float, sb: float, c, n: int, repeat: int) -> bench.Measurement:
    """torch._scaled_mm (cuBLASLt's FP8 GEMM, wgmma on Hopper) on the same bytes, handed over through
    DLPack; without torch (or without FP8 support in it), cuBLAS fp16 at the same size, said so."""
    flops = 2.0 * n ** 3
    try:
        import torch

        ta, tb = (torch.from_dlpack(x).view(torch.float8_e4m3fn) for x in (qa, qb))
        scales = torch.tensor(sa, device=ta.device), torch.tensor(sb, device=ta.device)
        tc = torch.from_dlpack(c)
        run = lambda: torch._scaled_mm(ta, tb.t(), scale_a=scales[0], scale_b=scales[1],  # noqa: E731
                                       out_dtype=torch.float32, out=tc)
        run()
        return bench.measure("torch._scaled_mm e4m3 (ceiling)", run, size=n, flops=flops, repeat=repeat)
    except (ImportError, RuntimeError, AttributeError, TypeError):
        return bench.matmul_ceiling(n, n, n, repeat=repeat)


def bench_gemm_fp8(modules: dict, quick: bool = False) -> bench.Report:
    """TFLOP/s of gemm_fp8 against torch._scaled_mm at the same sizes, in the same process. No target:
    mma.sync FP8 on Hopper runs at the fp16 rate (see the SASS); the wgmma FP8 GEMM is day 15's."""
    cp = device.require_gpu()
    sizes = (4096, 8192) if quick else (2048, 4096, 8192)
    report = bench.Report("gemm_fp8 e4m3 (fp32 accumulate, fp32 out), square", "M = N = K", "TFLOP/s")
    ceiling = []
    for n in sizes:
        rng = cp.random.default_rng(n)
        qa, qb = (rng.integers(0, 256, (n, n), dtype=np.uint8) & 0xF7 for _ in range(2))  # no NaN bytes
        c = cp.empty((n, n), dtype=np.float32)
        for label, module in modules.items():
            fp8_launch(module, qa, qb, c, n, n, n, 1.0, 1.0)
            run = functools.partial(fp8_launch, module, qa, qb, c, n, n, n, 1.0, 1.0, sync=False)
            report.series.setdefault(label, []).append(bench.measure(label, run, size=n, flops=2.0 * n ** 3,
                                                                     repeat=10))
        ceiling.append(scaled_mm_ceiling(qa, qb, 1.0, 1.0, c, n, repeat=10))
        del qa, qb, c
    report.ceiling = ceiling
    report.ceiling_name = ceiling[0].label.replace(" (ceiling)", "")
    return report


# ---- benchmarks ---------------------------------------------------------------------------------

def _bench_sizes(quick: bool, big: bool) -> tuple[int, ...]:
    if big:
        return (4096, 8192) if quick else (1024, 2048, 4096, 8192)
    return (1024, 2048) if quick else (512, 1024, 2048)


def _report(title: str, sizes, series_fn, modules: dict, repeat: int) -> bench.Report:
    report = bench.Report(title, "M = N = K", "TFLOP/s")
    for label, module in modules.items():
        series = []
        for n in sizes:
            a, b = device.random((n, n), "float16", seed=1), device.random((n, n), "float16", seed=2)
            c = device.require_gpu().empty((n, n), dtype=np.float16)
            series.append(bench.measure(label, series_fn(module, a, b, c, n), size=n, flops=2.0 * n ** 3,
                                        repeat=repeat))
            del a, b, c
        report.series[label] = series
    report.ceiling = [bench.matmul_ceiling(n, n, n, repeat=repeat) for n in sizes]
    return report


def _simple_bench(run, name: str):
    def bench_fn(modules: dict, quick: bool = False) -> bench.Report:
        device.require_gpu()
        return _report(f"{name}, fp16, square", _bench_sizes(quick, big=False),
                       lambda mod, a, b, c, n: (lambda: run(mod, a, b, c, n, n, n, sync=False)), modules, 10)
    bench_fn.__name__ = f"bench_{name}"
    return bench_fn


bench_gemm_naive = _simple_bench(naive_launch, "gemm_naive")
bench_gemm_tiled = _simple_bench(tiled_launch, "gemm_tiled")


def bench_gemm(modules: dict, quick: bool = False) -> bench.Report:
    """TFLOP/s of gemm (tuned configuration when one is saved for this GPU) against cuBLAS
    (`cupy.matmul`) measured in the same process, square sizes up to 8192."""
    device.require_gpu()

    def run(module, a, b, c, n):
        config = _tuned((n, n, n))
        mod = with_config(module, config) if config else module
        launch(mod, a, b, c, n, n, n, n)  # compiles, sets the shared memory limit, checks the launch
        return lambda: launch(mod, a, b, c, n, n, n, n, sync=False)

    return _report("gemm fp16 (fp32 accumulate), square", _bench_sizes(quick, big=True), run, modules, 20)


def bench_progression(sources: dict, n: int = 4096, repeat: int = 10) -> dict[str, float]:
    """TFLOP/s of each step of the progression at n^3 and of cuBLAS: {version: TFLOP/s}.
    `sources` maps 'naive', 'tiled', 'gemm' to compiled modules."""
    cp = device.require_gpu()
    a, b = device.random((n, n), "float16", seed=1), device.random((n, n), "float16", seed=2)
    c = cp.empty((n, n), dtype=np.float16)
    out = {}
    for version, config in PROGRESSION.items():
        if version == "tuned":
            config = _tuned((n, n, n)) or DEFAULT
        if config is None:
            run = naive_launch if version == "naive" else tiled_launch
            module = sources[version]
            fn = functools.partial(run, module, a, b, c, n, n, n, sync=False)
        else:
            module = with_config(sources["gemm"], config)
            launch(module, a, b, c, n, n, n, n)
            fn = functools.partial(launch, module, a, b, c, n, n, n, n, sync=False)
        out[version] = bench.measure(version, fn, size=n, flops=2.0 * n ** 3, repeat=repeat).tflops
    out["cuBLAS"] = bench.matmul_ceiling(n, n, n, repeat=repeat).tflops
    return out


# Shapes: tiny, odd (M, N not multiples of anything), N % 8 != 0 (padded b), K a multiple of 8 but
# not of the K step. (K % 8 != 0 is rejected before any launch: tests/test_day10_static.py.)
SIMPLE_SHAPES = ((1, 1, 1), (33, 31, 17), (64, 64, 64), (100, 257, 130), (257, 129, 1000), (512, 512, 512))
GEMM_SHAPES = ((1, 1, 8), (16, 8, 16), (33, 31, 24), (129, 257, 40), (100, 1000, 136), (257, 129, 1000),
               (1000, 999, 8), (300, 5, 4096), (5, 300, 2056), (1024, 1024, 1024),
               (2048, 2048, 2048))

# The technique (grader/technique.py): the tensor-core kernels must feed the tensor cores (HMMA) from
# shared memory filled by cp.async (LDGSTS) through ldmatrix (LDSM), with everything in registers.
TENSOR_CORE_GEMM = dict(require=(r"HMMA", r"LDSM\.16\.M88\.4", r"LDSM\.16\.MT88\.4", r"LDGSTS"), no_spills=True)
MMA_SHAPES = ((1, 1, 8), (16, 8, 16), (33, 31, 24), (64, 64, 64), (129, 257, 40), (100, 1000, 136),
              (257, 129, 1000), (1024, 1024, 1024))

FP8_SHAPES = ((1, 1, 16), (16, 8, 32), (33, 31, 48), (64, 64, 64), (129, 257, 80), (100, 300, 528),
              (257, 129, 1024), (1024, 1024, 1024))

# ---- open design: the decode GEMV ---------------------------------------------------------------

# Each design shape (N, K): (the emulator's, the GPU's: 2^26 weights, far larger than L2). The self-check
# grades the first three; the last two are for hidden tests.
GEMV_SHAPES = {"decode": ((256, 512), (8192, 8192)), "tall": ((2048, 64), (1 << 20, 64)),
               "wide": ((4, 32768), (64, 1 << 20)), "tall128": ((1024, 128), (1 << 19, 128)),
               "wide16": ((16, 8192), (16, 1 << 22))}
GEMV_SELF_CHECK = ("decode", "tall", "wide")
GEMV_OF_CUBLAS = 0.80  # a design passes at this share of cuBLAS's GEMV (the course's: 94-100% on an H100;
#                        on an H200 86-92%, the wide shape N = 64 83-86% in five runs)
GEMV_CASES = ({"n": 1, "k": 1}, {"n": 1, "k": 33}, {"n": 31, "k": 1}, {"n": 33, "k": 31}, {"n": 2, "k": 8},
              {"n": 1000, "k": 8}, {"n": 257, "k": 136}, {"n": 4099, "k": 64}, {"n": 3, "k": 10_000},
              {"n": 64, "k": 4099}, {"n": 17, "k": 12_296})
U32 = 2.0 ** -24


def _gemv(module, w, x, n: int, k: int, sms: int, what: str):
    """y = w x on device w, x, and the plan gemv_plan wrote (open_design.run)."""
    return open_design.run(module, "gemv", (w, x), (np.int32(n), np.int32(k)), n, sms, what, out_name="y")


def _small_integers(rng: np.random.Generator, shape) -> np.ndarray:
    """+-(1..4) as float16: every product at most 16 and, with K <= 2^20, every partial sum an integer
    within 2^24, exact in float32 in any order: the results must match exactly."""
    return (rng.integers(1, 5, shape) * rng.choice(np.array([-1, 1]), shape)).astype(np.float16)


def _gemv_exact(module, rng, n: int, k: int, sms: int, seed: int, what: str):
    """gemv on small integers, compared exactly; (w and x on the device, w's bytes, x's bytes, the plan)."""
    w, x = _small_integers(rng, (n, k)), _small_integers(rng, k)
    wd, xd = device.asarray(w), device.asarray(x)
    got, plan = _gemv(module, wd, xd, n, k, sms, what)
    checks.assert_close(got, w.astype(np.float64) @ x.astype(np.float64), tol=checks.Tolerance(0.0, 0.0, False),
                        seed=seed, name=say("name.day10.exact", what=what))
    return wd, xd, w.nbytes, x.nbytes, plan


def check_gemv(module, seed: int, n: int, k: int) -> None:
    """Small integers (exact, whatever the order), then normal float16 within
    K * 2^-24 * max_n sum_k |w[n, k] x[k]|."""
    if n < 1 or k < 1:
        raise ValueError(say("day10.gemv_sizes", n=n, k=k))
    rng = np.random.default_rng(seed)
    sms = device.properties()["sms"]
    _gemv_exact(module, rng, n, k, sms, seed, f"(N={n}, K={k})")
    w = rng.standard_normal((n, k)).astype(np.float16)
    x = rng.standard_normal(k).astype(np.float16)
    got, _ = _gemv(module, device.asarray(w), device.asarray(x), n, k, sms, f"(N={n}, K={k})")
    w64, x64 = w.astype(np.float64), x.astype(np.float64)
    bound = k * U32 * float((np.abs(w64) @ np.abs(x64)).max())
    checks.assert_close(got, w64 @ x64, tol=checks.Tolerance(0.0, bound, False), seed=seed,
                        name=say("name.day10.gemv", n=n, k=k, bound=bound))


def check_gemv_design(module, seed: int, shape: str) -> None:
    """The design at one shape, as day 7's colsum_design: exact on small integers; on a GPU the full size at
    80% of cuBLAS's GEMV or more; on the emulator a smaller one judged by its memory statistics."""
    if shape not in GEMV_SHAPES:
        raise ValueError(say("arg.one_of", what="shape", value=shape, known=", ".join(GEMV_SHAPES)))
    small, full = GEMV_SHAPES[shape]
    timed = bench.timed()
    n, k = full if timed else small
    what = f"({shape}: N={n}, K={k})"
    sms = device.properties()["sms"] if timed else open_design.GPU_SMS
    wd, xd, w_bytes, x_bytes, plan = _gemv_exact(module, np.random.default_rng(seed), n, k, sms, seed, what)
    open_design.judge(module, "gemv", plan, (wd, xd), (np.int32(n), np.int32(k)), n, w_bytes, what,
                      full_sizes=(np.int32(full[0]), np.int32(full[1])), full_what=f"({shape}: N={full[0]}, K={full[1]})",
                      reread=plan.grid[0] * x_bytes, ceiling=lambda: cublas_gemv(wd, xd), at_least=GEMV_OF_CUBLAS)


def cublas_gemv(w, x) -> bench.Measurement:
    """cuBLAS's half-precision GEMV (`cupy.matmul(w, x)`) on the same weights: the GEMV's ceiling. It reads
    w at 70-79% of the copy bandwidth on an H100 (2026-11-27), as far as a GEMV gets."""
    cp = device.require_gpu()
    y = cp.empty(w.shape[0], dtype=w.dtype)
    return bench.measure("cuBLAS gemv (ceiling)", lambda: cp.matmul(w, x, out=y), size=w.shape[0], nbytes=w.nbytes)


def bench_gemv(modules: dict, quick: bool = False) -> bench.Report:
    """Bytes of w read per second at the three design shapes (2^26 weights each), cuBLAS's GEMV on the
    same weights as the ceiling."""
    device.require_gpu()
    sms = device.properties()["sms"]
    names = list(GEMV_SELF_CHECK)
    report = bench.Report("decode GEMV y = W x, 2^26 fp16 weights: decode (8192^2), tall (K = 64), wide (N = 64)",
                          "shape (0 decode, 1 tall, 2 wide)", "GB/s", ceiling_name="cuBLAS gemv")
    inputs = {name: (device.random(GEMV_SHAPES[name][1], "float16"), device.random(GEMV_SHAPES[name][1][1], "float16"))
              for name in names}
    y = device.empty(max(GEMV_SHAPES[name][1][0] for name in names))

    def make(module, name: str):
        n, k = GEMV_SHAPES[name][1]
        plan = open_design.read_plan(module, "gemv", (np.int32(n), np.int32(k), np.int32(sms)), name)
        return lambda: open_design.launch(module, "gemv", plan, (*inputs[name], y, np.int32(n), np.int32(k)),
                                          name, sync=False)

    return bench.bandwidth_sweep(report, modules, make, names, [2 * math.prod(GEMV_SHAPES[name][1]) for name in names],
                                 xs=list(range(len(names))), ceiling=lambda name: cublas_gemv(*inputs[name]))


EXERCISES = (
    Exercise("day10", "gemm_naive", "gemm_naive.cu", "naive GEMM: one thread per element of C",
             check_gemm_naive, tuple({"m": m, "n": n, "k": k} for m, n, k in SIMPLE_SHAPES),
             bench=bench_gemm_naive),
    Exercise("day10", "gemm_tiled", "gemm_tiled.cu", "shared-memory tiling with 4x4 register micro-tiles",
             check_gemm_tiled, tuple({"m": m, "n": n, "k": k} for m, n, k in SIMPLE_SHAPES),
             bench=bench_gemm_tiled),
    Exercise("day10", "swizzle", "swizzle.cu", "the XOR swizzle of 16-byte chunks: conflict-free ldmatrix",
             check_swizzle, tuple({"cols": c, "rows_valid": r, "cols_valid": v}
                                  for c, r, v in ((32, 16, 32), (64, 5, 24), (128, 9, 64), (256, 1, 8)))),
    Exercise("day10", "gemm_mma", "gemm_mma.cu", "one tensor-core block tile: cp.async, swizzle, ldmatrix, mma",
             check_gemm_mma, tuple({"m": m, "n": n, "k": k} for m, n, k in MMA_SHAPES),
             technique=(Technique(why="tensor cores fed by cp.async and ldmatrix", kernels=("gemm_mma_f16",),
                                  **TENSOR_CORE_GEMM),)),
    Exercise("day10", "gemm", "gemm.cu", "tensor-core GEMM: cp.async pipeline, swizzled smem, epilogue",
             check_gemm, tuple({"m": m, "n": n, "k": k} for m, n, k in GEMM_SHAPES),
             bench=bench_gemm, target=0.60,
             technique=(Technique(why="a pipelined tensor-core GEMM (mma.sync fed by cp.async and ldmatrix)",
                                  kernels=("gemm_f16",), **TENSOR_CORE_GEMM),)),
    Exercise("day10", "gemm_fp8", "gemm_fp8.cu", "FP8 GEMM: e4m3 mma.sync k32, per-tensor scales, fp32 out",
             check_gemm_fp8, tuple({"m": m, "n": n, "k": k} for m, n, k in FP8_SHAPES),
             bench=bench_gemm_fp8,
             technique=(Technique(why="FP8 mma.sync (m16n8k32 e4m3) fed by cp.async and ldmatrix",
                                  kernels=("gemm_fp8_e4m3",), require=(r"HMMA", r"LDSM\.16\.M88\.4", r"LDGSTS"),
                                  no_spills=True,
                                  source_require=((r"mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e4m3\.e4m3\.f32",
                                                   "inline mma.sync.aligned.m16n8k32 ... e4m3.e4m3"),)),)),
    Exercise("day10", "gemv", "gemv.cu", "open design: the decode GEMV, right for every shape",
             check_gemv, GEMV_CASES, bench=bench_gemv, target=0.85),
    Exercise("day10", "gemv_design", "gemv.cu", "open design: the decode GEMV at the speed of memory",
             check_gemv_design, tuple({"shape": s} for s in GEMV_SELF_CHECK),
             cost=lambda case: GEMV_SHAPES[case["shape"]][0][0] * GEMV_SHAPES[case["shape"]][0][1],
             statistics=True),
)
