"""Day 9 self-check. Your kernels: `pytest days/day09`; the course's: `pytest days/day09 --solutions`.

How to read the output:
- Each case draws fresh random inputs (random bits for ldmatrix, normal numbers for the products),
  never identity or all-ones matrices, so a lane holding the wrong element fails. A failure names
  the output, the worst element (index, expected, got) and the seed: COURSE_SEED=<seed> replays it.
- ldmatrix compares every register of every lane exactly: index (tile, lane, register). A register
  the variant does not load must keep the poison 0xffffffff. Read a wrong value as two 16-bit halves
  (low half first) and look them up in the tile: which row and column you loaded instead.
- mma_tile and block_tile compare with float64 numpy products, by the norm of the error, allowing
  fp32 accumulation error that grows with K (grader/references/tolerances.py: accumulate_tolerance).
  "still hold the NaN poison" means outputs never written (they are poisoned before each launch).
- block_tile runs at sizes that are not multiples of its 64x64 tile (1x1x1, 33x31x17, 257x129x1000):
  edges must be zero-filled on load and guarded on store.
The checks themselves are in grader/exercises/day09.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day09"))
