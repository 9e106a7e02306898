"""Day 8 self-check. Your kernels: `pytest days/day08`; the course's: `pytest days/day08 --solutions`.

How to read the output:
- Each correctness case draws fresh random inputs. A failure names the output, the first element
  that differs (index, expected, got) and the seed: COURSE_SEED=<seed> replays the same inputs.
- block_scan checks the warp scan first (each warp's 32 elements on their own), then the block scan
  (each tile of 1024 on its own, and the tiles' sums), exactly.
- scan first probes your look-back alone: tiles whose predecessors already published a random mix of
  aggregates and inclusive prefixes (as blocks finishing in any order leave them); the message lists
  the probed tiles. Then the whole scan. Both sum small integers, so the result must match exactly. Integer outputs start as -1 (0xFF
  bytes): "expected 1234, got -1" is an element never written. A scan that is right for n <= 4096
  (one tile) and wrong beyond it has a broken look-back; one that hangs (the test times out) waits
  for a tile that never publishes.
- compact checks the count, then the kept elements in their order (exactly), then that nothing was
  written past them (NaN poison).
- ragged checks build_indptr (exactly; about a quarter of the lengths are 0), then segment_sum (within
  a float32 rounding bound the message states; empty sequences must give 0), then gather_rows (exactly).
- The perf test (n = 2^24 then 2^26 ints; the target is read at 2^26) prints GB/s of your scan, its
  ratio to cupy.cumsum on the same data in the same run, and cupy.cumsum's GB/s. (The summary line
  names that ceiling.) It fails below 70%.
The checks themselves are in grader/exercises/day08.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day08", perf={"scan": "throughput"}))
