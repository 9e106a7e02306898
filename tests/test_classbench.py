"""`python -m grader.classbench`: the synthetic class is the mix it claims, and bad requests are one line.
(The timed comparison itself grades whole notebooks: minutes, not in CI.)"""
import pytest

from grader import classbench, paths
from grader import nbgrader_course as course

DAY = "day01"


@pytest.mark.parametrize("args, message", [
    (["--students", "0"], "at least 1"), (["--gpus", "0"], "at least 1"), (["--serial-students", "0"], "at least 1"),
    (["--days", "day99"], "unknown day"), (["--days", "day99x"], "unknown day"),
    (["--no-serial", "--serial-only"], "nothing to run"), (["--reference", "/nonexistent.json"], "not a classbench.json")])
def test_bad_requests_are_one_line(tmp_path, capsys, args, message):
    assert classbench.main([str(tmp_path / "out"), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err


def test_a_folder_with_files_is_refused(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine")
    assert classbench.main([str(tmp_path)]) == 2
    assert "is not empty" in capsys.readouterr().err


def test_the_class_is_the_mix(tmp_path):
    students = len(classbench.MIX)
    pairs = classbench.build(tmp_path / "course", [DAY], students)
    assert pairs == [(f"s{i:03d}", DAY) for i in range(students)]
    names = course.exercise_files(DAY)
    release = tmp_path / "course" / "release" / DAY

    def handed_in(student):
        folder = tmp_path / "course" / "submitted" / student / DAY
        return {n: (folder / n).read_text() for n in names}

    solution = {n: (paths.SOLUTIONS / DAY / n).read_text() for n in names}
    stub = {n: (release / n).read_text() for n in names}
    for i, kind in enumerate(classbench.MIX):
        student = f"s{i:03d}"
        got = handed_in(student)
        signed = {n: f"{solution[n]}\n// handed in by {student}\n" for n in names}  # no two students alike
        solved = {n for n in names if got[n] == signed[n]}
        stubs = {n for n in names if got[n] == stub[n]}
        if kind == "solution":
            assert solved == set(names)
        elif kind == "stub":
            assert stubs == set(names)
        elif kind == "half":
            assert solved == set(names[: len(names) // 2]) and stubs == set(names[len(names) // 2:])
        elif kind == "broken":
            assert got[names[0]].startswith(classbench.BROKEN) and solved == set(names[1:])
        else:  # the first kernel of the first file stalls first thing; the rest is the solution
            stall = classbench.STALLS[kind]
            assert got[names[0]].count(stall) == 1 and got[names[0]].replace(stall, "") == signed[names[0]]
            assert solved == set(names[1:])


def test_grade_class_reports_seconds_per_student_day_per_day(tmp_path):
    """grade-class's summary (kept by classbench in grade-class-N.log) has each day's mean and slowest."""
    from rich.console import Console

    from grader import classgrade

    results = [classgrade.Result(f"s{i}", day, seconds, record={}, score=1.0, max_score=2.0) for i, (day, seconds) in
               enumerate([("day01", 10.0), ("day01", 14.0), ("day06", 31.0)])]
    console = Console(width=160, record=True)
    console.print(classgrade.summary(results, 20.0, 0, tmp_path / "grades.csv"))
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:5]]
            for line in console.export_text().splitlines() if line.count("│") >= 5 and "day0" in line}
    assert rows["day01"] == ["2", "12.0", "14.0"] and rows["day06"] == ["1", "31.0", "31.0"], rows
