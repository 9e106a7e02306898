"""Day 4: shared memory and bank conflicts: tiled, padded and swizzled transposes; a stride sweep.

`DEMOS` are not graded: kernels with a planted bug (a missing __syncthreads, a missing bounds check)
in solutions/day04/demos/, run by `python -m grader sanitize day04` to show what compute-sanitizer
reports. `stride_sweep` times the worked example solutions/day04/demos/smem_stride.cu.
"""
from __future__ import annotations

import functools
import statistics

import numpy as np

from grader import bench, checks, device, paths
from grader.exercises import Exercise
from grader.messages import Shown, say
from grader.technique import Technique

DEMO_DIR = paths.course_file("day04", "demos")  # days/day04/demos in a student edition
EXACT = checks.Tolerance(0.0, 0.0, False)  # a transpose moves values: every element must match exactly

# kernel: (block, elements per block along x = cols, along y = rows)
LAUNCH = {
    "transpose_naive": ((32, 8), 32, 8),
    "transpose_tiled": ((32, 8), 32, 32),
    "transpose_padded": ((32, 8), 32, 32),
    "transpose_race": ((32, 8), 32, 32),
    "transpose_oob": ((32, 8), 32, 32),
    "transpose_swizzled": ((256,), 64, 64),
}


def _launch(module, kernel: str, src, out, rows: int, cols: int, sync=True) -> None:
    if kernel not in LAUNCH:
        raise ValueError(say("arg.one_of", what="kernel", value=kernel, known=", ".join(LAUNCH)))
    block, per_x, per_y = LAUNCH[kernel]
    grid = (-(-cols // per_x), -(-rows // per_y))
    args = (src, out, np.int32(rows), np.int32(cols))
    fn = module.get_function(kernel)
    if sync:
        device.launch(fn, grid, block, args, what=f"{kernel} (rows={rows}, cols={cols})")
    else:
        fn(grid, block, args)


def check_kernel(module, seed: int, rows: int, cols: int, kernel: str) -> None:
    """One transpose kernel on random float32 [rows, cols]: out must equal in.T exactly. out has one
    extra row of NaN poison that must stay untouched (a write past out's last row lands there)."""
    if rows < 1 or cols < 1:
        raise ValueError(say("day04.sizes", rows=rows, cols=cols))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    out = device.empty((cols + 1, rows), "float32", guard=1)
    _launch(module, kernel, device.asarray(x), out, rows, cols)
    got = device.to_host(out)
    where = f"(rows={rows}, cols={cols})"
    checks.assert_close(got[:cols], x.T, tol=EXACT, name=f"{kernel} out = in.T {where}", seed=seed)
    checks.assert_untouched(got[cols:], np.ones((1, rows), bool), seed=seed,
                            name=say("name.day04.past_end", kernel=kernel, where=where))


def check_transpose_tiled(module, seed: int, rows: int, cols: int) -> None:
    for kernel in ("transpose_naive", "transpose_tiled", "transpose_padded"):
        check_kernel(module, seed, rows, cols, kernel)


def check_transpose_swizzled(module, seed: int, rows: int, cols: int) -> None:
    check_kernel(module, seed, rows, cols, "transpose_swizzled")


# ---- benchmarks ---------------------------------------------------------------------------------

def _bench(modules: dict, kernels: tuple[str, ...], quick: bool) -> bench.Report:
    """Bandwidth (bytes read + written = 8 per element) of square fp32 transposes, ending at 8192 x 8192,
    against the device-to-device copy of the same bytes."""
    device.require_gpu()
    sides = (4096, 8192) if quick else (1024, 2048, 4096, 8192)
    report = bench.Report("fp32 transpose, n x n", "bytes moved (read + written)", "GB/s")
    sizes = [8 * n * n for n in sides]
    inputs = {n: device.random((n, n), seed=n) for n in sides}
    outs = {n: device.empty((n, n)) for n in sides}
    series = {f"{label} {kernel.removeprefix('transpose_')}": (module, kernel)
              for label, module in modules.items() for kernel in kernels}
    return bench.bandwidth_sweep(
        report, series, lambda what, n: lambda: _launch(*what, inputs[n], outs[n], n, n, sync=False), sides, sizes)


def bench_transpose_tiled(modules: dict, quick: bool = False) -> bench.Report:
    return _bench(modules, ("transpose_naive", "transpose_tiled", "transpose_padded"), quick)


def bench_transpose_swizzled(modules: dict, quick: bool = False) -> bench.Report:
    return _bench(modules, ("transpose_swizzled",), quick)


# ---- the stride sweep (worked example) ----------------------------------------------------------

def conflict_ways(stride: int, words: int = 1) -> int:
    """Passes a warp needs when lane i reads the `words`-word element at word offset i * stride * words
    (32 banks of 4 bytes; distinct words in one bank serialise). The sweep's model: gcd(stride, 32)."""
    if stride < 0 or words < 1:
        raise ValueError(say("day04.stride", stride=stride, words=words))
    addresses = np.arange(32) * stride * words
    banks = addresses % 32
    return int(max(len(np.unique(addresses[banks == b])) for b in np.unique(banks)))


def stride_sweep(strides=range(1, 34), iters: int = 4096, blocks_per_sm: int = 4, threads: int = 512) -> dict:
    """Time smem_stride.cu at each stride; returns {'stride', 'ms', 'tbps' (shared-memory bytes read per
    second, 4 per thread per iteration), 'ways' (the bank-conflict model)} as numpy arrays."""
    device.require_gpu()
    if iters < 2 or iters % 2 or threads % 32 or not 32 <= threads <= 1024:
        raise ValueError(say("day04.sweep"))
    strides = list(strides)
    if not strides or min(strides) < 0 or max(strides) > 33:
        raise ValueError(say("day04.strides", strides=strides))
    module = device.load(DEMO_DIR / "smem_stride.cu")
    kernel = module.get_function("smem_stride")
    blocks = device.properties()["sms"] * blocks_per_sm
    out = device.empty(blocks * threads)
    ms = []
    for s in strides:
        def run(s=s):
            kernel((blocks,), (threads,), (out, np.int32(s), np.int32(iters)))
        ms.append(statistics.median(bench.time_ms(run, warmup=2, repeat=10, flush=False)))
    ms = np.array(ms)
    return {"stride": np.array(strides), "ms": ms, "tbps": 4.0 * blocks * threads * iters / (ms * 1e-3) / 1e12,
            "ways": np.array([conflict_ways(s) for s in strides])}


# ---- exercises and demos ------------------------------------------------------------------------

SHAPES = ({"rows": 1, "cols": 1}, {"rows": 31, "cols": 33}, {"rows": 33, "cols": 31}, {"rows": 1000, "cols": 7},
          {"rows": 7, "cols": 1000}, {"rows": 64, "cols": 64}, {"rows": 65, "cols": 129},
          {"rows": 100, "cols": 1000}, {"rows": 1000, "cols": 100}, {"rows": 2049, "cols": 4100},
          {"rows": 4096, "cols": 8192})

# A tiled transpose goes through shared memory: stores into the tile, a barrier, loads from it.
TILED = tuple(Technique(why="a transpose through a shared-memory tile (coalesced reads and writes)",
                        require=(r"STS", r"BAR", r"LDS"), kernels=(kernel,))
              for kernel in ("transpose_tiled", "transpose_padded"))
SWIZZLED = Technique(
    why="16-byte accesses to global and shared memory and an XOR-swizzled tile",
    require=(r"LDG\.E\.128", r"STG\.E\.128", r"STS\.128", r"LDS\.128", r"BAR"),
    source_require=((r"\^", "XOR (^): the swizzle of the chunk index by bits of the row"),),
    source_forbid=((r"permuted_chunk|xor_swizzle", "course/permuted_smem.cuh's swizzle (write your own "
                                                  "tile_chunk)"),))

EXERCISES = (
    Exercise("day04", "transpose_tiled", "transpose_tiled.cu",
             "tiled transpose through shared memory, unpadded and padded", check_transpose_tiled, SHAPES,
             bench=bench_transpose_tiled, technique=TILED),
    Exercise("day04", "transpose_swizzled", "transpose_swizzled.cu",
             "64 x 64 tiles, 16-byte accesses, a swizzled tile: a transpose near copy speed",
             check_transpose_swizzled, SHAPES, bench=bench_transpose_swizzled, target=0.80,
             technique=(SWIZZLED,)),
)

# Planted bugs for compute-sanitizer, at a shape that is not a multiple of the 32 x 32 tile, each with
# the tool that must report it.
DEMOS = (
    (Exercise("day04", "race", "demos/transpose_race.cu", Shown("day04.demo.race"),
             functools.partial(check_kernel, kernel="transpose_race"), ({"rows": 33, "cols": 31},)), "racecheck"),
    (Exercise("day04", "oob_write", "demos/transpose_oob.cu", Shown("day04.demo.oob"),
             functools.partial(check_kernel, kernel="transpose_oob"), ({"rows": 33, "cols": 31},)), "memcheck"),
)
