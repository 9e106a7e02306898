"""Day 3 self-check. Your kernels: `pytest days/day03`; the course's: `pytest days/day03 --solutions`.

The approximate instructions are checked against numpy in float64 with the error the PTX ISA states
for each (APPROX_BOUNDS); the warp reduction checks every lane, not only lane 0; GELU allows tanh.approx's
error. The checks are in grader/exercises/day03.py.
"""
import pytest

from grader.exercises import case_id, day03

PTX_MATH, WARP_REDUCE, GELU_TANH = day03.EXERCISES


@pytest.mark.parametrize("case", PTX_MATH.cases, ids=case_id)
def test_ptx_math(course, case):
    course.check(PTX_MATH, case)


@pytest.mark.parametrize("case", WARP_REDUCE.cases, ids=case_id)
def test_warp_reduce(course, case):
    course.check(WARP_REDUCE, case)


@pytest.mark.parametrize("case", GELU_TANH.cases, ids=case_id)
def test_gelu_tanh(course, case):
    course.check(GELU_TANH, case)
