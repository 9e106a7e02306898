"""A day's self-check tests from the exercise registry: what each days/dayNN/test_dayNN.py collects.

    globals().update(exercise_tests("day13", perf={"rope": "bandwidth"}))

gives test_<name> per exercise, one test per case (ids `case_id`, the `course` fixture checks it), and
test_<name>_bandwidth / test_<name>_throughput (marked perf) benchmarking the exercises `perf` names.
`grader check` selects an exercise's tests by these names (-k test_<name>).
"""
from __future__ import annotations

import pytest

from grader.exercises import Exercise, case_id, day_exercises

PERF_KINDS = ("bandwidth", "throughput")


def exercise_tests(day: str, *, perf: dict[str, str] | None = None, written: tuple[str, ...] = ()) -> dict:
    """The day's tests by name, for the test module's globals; exercises in `written` have a test the module
    writes itself. Each exercise comes too, under its name in capitals: the plugins' collection hooks find
    a case's exercise among the test module's globals."""
    perf = dict(perf or {})
    exs = day_exercises(day)
    unknown = sorted(set(perf) - {ex.name for ex in exs}) + sorted(k for k in perf.values() if k not in PERF_KINDS)
    if unknown:
        raise ValueError(f"{day}: perf names {unknown}: not an exercise of the day or one of {PERF_KINDS}")
    tests = {}
    for ex in exs:
        tests[ex.name.upper()] = ex
        if ex.name not in written:
            tests[f"test_{ex.name}"] = _check_test(ex)
    for ex in exs:
        if ex.name in perf:
            name = f"test_{ex.name}_{perf[ex.name]}"
            tests[name] = _bench_test(ex, name)
    return tests


def _named(test, name: str):
    test.__name__ = test.__qualname__ = name
    return test


def _check_test(ex: Exercise):
    @pytest.mark.parametrize("case", ex.cases, ids=case_id)
    def test(course, case):
        course.check(ex, case)
    return _named(test, f"test_{ex.name}")


def _bench_test(ex: Exercise, name: str):
    @pytest.mark.perf
    def test(course):
        course.bench(ex)
    return _named(test, name)
