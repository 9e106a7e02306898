"""nbgrader end to end on a GPU: build the course, then autograde two students per day, one who hands
in the course's solutions (full marks) and one who hands in the released stubs (zero).

Needs a CUDA GPU, nbgrader and a `python3` Jupyter kernel; a few minutes (every autograde grades the
kernels, hidden tests included, and runs the whole lesson notebook). Without a GPU the same grading
path runs in tests/test_grading_cheats.py and tests/test_nbgrader_zh.py, on the emulator, with day 1's
notebook cut to its grade cells (the whole notebooks run in tests/test_notebooks_run.py).
"""
import nbformat
import pytest

from grader import device, exercises, paths
from grader import nbgrader_course as course

DAYS = exercises.days_with_exercises()

pytestmark = [pytest.mark.gpu, pytest.mark.nbgrader]


ON_EMULATOR = ()  # see the docstring: the emulator's autograde runs are in other tests


def _course(tmp_path, day: str, monkeypatch):
    """A course with this day alone, so days can be checked in parallel processes."""
    if device.why_not_hardware():
        if day not in ON_EMULATOR:
            pytest.skip(f"nbgrader end to end runs the notebooks' kernels: needs a CUDA GPU "
                        f"({device.why_not_hardware()}); without one, tests/test_grading_cheats.py "
                        f"autogrades day 1 on the emulator")
        monkeypatch.setenv(device.BACKEND_ENV, "emulator")  # nbgrader's kernels and the graders inherit it
    pytest.importorskip("nbgrader")
    return course.build_course(tmp_path / "course", days=(day,))


def _failures(course_dir, day: str, student: str) -> str:
    """The errors of the autograded notebook's grade cells, to say why a score is short."""
    path = course_dir / "autograded" / student / day / f"{day}.ipynb"
    if not path.is_file():
        return f"(no autograded notebook {path})"
    lines = []
    for cell in nbformat.read(path, as_version=4).cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "?")
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                lines.append(f"{grade_id}: {out.ename}: {out.evalue[:600]}")
    return "\n".join(lines) or "(no cell errors)"


@pytest.mark.parametrize("day", DAYS)
def test_solution_gets_full_marks_and_stub_zero(tmp_path, day, monkeypatch):
    course_dir = _course(tmp_path, day, monkeypatch)
    files = course.exercise_files(day)
    release = course_dir / "release" / day
    scores = course.autograde(course_dir, day, {
        "solution": {f: paths.SOLUTIONS / day / f for f in files},
        "stub": {f: release / f for f in files},
    })
    full = course.max_score(course_dir, day)
    print(f"{day}: solution {scores['solution']:g} / {full:g}, stub {scores['stub']:g} / {full:g}")
    assert full > 0
    assert scores["solution"] == full, _failures(course_dir, day, "solution")
    assert scores["stub"] == 0, f"the stubs scored {scores['stub']}"
