"""Day 7 self-check. Your kernels: `pytest days/day07`; the course's: `pytest days/day07 --solutions`.

How to read the output:
- Each correctness case draws fresh random inputs. A failure names the output, the worst element
  (index, expected, got, relative error) and the seed: COURSE_SEED=<seed> replays the same inputs.
- async_copy writes whole tiles into a NaN-poisoned output: out[:n] must be an exact copy of the
  input, and out[n:] exactly 0.0, the zero-fill of your copies past the end of the data. "still hold
  the NaN poison" there means a tile not written; a non-zero value in the tail means no zero-fill.
- double_buffer and pipeline run on a few blocks, so each block goes round its buffers many times; a
  race (a missing wait or barrier) shows as wrong elements that change from run to run.
- qk_scores compares each score with the float64 dot product, within the rounding error a 64-term
  float32 sum may make (the message states it); rows past n are zero-filled tiles, not scores.
- colsum (open design) is yours from the launch up: its correctness cases compare with float64 column
  sums (exactly, on small integers); colsum_design grades the design at three shapes: on a GPU its
  bandwidth (>= 75% of copy), on the emulator the memory statistics of your launch (the failure lists
  every shortfall: coalescing, bytes read, load width, bank conflicts, threads for the GPU-size shape).
- Every exercise is also checked for its technique in the SASS of your file (cp.async = LDGSTS,
  commit = LDGDEPBAR, wait = DEPBAR): a kernel that is right without it fails with the reason.
- The perf test (64 Mi floats, one block per SM, 1 to 8 stages; the target is read at 8 stages)
  prints GB/s per stage count, its % of the device-to-device copy bandwidth measured in the same run,
  and that ceiling. It fails below 85%. A kernel is timed only after it passes its largest case.
The checks themselves are in grader/exercises/day07.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day07", perf={"pipeline": "bandwidth", "colsum": "bandwidth"}))
