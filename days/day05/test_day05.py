"""Day 5 self-check. Your kernels: `pytest days/day05`; the course's: `pytest days/day05 --solutions`.

How to read the output:
- Each correctness case draws fresh random inputs. A failure names the output, the worst element
  (index, expected, got, relative error) and the seed: COURSE_SEED=<seed> replays the same inputs.
- warp_scan scans non-negative integers, so the result is exact and must match np.cumsum exactly;
  -1 in "got" is the poison: an element never written.
- softmax_stats: m must be each row's max exactly, s = sum exp(x - m) within relative 1e-5; NaN in s
  for short rows (d < 32) usually means two empty states merged: -inf - (-inf) is NaN.
- softmax writes into a NaN-poisoned output: "still hold the NaN poison" means never written; "NaN
  the kernel computed" is the kernel's own inf / inf or 0 / 0 (with "large" inputs, logits near
  +-90): subtract the row max before exp. fp32 is compared element by element (relative 1e-5), fp16 by the norm of the
  error (1e-3).
- compact checks the per-block counts first (exact), then that out_idx and out hold exactly the kept
  indices and values in input order (the compaction must be stable), and that nothing is written
  past the count.
- The perf test (rows of 1024, fp32 and fp16, up to 512 MiB moved; the target is read at the largest
  size) prints GB/s for each dtype, its % of the device-to-device copy bandwidth measured in the same
  run at the same byte count, and that ceiling. It fails below 80%. A kernel is timed only after it
  passes its largest correctness case.
The checks themselves are in grader/exercises/day05.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day05", perf={"softmax": "bandwidth"}))
