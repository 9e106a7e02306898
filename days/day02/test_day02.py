"""Day 2 self-check. Your kernels: `pytest days/day02`; the course's: `pytest days/day02 --solutions`.

Correctness on awkward sizes first, then the bandwidth test: silu_and_mul must reach 90% of the
copy bandwidth measured in the same run. The checks are in grader/exercises/day02.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day02", perf={"silu_and_mul": "bandwidth"}))
