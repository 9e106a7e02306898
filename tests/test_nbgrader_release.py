"""nbgrader releases every day with exercises and a lesson notebook without leaking hidden tests or solutions (no GPU needed; runs
`nbgrader generate_assignment`, about ten seconds)."""
import nbformat
import pytest

from grader import nbgrader_course as course
from grader import days, exercises, paths

DAYS = course.default_days()  # what a release without named days builds


@pytest.fixture(scope="module")
def course_dir(tmp_path_factory):
    return course.build_course(tmp_path_factory.mktemp("course"))  # the default: DAYS


@pytest.mark.parametrize("day", DAYS)
def test_release_has_no_problems(course_dir, day):
    assert course.check_release(course_dir, day) == []


@pytest.mark.parametrize("day", DAYS)
def test_hidden_tests_only_in_the_source(course_dir, day):
    source = (course_dir / "source" / day / f"{day}.ipynb").read_text()
    released = (course_dir / "release" / day / f"{day}.ipynb").read_text()
    assert "### BEGIN HIDDEN TESTS" in source
    assert "HIDDEN TESTS" not in released
    assert "cases=" not in released  # the hidden calls name their cases; the visible ones do not
    nb = nbformat.read(course_dir / "release" / day / f"{day}.ipynb", as_version=4)
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")
              and not c.metadata.get("nbgrader", {}).get("solution")]  # thought-question answers apart
    assert graded and all(f'nb.grade("{day}", ' in c.source for c in graded)
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    assert answers and all("YOUR ANSWER HERE" in c.source for c in answers), f"{day}: model answers released"


@pytest.mark.parametrize("day", DAYS)
def test_released_cu_files_are_the_stubs(course_dir, day):
    released = sorted(p.name for p in (course_dir / "release" / day).iterdir() if p.suffix in (".cu", ".cuh", ".py"))
    assert released == sorted(course.exercise_files(day))
    for name in released:
        assert (course_dir / "release" / day / name).read_bytes() == (paths.DAYS / day / name).read_bytes()


def test_config_keeps_the_students_files(course_dir):
    config = (course_dir / "nbgrader_config.py").read_text()
    assert "c.Autograde.exclude_overwriting" in config and "'vector_add.cu'" in config
    assert f"c.CourseDirectory.course_id = '{course.COURSE_ID}'" in config


def test_check_release_finds_leaks(course_dir, tmp_path):
    """A hand-broken copy of the release: the check must say what is wrong."""
    import shutil

    broken = tmp_path / "course"
    shutil.copytree(course_dir, broken)
    release = broken / "release" / "day01"
    solution = (paths.SOLUTIONS / "day01" / "vector_add.cu").read_text()
    (release / "vector_add.cu").write_text(solution)
    nb = (release / "day01.ipynb").read_text()
    (release / "day01.ipynb").write_text(nb.replace('nb.grade(\\"day01\\", \\"saxpy\\")',
                                                    '### BEGIN HIDDEN TESTS'))
    problems = "\n".join(course.check_release(broken, "day01"))
    assert "solution line released" in problems
    assert "vector_add.cu in the release differs" in problems
    assert "hidden-test markers" in problems


def test_bad_input_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown day"):
        course.build_course(tmp_path, days=("day99",))
    without = [d for d in reversed(days.NAMES) if not exercises.day_exercises(d)]
    if without:
        with pytest.raises(ValueError, match="no exercises yet"):
            course.build_course(tmp_path, days=(without[0],))
    assert "run build_course first" in course.check_release(tmp_path, "day01")[0]
    with pytest.raises(FileNotFoundError, match="build_course"):
        course.autograde(tmp_path, "day01", {"someone": {}})
