"""Day 1: the CUDA model, indexing and launch configuration."""
from __future__ import annotations

import numpy as np

from grader import checks, device
from grader.exercises import Exercise


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
    checks.assert_close(device.to_host(out), expected, name=f"saxpy out (n={n}, grid {blocks}x{threads})",
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
)
