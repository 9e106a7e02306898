"""What a lesson's helpers (grader.notebook: nb.grade, nb.bench, nb.profile, nb.size) print or refuse
with in the lessons' language: under nbgrader autograde the feedback a Chinese student reads."""
import pytest

from grader import notebook
from test_module_texts_zh import chinese


@pytest.fixture
def autograding(monkeypatch, tmp_path):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.chdir(tmp_path)  # a submission folder, without the exercise's file


def test_autograde_lines_in_chinese(autograding, monkeypatch, capsys):
    monkeypatch.setenv("COURSE_LANG", "zh")
    notebook.grade("day02", "strided_gather")
    assert notebook.bench("day02", "strided_gather") is None
    notebook.profile("day02", "strided_gather")
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(chinese(line) for line in lines), lines
    assert lines[0].startswith("day02/strided_gather：")
    with pytest.raises(FileNotFoundError) as e:
        notebook.source("day02", "strided_gather")
    assert chinese(str(e.value)) and "strided_gather.cu" in str(e.value), e.value


def test_autograde_lines_in_english(autograding, monkeypatch, capsys):
    monkeypatch.setenv("COURSE_LANG", "en")
    notebook.grade("day02", "strided_gather")
    notebook.bench("day02", "strided_gather")
    assert capsys.readouterr().out.splitlines() == [
        "day02/strided_gather: graded by the course outside this notebook; the result replaces this cell's output",
        "benchmark skipped while autograding"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_bad_size_is_refused_in_the_lessons_language(lang, monkeypatch):
    monkeypatch.setenv("COURSE_LANG", lang)
    with pytest.raises(ValueError) as e:
        notebook.size(0, 16)
    assert chinese(str(e.value)) if lang == "zh" else str(e.value) == "size: full must be a positive integer, got 0"


def test_day14_s_points_waiting_for_a_gpu_are_said_and_found_in_both_languages(monkeypatch):
    """rmsnorm_ffi graded without a GPU: a Chinese lesson says so in Chinese, and the gradebook's
    withheld points (nbgrader_course.withheld) and day 14's test still find the line in either language."""
    from grader.exercises import day14
    from grader.messages import say

    for lang in ("zh", "en"):
        monkeypatch.setenv("COURSE_LANG", lang)
        text = say("day14.not_graded", where="(float16, rows=1, d=1000)", marker=say("day14.no_gpu"), why="no GPU")
        assert day14.not_graded_here(text) and chinese(text) == (lang == "zh"), text
    assert not day14.not_graded_here("rmsnorm_ffi (float16, rows=1, d=1000): 1 of 8 elements differ")


def test_the_emulator_names_an_inlined_line_in_the_lessons_language(monkeypatch):
    """The emulator's memory tables and plots name an instruction inlined from a course header by the
    student's line and the header's (grader.emulator.ptx.Loc)."""
    from grader.emulator.ptx import Loc

    inlined = Loc("/course/include/cp_async.cuh", 37, ("/days/day07/pipeline.cu", 36))
    monkeypatch.setenv("COURSE_LANG", "zh")
    assert str(inlined) == "pipeline.cu:36（在 cp_async.cuh:37 中）"
    monkeypatch.setenv("COURSE_LANG", "en")
    assert str(inlined) == "pipeline.cu:36 (in cp_async.cuh:37)" and str(Loc("/d/k.cu", 3)) == "k.cu:3"
