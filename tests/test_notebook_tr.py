"""nb.tr: a lesson's own printed text and plot labels in the lesson's language."""
import ast
import re

import nbformat
import pytest

import grader.notebook as nb
from grader import paths


@pytest.mark.parametrize("lang, expected", [("en", "block size"), ("zh", "线程块大小")])
def test_tr_follows_course_lang(lang, expected, monkeypatch, tmp_path):
    monkeypatch.setenv("COURSE_LANG", lang)
    monkeypatch.chdir(tmp_path)  # no lesson here: $COURSE_LANG decides
    assert nb.tr("block size", "线程块大小") == expected


@pytest.mark.parametrize("folder, expected", [(paths.NOTEBOOKS, "grid"), (paths.NOTEBOOKS / "zh", "网格"),
                                              (paths.INSTRUCTOR_NOTEBOOKS / "zh", "网格")])
def test_tr_follows_the_notebooks_folder(folder, expected, monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "zh" if expected == "grid" else "en")  # the folder wins over the lab's
    monkeypatch.chdir(folder)
    assert nb.tr("grid", "网格") == expected


# The lessons whose own printed text and plot labels go through nb.tr; the other days are still English.
DAYS_IN_TR = ("day01", "day02", "day03", "day04", "day05", "day06", "day07", "day08", "day09", "day10", "day11", "day12",
              "day13", "day14", "day15", "day16")
SHOWN_KEYWORDS = ("title", "xlabel", "ylabel", "label")
SHOWN_CALLS = ("print", "set_title", "set_xlabel", "set_ylabel", "suptitle")
ENGLISH_WORD = re.compile(r"[A-Za-z]{2,}")


def _literal_text(node) -> str | None:
    """The literal text of a string, an f-string (its fixed parts) or their concatenation; None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " ".join(part.value for part in node.values if isinstance(part, ast.Constant))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        parts = [_literal_text(node.left), _literal_text(node.right)]
        return " ".join(p for p in parts if p) or None
    return None


def english_shown(source: str) -> list[str]:
    """English text of 3+ words that a code cell hands straight to print or a plot label, not through nb.tr."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics
        return []
    found = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        name = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", "")
        shown = list(call.args) if name in SHOWN_CALLS else []
        shown += [k.value for k in call.keywords if k.arg in SHOWN_KEYWORDS]
        for node in shown:
            text = _literal_text(node)
            if text and len(ENGLISH_WORD.findall(text)) >= 3:
                found.append(text)
    return found


def untranslated(notebook) -> list[str]:
    """Each code cell's English text shown at run time outside nb.tr, as 'cell N: text'."""
    return [f"cell {i}: {text!r}" for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"
            for text in english_shown(cell.source)]


@pytest.mark.parametrize("day", DAYS_IN_TR)
def test_a_chinese_lesson_prints_and_labels_through_tr(day):
    notebook = nbformat.read(paths.INSTRUCTOR_NOTEBOOKS / "zh" / f"{day}.ipynb", as_version=4)
    assert untranslated(notebook) == []


def test_english_shown_finds_print_and_labels_but_not_tr():
    cell = ('print(f"{n} blocks of {b} threads")\nax.set(title="block size against bandwidth", xlabel="n")\n'
            'ax.plot(x, y, label="copy (HBM ceiling) here")\nprint(nb.tr("one two three", "一二三"))\n%time f()')
    assert english_shown(cell) == []  # the magic: not Python
    assert english_shown(cell.rsplit("\n", 1)[0]) == [" blocks of   threads", "block size against bandwidth",
                                                       "copy (HBM ceiling) here"]
