"""nbgrader in Chinese: `python -m grader release DIR --lang zh|both` builds `dayNN-zh` assignments from
instructor/notebooks/zh/ with the same exercises, points and hidden tests as the English ones, leaking nothing;
autograde of a Chinese submission gives the solution full marks and a stub zero (no GPU needed: the
kernels run on the emulator, with day 1's lesson cut to its setup and one grade cell)."""
import nbformat
import pytest

from grader import assignments, device, paths
from grader import nbgrader_course as course

DAYS_ZH = course.default_days("zh")  # every day with exercises and a Chinese lesson

pytestmark = pytest.mark.nbgrader


@pytest.fixture(scope="module")
def course_dir(tmp_path_factory):
    pytest.importorskip("nbgrader")
    if not DAYS_ZH:
        pytest.skip("no Chinese lessons yet")
    return course.build_course(tmp_path_factory.mktemp("course"), days=DAYS_ZH, lang="zh")


@pytest.mark.parametrize("day", DAYS_ZH)
def test_the_chinese_release_leaks_nothing(course_dir, day):
    assert course.check_release(course_dir, f"{day}-zh") == []


def _points(notebook) -> float:
    return sum(c.metadata.nbgrader["points"] for c in nbformat.read(notebook, as_version=4).cells
               if c.get("metadata", {}).get("nbgrader", {}).get("grade")
               and not c.metadata.nbgrader.get("solution"))


@pytest.mark.parametrize("day", DAYS_ZH)
def test_both_languages_grade_the_same(course_dir, day):
    english = paths.INSTRUCTOR_NOTEBOOKS / f"{day}.ipynb"
    assert course.max_score(course_dir, f"{day}-zh") == _points(english) > 0
    hidden = assignments.hidden_lines(course_dir / "source" / f"{day}-zh" / f"{day}.ipynb")
    assert hidden == assignments.hidden_lines(english) and hidden


def test_assignment_names():
    assert course.split_assignment("day01-zh") == ("day01", "zh")
    assert course.split_assignment("1") == ("day01", "en")
    assert course.assignment_name(1, "zh") == "day01-zh"
    with pytest.raises(ValueError, match="language"):
        course.assignment_name(1, "fr")


def test_autograde_in_chinese(tmp_path, monkeypatch):
    pytest.importorskip("nbgrader")
    if "day01" not in DAYS_ZH:
        pytest.skip("no Chinese day 1 yet")
    nb = nbformat.read(paths.INSTRUCTOR_NOTEBOOKS / "zh" / "day01.ipynb", as_version=4)
    keep = {"day01-setup", "day01-vector_add"}
    nb.cells = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") in keep]
    cell = nb.cells[-1]
    start, end = cell.source.index("### BEGIN HIDDEN TESTS"), cell.source.index("### END HIDDEN TESTS")
    cell.source = (cell.source[:start] + '### BEGIN HIDDEN TESTS\nnb.grade("day01", "vector_add", '
                   'cases=[{"n": 1000}, {"n": 33}], seed=3)\n' + cell.source[end:])
    (tmp_path / "notebooks" / "zh").mkdir(parents=True)
    nbformat.write(nb, tmp_path / "notebooks" / "zh" / "day01.ipynb")
    monkeypatch.setattr(paths, "INSTRUCTOR_NOTEBOOKS", tmp_path / "notebooks")
    if device.why_not_hardware():
        monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    course_dir = course.build_course(tmp_path / "course", days=("day01",), lang="zh")
    files = course.exercise_files("day01")
    release = course_dir / "release" / "day01-zh"
    scores = course.autograde(course_dir, "day01-zh", {
        "solution": {f: paths.SOLUTIONS / "day01" / f for f in files},
        "stub": {f: release / f for f in files}})
    full = course.max_score(course_dir, "day01-zh")
    earned = full - course.withheld(course_dir, "day01-zh", "solution")  # the emulator withholds some
    assert full > 0 and scores == {"solution": earned, "stub": 0}, scores
