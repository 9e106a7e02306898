"""Day 10 self-check. Your kernels: `pytest days/day10`; the course's: `pytest days/day10 --solutions`.

How to read the output:
- Each case draws fresh random fp16 inputs (normal numbers) and compares C with a float64 numpy
  product by the norm of the error: 1e-3 for the fp16 output plus 2^-23 * K for fp32 accumulation.
  A failure names the worst element (index, expected, got) and the seed: COURSE_SEED=<seed> replays it.
- C is poisoned with NaN before each launch: "elements are NaN" means tiles (often the edge tiles)
  never written. Shapes include M and N that no tile divides (33 x 31, 257 x 129, 300 x 5) and K that
  is a multiple of 8 but not of the K step (24, 40, 136, 2056).
- gemm runs with the configuration your gemm.cu was compiled with (its #define defaults); the
  failure message names it, e.g. [128x256x32 w2x4 s3]. `python -m grader autotune` checks and times
  the others.
- The perf tests print TFLOP/s against cuBLAS (`cupy.matmul`) measured in the same run at the same
  sizes; gemm's target is 50% of cuBLAS at 8192^3 (also shown: 4096^3). naive and tiled have no target.
The checks themselves are in grader/exercises/day10.py.
"""
import pytest

from grader.exercises import case_id, day10

NAIVE, TILED, GEMM = day10.EXERCISES


@pytest.mark.parametrize("case", NAIVE.cases, ids=case_id)
def test_gemm_naive(course, case):
    course.check(NAIVE, case)


@pytest.mark.parametrize("case", TILED.cases, ids=case_id)
def test_gemm_tiled(course, case):
    course.check(TILED, case)


@pytest.mark.parametrize("case", GEMM.cases, ids=case_id)
def test_gemm(course, case):
    course.check(GEMM, case)


@pytest.mark.perf
def test_gemm_throughput(course):
    course.bench(GEMM)
