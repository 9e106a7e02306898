"""nbgrader end to end: build the course, then autograde two students per day (English here, Chinese in
test_nbgrader_e2e_zh.py: a file each, so that CI's two workers share them), one who
hands in the course's solutions (full marks; on the emulator, less the points it withholds for sizes it
does not run) and one who hands in the released stubs (zero).

The released notebook is cut to its setup cell and its grade cells (hidden tests included), so that
every day fits in CI and on the GPU in minutes; the whole notebooks run in tests/test_notebooks_run.py.
"""
import nbformat
import pytest

from grader import device, exercises, paths
from grader import nbgrader_course as course
from grader.assignments import assignment_name

DAYS = exercises.days_with_exercises()

pytestmark = [pytest.mark.gpu, pytest.mark.nbgrader]


def _grade_cells_only(day: str, lang: str, folder):
    """The day's lesson notebook in `lang` cut to its setup cell and its grade cells, under `folder`."""
    sub = "zh" if lang == "zh" else ""
    nb = nbformat.read(paths.INSTRUCTOR_NOTEBOOKS / sub / f"{day}.ipynb", as_version=4)
    nb.cells = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade")
                or c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == f"{day}-setup"]
    (folder / sub).mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / sub / f"{day}.ipynb")
    return folder


def _course(tmp_path, day: str, lang: str, monkeypatch):
    """A course with this day alone, in one language, so days can be checked in parallel processes."""
    pytest.importorskip("nbgrader")
    if device.why_not_hardware():
        monkeypatch.setenv(device.BACKEND_ENV, "emulator")  # nbgrader's kernels and the graders inherit it
    monkeypatch.setattr(paths, "INSTRUCTOR_NOTEBOOKS", _grade_cells_only(day, lang, tmp_path / "notebooks"))
    return course.build_course(tmp_path / "course", days=(day,), lang=lang)


def _failures(course_dir, assignment: str, day: str, student: str) -> str:
    """The errors of the autograded notebook's grade cells, to say why a score is short."""
    path = course_dir / "autograded" / student / assignment / f"{day}.ipynb"
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
    check_day(tmp_path, day, "en", monkeypatch)


def check_day(tmp_path, day: str, lang: str, monkeypatch) -> None:
    """A solution scores full marks (less what the emulator withholds), the released stubs zero."""
    course_dir = _course(tmp_path, day, lang, monkeypatch)
    assignment = assignment_name(day, lang)
    files = course.exercise_files(day)
    release = course_dir / "release" / assignment
    scores = course.autograde(course_dir, assignment, {
        "solution": {f: paths.SOLUTIONS / day / f for f in files},
        "stub": {f: release / f for f in files},
    })
    full = course.max_score(course_dir, assignment)
    withheld = course.withheld(course_dir, assignment, "solution")
    print(f"{assignment}: solution {scores['solution']:g} / {full:g} ({withheld:g} withheld), "
          f"stub {scores['stub']:g} / {full:g}")
    assert full > 0
    assert withheld == 0 or device.why_not_hardware(), "a GPU grades every size: nothing is withheld"
    assert withheld < full / 2, f"the emulator withheld {withheld:g} of {full:g} points"
    assert scores["solution"] == pytest.approx(full - withheld, abs=1e-6), \
        _failures(course_dir, assignment, day, "solution")
    assert scores["stub"] == 0, f"the stubs scored {scores['stub']}"
