"""Day 1 self-check. Your kernels: `pytest days/day01`; the course's: `pytest days/day01 --solutions`.

Each case draws fresh random inputs (the seed is printed on failure; COURSE_SEED=<seed> replays it),
poisons the output with NaN, launches your kernel and compares with numpy. The checks themselves are
in grader/exercises/day01.py.
"""
import pytest

from grader.exercises import case_id, day01

VECTOR_ADD, SAXPY, ADD_BIAS_2D, THREAD_INFO, READ_SUM = day01.EXERCISES


@pytest.mark.parametrize("case", VECTOR_ADD.cases, ids=case_id)
def test_vector_add(course, case):
    course.check(VECTOR_ADD, case)


@pytest.mark.parametrize("case", SAXPY.cases, ids=case_id)
def test_saxpy(course, case):
    course.check(SAXPY, case)


@pytest.mark.parametrize("case", ADD_BIAS_2D.cases, ids=case_id)
def test_add_bias_2d(course, case):
    course.check(ADD_BIAS_2D, case)


@pytest.mark.parametrize("case", THREAD_INFO.cases, ids=case_id)
def test_thread_info(course, case):
    course.check(THREAD_INFO, case)


@pytest.mark.parametrize("case", READ_SUM.cases, ids=case_id)
def test_read_sum(course, case):
    course.check(READ_SUM, case)
