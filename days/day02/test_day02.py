"""Day 2 self-check. Your kernels: `pytest days/day02`; the course's: `pytest days/day02 --solutions`.

Correctness on awkward sizes first, then the bandwidth test: silu_and_mul must reach 90% of the
copy bandwidth measured in the same run. The checks are in grader/exercises/day02.py.
"""
import pytest

from grader.exercises import case_id, day02

STRIDED_GATHER, SILU_AND_MUL, QUANT_INT8 = day02.EXERCISES


@pytest.mark.parametrize("case", STRIDED_GATHER.cases, ids=case_id)
def test_strided_gather(course, case):
    course.check(STRIDED_GATHER, case)


@pytest.mark.parametrize("case", SILU_AND_MUL.cases, ids=case_id)
def test_silu_and_mul(course, case):
    course.check(SILU_AND_MUL, case)


@pytest.mark.parametrize("case", QUANT_INT8.cases, ids=case_id)
def test_quant_int8(course, case):
    course.check(QUANT_INT8, case)


@pytest.mark.perf
def test_silu_and_mul_bandwidth(course):
    course.bench(SILU_AND_MUL)
