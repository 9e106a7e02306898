"""Day 1: the CUDA model, indexing and launch configuration."""
from __future__ import annotations

import numpy as np

from grader import checks, device
from grader.exercises import Exercise
from grader.messages import say
from grader.references.tolerances import assert_within
from grader.technique import Technique


def _launch_1d(n: int, block: int = 256) -> tuple[tuple, tuple]:
    return (max(1, -(-n // block)),), (block,)


def check_vector_add(module, seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    c = device.empty(n, "float32")
    grid, block = _launch_1d(n)
    device.launch(module.get_function("vector_add"), grid, block,
                  (device.asarray(a), device.asarray(b), c, np.int64(n)), what="vector_add")
    checks.assert_close(device.to_host(c), a.astype(np.float64) + b, name=f"vector_add c (n={n})",
                        seed=seed)


SAXPY_GRID = (4, 128)  # deliberately small: only a grid-stride loop covers large n


def check_saxpy(module, seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    alpha = np.float32(rng.uniform(-3, 3))
    out = device.empty(n, "float32")
    blocks, threads = SAXPY_GRID
    device.launch(module.get_function("saxpy"), (blocks,), (threads,),
                  (np.int64(n), alpha, device.asarray(x), device.asarray(y), out), what="saxpy")
    expected = np.float64(alpha) * x + y
    checks.assert_close(device.to_host(out), expected,
                        name=say("name.day01.saxpy", n=n, blocks=blocks, threads=threads),
                        seed=seed)


def check_add_bias_2d(module, seed: int, rows: int, cols: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    bias = rng.standard_normal(cols, dtype=np.float32)
    out = device.empty((rows, cols), "float32")
    block = (32, 8, 1)
    grid = (-(-cols // 32), -(-rows // 8), 1)
    device.launch(module.get_function("add_bias_2d"), grid, block,
                  (device.asarray(x), device.asarray(bias), out, np.int32(rows), np.int32(cols)),
                  what="add_bias_2d")
    checks.assert_close(device.to_host(out), x.astype(np.float64) + bias,
                        name=f"add_bias_2d out ({rows}x{cols})", seed=seed)


def thread_info_reference(grid: tuple, block: tuple) -> np.ndarray:
    """[threads in the grid, 4]: block rank, thread rank, warp, lane of each global rank (x fastest)."""
    blocks, threads = int(np.prod(grid)), int(np.prod(block))
    rank = np.arange(threads)
    out = np.empty((blocks, threads, 4), np.int64)
    out[..., 0] = np.arange(blocks)[:, None]
    out[..., 1], out[..., 2], out[..., 3] = rank, rank // 32, rank % 32
    return out.reshape(-1, 4)


def check_thread_info(module, seed: int, grid: tuple, block: tuple) -> None:
    expected = thread_info_reference(grid, block)
    out = device.empty(expected.size, "int32")  # poisoned: -1 in every element
    device.launch(module.get_function("thread_info"), tuple(grid), tuple(block), (out,), what="thread_info")
    got = device.to_host(out).reshape(-1, 4)
    for k, field in enumerate(("day01.block_rank", "day01.thread_rank", "day01.warp", "day01.lane")):
        wrong = np.flatnonzero(got[:, k] != expected[:, k])
        if wrong.size:
            g = int(wrong[0])
            raise AssertionError(say(
                "day01.thread_info", field=say(field), grid=grid, block=block, wrong=wrong.size, total=len(got),
                rank=g, block_rank=expected[g, 0], thread_rank=expected[g, 1], expected=expected[g, k],
                got=got[g, k], never=say("day01.never_written") if got[g, k] == -1 else "", seed=seed))


READ_SUM_GRID = (6, 128)  # fixed: the grid-stride loop covers any n4


def check_read_sum(module, seed: int, n4: int, reps: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n4, 4), dtype=np.float32)
    blocks, threads = READ_SUM_GRID
    total = blocks * threads
    partial = device.empty(total, "float32")
    device.launch(module.get_function("read_sum"), (blocks,), (threads,),
                  (device.asarray(x), np.int64(n4), np.int32(reps), partial), what="read_sum")
    owner = np.arange(n4) % total
    exact = reps * np.bincount(owner, weights=x.astype(np.float64).sum(axis=1), minlength=total)
    abs_sum = reps * np.bincount(owner, weights=np.abs(x.astype(np.float64)).sum(axis=1), minlength=total)
    # float32 accumulation: each addition rounds by at most 2^-24 of the running |sum| <= abs_sum.
    adds = 4 * reps * -(-n4 // total) + 1
    assert_within(device.to_host(partial), exact, adds * 2.0**-24 * abs_sum, seed=seed,
                  name=say("name.day01.read_sum", n4=n4, reps=reps, blocks=blocks, threads=threads))


EXERCISES = (
    Exercise("day01", "vector_add", "vector_add.cu", "vector add with a bounds check",
             check_vector_add,
             tuple({"n": n} for n in (1, 31, 33, 255, 257, 1000, 1 << 20, (1 << 24) + 3))),
    Exercise("day01", "saxpy", "saxpy.cu", "SAXPY with a grid-stride loop", check_saxpy,
             tuple({"n": n} for n in (1, 33, 511, 512, 513, 100_003, (1 << 22) + 1))),
    Exercise("day01", "add_bias_2d", "add_bias_2d.cu", "2-D indexing: add a bias to every row",
             check_add_bias_2d,
             ({"rows": 1, "cols": 1}, {"rows": 1, "cols": 33}, {"rows": 31, "cols": 1},
              {"rows": 31, "cols": 33}, {"rows": 1000, "cols": 999}, {"rows": 4096, "cols": 257})),
    Exercise("day01", "thread_info", "thread_info.cu", "3-D blocks and grids: ranks, warps and lanes",
             check_thread_info,
             tuple({"grid": g, "block": b} for g, b in
                   (((1, 1, 1), (32, 1, 1)), ((3, 1, 1), (5, 3, 1)), ((2, 3, 1), (8, 4, 2)),
                    ((2, 2, 2), (7, 5, 3)), ((4, 1, 3), (16, 16, 4))))),
    Exercise("day01", "read_sum", "read_sum.cu", "a grid-stride read loop over a working set, repeated",
             check_read_sum,
             tuple({"n4": n, "reps": r} for n, r in ((1, 1), (33, 2), (767, 1), (769, 3), (100_003, 2),
                                                    ((1 << 20) + 1, 1))),
             technique=(Technique("one 16-byte load (a float4) per element", require=(r"LDG\.E\.128",)),)),
)
