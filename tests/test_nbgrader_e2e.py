"""nbgrader end to end: build the course, then autograde two students per day, one who hands in the
course's solutions (full marks) and one who hands in the released stubs (zero).

On a GPU every autograde runs the whole lesson notebook (a few minutes a day). Without one the kernels run
on the emulator, and the released notebook is cut to its setup cell and its grade cells (hidden tests
included) so that every day fits in CI; the whole notebooks run in tests/test_notebooks_run.py.
"""
import nbformat
import pytest

from grader import device, exercises, paths
from grader import nbgrader_course as course

DAYS = exercises.days_with_exercises()

pytestmark = [pytest.mark.gpu, pytest.mark.nbgrader]


def _grade_cells_only(day: str, folder):
    """The day's lesson notebook cut to its setup cell and its grade cells, in `folder`."""
    nb = nbformat.read(paths.INSTRUCTOR_NOTEBOOKS / f"{day}.ipynb", as_version=4)
    nb.cells = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade")
                or c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == f"{day}-setup"]
    folder.mkdir(exist_ok=True)
    nbformat.write(nb, folder / f"{day}.ipynb")
    return folder


def _course(tmp_path, day: str, monkeypatch):
    """A course with this day alone, so days can be checked in parallel processes."""
    pytest.importorskip("nbgrader")
    if device.why_not_hardware():
        monkeypatch.setenv(device.BACKEND_ENV, "emulator")  # nbgrader's kernels and the graders inherit it
        monkeypatch.setattr(paths, "INSTRUCTOR_NOTEBOOKS", _grade_cells_only(day, tmp_path / "notebooks"))
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


def _not_graded_here(course_dir, day: str, student: str) -> float:
    """The points of the grade cells that say they are not graded without a GPU (day 14's rmsnorm_ffi:
    nothing of it is launched there, so a function that never launches cannot earn them)."""
    from grader.exercises.day14 import NOT_GRADED_WITHOUT_GPU

    path = course_dir / "autograded" / student / day / f"{day}.ipynb"
    points = 0.0
    for cell in nbformat.read(path, as_version=4).cells:
        said = "\n".join(line for out in cell.get("outputs", []) for line in out.get("traceback", []))
        if NOT_GRADED_WITHOUT_GPU in said:
            points += float(cell.get("metadata", {}).get("nbgrader", {}).get("points", 0))
    return points


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
    withheld = _not_graded_here(course_dir, day, "solution") if device.why_not_hardware() else 0.0
    assert scores["solution"] == full - withheld, _failures(course_dir, day, "solution")
    assert scores["stub"] == 0, f"the stubs scored {scores['stub']}"
