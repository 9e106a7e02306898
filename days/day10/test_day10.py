"""Day 10 self-check. Your kernels: `pytest days/day10`; the course's: `pytest days/day10 --solutions`.

How to read the output:
- Each case draws fresh random fp16 inputs (normal numbers) and compares C with a float64 numpy
  product by the norm of the error: 1e-3 for the fp16 output plus 2^-23 * K for fp32 accumulation.
  A failure names the worst element (index, expected, got) and the seed: COURSE_SEED=<seed> replays it.
- C is poisoned with NaN before each launch: "still hold the NaN poison" means tiles (often the edge tiles)
  never written. Shapes include M and N that no tile divides (33 x 31, 257 x 129, 300 x 5) and K that
  is a multiple of 8 but not of the K step (24, 40, 136, 2056).
- swizzle checks properties, not one formula: each row a permutation of itself, 16-byte chunks whole,
  and every ldmatrix (8 rows of one chunk column) on 8 different 16-byte bank slots; a failure names
  the rows, the chunk column and the slots they hit.
- gemm_mma and gemm must run on the tensor cores, fed by cp.async and ldmatrix, without spills: the
  grader reads your kernel's SASS (HMMA, LDGSTS, LDSM) before running any case.
- gemm runs with the configuration your gemm.cu was compiled with (its #define defaults); the
  failure message names it, e.g. [128x256x32 w2x4 s3]. `python -m grader autotune` checks and times
  the others.
- The perf tests print TFLOP/s against cuBLAS (`cupy.matmul`) measured in the same run at the same
  sizes; gemm's target is 60% of cuBLAS at 8192^3 (also shown: 4096^3). naive and tiled have no target.
- gemm_fp8 takes e4m3 A [M, K] and B [N, K] quantised per tensor (scale = amax / 448) and is compared
  with the float64 product of the dequantised inputs: e4m3 products are exact, so the tolerance is the
  fp32 one (1e-5 plus 2^-23 * K by norm). Its source must hold the inline m16n8k32 e4m3 mma.sync.
- gemv (open design) is yours from the launch up: its correctness cases compare with the float64
  product (exactly, on small integers); gemv_design grades the design at three shapes: on a GPU its
  bandwidth (>= 85% of cuBLAS's GEMV on the same weights), on the emulator the memory statistics of your launch.
The checks themselves are in grader/exercises/day10.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day10", perf={"gemm": "throughput", "gemm_fp8": "throughput", "gemv": "bandwidth"}))
