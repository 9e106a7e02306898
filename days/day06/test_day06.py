"""Day 6 self-check. Your kernels: `pytest days/day06`; the course's: `pytest days/day06 --solutions`.

How to read the output:
- Each correctness case draws fresh random inputs. A failure names the output, the worst element
  (index, expected, got, relative error) and the seed: COURSE_SEED=<seed> replays the same inputs.
- block_sum runs each n twice: on small integers, where any order of additions is exact and the sum
  must match exactly (so a missing or doubled element shows), and on normal floats, within the bound
  for float32 rounding that the message states.
- rmsnorm writes into a NaN-poisoned output: "still hold the NaN poison" means elements never
  written; "NaN the kernel computed" on a zero row is 0 x inf: eps belongs inside the square root.
  fused_add_rmsnorm works in place, so nothing can be poisoned; both residual and x are compared in
  full. Every element must lie within one rounding of the dtype (bf16 2^-8, fp16 2^-11, plus 2e-5 for
  the float32 arithmetic) of the float64 value: what a kernel that accumulates in fp32 always meets.
  Rows are scaled by 1, 1e-4, 1e-2, 0, 1e-3, 1e-5 in turn, so eps matters and a zero row must stay 0.
- gemma=True cases run gemma_rmsnorm_*: the same norm times (1 + weight).
- The perf tests (rows 16384, hidden 4096 then 8192; the target is read at 8192) print a table:
  GB/s of your kernel for each dtype, its % of the device-to-device copy bandwidth measured in the
  same run at the same byte count, and that ceiling. They fail below 85%. A kernel is timed only
  after it passes its largest correctness case.
The checks themselves are in grader/exercises/day06.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day06", perf={"rmsnorm": "bandwidth", "fused_add_rmsnorm": "bandwidth"}))
