"""The student notebooks (notebooks/[zh/]dayNN.ipynb) are generated from the instructor's nbgrader
sources (instructor/notebooks/), hold no model answer and no hidden test, and are never overwritten
once a student wrote in them (grader/student_notebooks.py)."""
import shutil

import nbformat
import pytest

from grader import assignments, nbgrader_course, paths
from grader import student_notebooks as sn

SOURCES = sn.sources()


def _rel(path):
    return path.relative_to(paths.INSTRUCTOR_NOTEBOOKS).as_posix()


def test_every_source_has_a_student_notebook_and_back():
    students = sorted(paths.NOTEBOOKS.glob("day[0-9][0-9].ipynb")) + sorted(
        (paths.NOTEBOOKS / "zh").glob("day[0-9][0-9].ipynb"))
    assert len(SOURCES) >= 32
    assert [sn.student_path(s) for s in SOURCES] == students


@pytest.mark.parametrize("source", SOURCES, ids=_rel)
def test_checked_in_student_notebook_is_what_its_source_generates(source):
    student = sn.student_path(source)
    assert student.is_file(), f"missing {student.relative_to(paths.ROOT)}: run `python -m grader notebooks`"
    assert student.read_text(encoding="utf-8") == sn.render(source), \
        f"{student.relative_to(paths.ROOT)} is stale: run `python -m grader notebooks`"
    assert sn.status(student) == "untouched"


@pytest.mark.parametrize("source", SOURCES, ids=_rel)
def test_student_notebook_holds_no_answer_and_no_hidden_test(source):
    student = sn.student_path(source)
    text = student.read_text(encoding="utf-8")
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        assert marker not in text, f"{marker!r} in {student.relative_to(paths.ROOT)}"
    lines = {line.strip() for cell in nbformat.read(student, as_version=4).cells for line in cell.source.splitlines()}
    assert not lines & assignments.hidden_lines(source), "a hidden test line in the student notebook"
    assert not lines & nbgrader_course._model_answer_lines(source), "a model answer line in the student notebook"


@pytest.mark.parametrize("source", SOURCES, ids=_rel)
def test_student_notebook_keeps_the_cells_and_answer_cells(source):
    src, student = nbformat.read(source, as_version=4), nbformat.read(sn.student_path(source), as_version=4)
    assert [c.id for c in src.cells] == [c.id for c in student.cells]
    for a, b in zip(src.cells, student.cells):
        meta = a.get("metadata", {}).get("nbgrader", {})
        assert b.get("metadata", {}).get("nbgrader", {}) == meta
        if meta.get("solution"):
            assert b.source == "YOUR ANSWER HERE"
        elif not meta.get("grade"):
            assert a.source == b.source, f"{meta.get('grade_id', a.cell_type)}: changed though not an answer"


def test_regeneration_keeps_student_edits(tmp_path, monkeypatch):
    (tmp_path / "instructor" / "notebooks").mkdir(parents=True)
    shutil.copy(paths.INSTRUCTOR_NOTEBOOKS / "day01.ipynb", tmp_path / "instructor" / "notebooks")
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    monkeypatch.setattr(paths, "INSTRUCTOR_NOTEBOOKS", tmp_path / "instructor" / "notebooks")
    monkeypatch.setattr(paths, "NOTEBOOKS", tmp_path / "notebooks")
    assert {what for _, what in sn.generate("day01")} == {"created"}
    assert {what for _, what in sn.generate()} == {"up to date"}

    student = tmp_path / "notebooks" / "day01.ipynb"
    nb = nbformat.read(student, as_version=4)
    answer = next(c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("solution"))
    answer.source = "My own answer."
    nbformat.write(nb, student)
    mine = student.read_text()
    assert sn.status(student) == "edited"
    source = tmp_path / "instructor" / "notebooks" / "day01.ipynb"
    source.write_text(source.read_text().replace("Day 1:", "Day one:"))

    results = dict(sn.generate("day01", ask=lambda p: False))
    assert "kept your edits" in results[student] and student.read_text() == mine
    assert (student.parent / "day01.ipynb.new").read_text() == sn.render(source)
    results = dict(sn.generate("day01", ask=lambda p: True))
    assert results[student] == "regenerated" and student.read_text() == sn.render(source)

    nb = nbformat.read(student, as_version=4)  # a notebook run and saved (outputs) counts as edited
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="ran")] if nb.cells[1].cell_type == "code" else []
    nb.cells[1].source += " "
    nbformat.write(nb, student)
    assert sn.status(student) == "edited"


# ---- python -m grader answer ---------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_answer_shows_the_model_answer_only_after_yours(tmp_path, monkeypatch, capsys, lang):
    from grader import answers, cli

    folder = tmp_path / "notebooks" / ("zh" if lang == "zh" else "")
    folder.mkdir(parents=True)
    shutil.copy(paths.NOTEBOOKS / ("zh" if lang == "zh" else "") / "day02.ipynb", folder)
    monkeypatch.setattr(paths, "NOTEBOOKS", tmp_path / "notebooks")
    monkeypatch.setattr(paths, "STATE", tmp_path / ".course")
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    args = ["answer", "day02", "2", "--lang", lang]
    assert cli.main(args) == 1
    out = capsys.readouterr().out
    assert len(out.strip().splitlines()) == 1 and "answer day02 2" in out, out
    assert answers.seen() == {}

    nb = nbformat.read(folder / "day02.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "day02-think-2")
    cell.source = "My own answer: the L2 holds the data."
    nbformat.write(nb, folder / "day02.ipynb")
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    model = answers.model_answer("day02", 2, lang)
    assert model in out and "BEGIN SOLUTION" not in out and len(model) > 150
    assert answers.seen() == {"day02": [2]}
    assert cli.main(["answer", "day02", "9", "--lang", lang]) == 2
    err = capsys.readouterr().err
    assert "no thought question 9" in err and len(err.strip().splitlines()) == 1, err
