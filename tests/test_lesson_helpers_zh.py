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
