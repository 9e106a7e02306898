"""Day 4 self-check. Your kernels: `pytest days/day04`; the course's: `pytest days/day04 --solutions`.

How to read the output:
- Each case transposes a fresh random float32 matrix [rows, cols] (the seed is printed on failure;
  COURSE_SEED=<seed> replays it) into a NaN-poisoned out [cols, rows] with one extra poisoned row.
  A transpose only moves values, so every element must match in.T EXACTLY. "still hold the NaN
  poison" means elements never written (often a whole edge tile: check the bounds); "the row past out's end"
  means a write past out's last row (a missing or wrong bounds check on the store).
- transpose_tiled checks three kernels of transpose_tiled.cu in turn: transpose_naive (given),
  transpose_tiled and transpose_padded (yours); the message names the one that failed.
- Shapes include 1 x 1, 31 x 33, 33 x 31, 1000 x 7 and others that are not multiples of the tile
  (32 or 64), and shapes whose sides are not multiples of 4 (the swizzled kernel's one-float path).
- The perf tests (fp32, n x n up to 8192) print GB/s (bytes read + written) against the
  device-to-device copy of the same bytes measured in the same run. transpose_swizzled must reach
  80% of it at 8192 x 8192; transpose_tiled's table (naive, tiled, padded) is for reading, not graded.
- A race (a missing __syncthreads) often passes these checks by luck: `python -m grader sanitize day04`
  runs them under compute-sanitizer.
The checks themselves are in grader/exercises/day04.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day04", perf={"transpose_tiled": "bandwidth", "transpose_swizzled": "bandwidth"}))
