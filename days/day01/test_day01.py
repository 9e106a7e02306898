"""Day 1 self-check. Your kernels: `pytest days/day01`; the course's: `pytest days/day01 --solutions`.

Each case draws fresh random inputs (the seed is printed on failure; COURSE_SEED=<seed> replays it),
poisons the output with NaN, launches your kernel and compares with numpy. The checks themselves are
in grader/exercises/day01.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day01"))
