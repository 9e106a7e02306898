"""nb.grade in a lesson: a failing exercise is reported and the notebook goes on (Run All on a fresh
lesson still runs its demos); nbgrader validate still sees the failure; a passing one prints its table."""
import pytest

from grader import notebook as nb

CASES = [{"n": 33}]


def test_a_failing_exercise_is_reported_and_the_notebook_goes_on(monkeypatch, capsys):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setenv("COURSE_LANG", "en")
    monkeypatch.chdir(nb.paths.ROOT)
    nb.grade("day01", "vector_add", cases=CASES, seed=3)  # the stub: fails, does not raise
    err = capsys.readouterr().err
    assert "vector_add" in err and "failed" in err.lower() and "the notebook goes on" in err, err


def test_nbgrader_validate_still_sees_the_failure(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    monkeypatch.chdir(nb.paths.ROOT)
    with pytest.raises(AssertionError, match="vector_add"):
        nb.grade("day01", "vector_add", cases=CASES, seed=3)


def test_a_passing_exercise_prints_its_result(monkeypatch, capsys):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setenv(nb.paths.KERNELS_ENV, "solutions")
    monkeypatch.chdir(nb.paths.ROOT)
    nb.grade("day01", "vector_add", cases=CASES, seed=3)
    captured = capsys.readouterr()
    assert "passed" in captured.out and "goes on" not in captured.err
