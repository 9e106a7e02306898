"""The lesson notebooks are well formed and ready for nbgrader (no GPU needed).

Each exercise of a day has a locked autograder cell that calls `nb.grade("<day>", "<name>")` and holds
hidden tests whose cases fit the exercise's check; every code cell compiles as Python. Each day opens
with learning objectives and a 2-3 hour plan (`<day>-objectives`) and closes with 3-5 thought
questions: a locked question cell `<day>-think-K-q`, then a manually graded markdown answer cell
`<day>-think-K` whose model answer sits between `### BEGIN SOLUTION` and `### END SOLUTION`, ending with
a "Rubric:" of 2-3 gradable points for the instructor (the release and the student notebooks replace it
all with "YOUR ANSWER HERE").
"""
import ast
import inspect
import re

import nbformat
import pytest

from grader import exercises, paths

NOTEBOOKS = sorted(paths.INSTRUCTOR_NOTEBOOKS.glob("day[0-9][0-9].ipynb"))
HIDDEN = re.compile(r"^### BEGIN HIDDEN TESTS$(.*?)^### END HIDDEN TESTS$", re.M | re.S)
MAGIC = re.compile(r"^\s*[%!].*$", re.M)
THOUGHT = re.compile(r"^day\d\d-think-(\d)$")
MODEL_ANSWER = re.compile(r"^### BEGIN SOLUTION$(.*?)^### END SOLUTION$", re.M | re.S)
MINUTES = re.compile(r"(\d+)\s*min")


def rubric(model_answer: str, heading: str) -> list[str]:
    """The points of the rubric that ends a model answer (a `heading` line, then `- ` items)."""
    if heading not in model_answer:
        return []
    return re.findall(r"^- \S", model_answer.split(heading, 1)[1], re.M)


def _read(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    return nb


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _grade_cells(nb):
    """The autograded cells (thought-question answers are graded by hand)."""
    return [c for c in nb.cells if _nbgrader(c).get("grade") and not _nbgrader(c).get("solution")]


def _value(node):
    """A literal argument (constant expressions like `1 << 20` included)."""
    return eval(compile(ast.Expression(node), "<argument>", "eval"), {"__builtins__": {}})


def _calls(source: str):
    """Every nb.grade(...) call in a cell: (day, name, keyword arguments as Python values)."""
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "grade" and getattr(node.func.value, "id", None) == "nb"):
            args = [_value(a) for a in node.args]
            yield args[0], args[1], {k.arg: _value(k.value) for k in node.keywords}


def test_every_day_with_exercises_has_a_lesson():
    names = {p.stem for p in NOTEBOOKS}
    with_exercises = set(exercises.days_with_exercises())
    assert names == with_exercises, f"days with exercises but no lesson: {sorted(with_exercises - names)}; " \
                                    f"lessons without exercises: {sorted(names - with_exercises)}"


@pytest.fixture(params=NOTEBOOKS, ids=lambda p: p.stem)
def notebook(request):
    return request.param.stem, _read(request.param)


def test_kernelspec_is_python3(notebook):
    _, nb = notebook
    assert nb.metadata.kernelspec.name == "python3"


def test_first_code_cell_calls_setup(notebook):
    day, nb = notebook
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert "import grader.notebook as nb" in first.source
    assert f'nb.setup("{day}")' in first.source


def test_code_cells_compile(notebook):
    day, nb = notebook
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            compile(MAGIC.sub("", cell.source), f"{day}.ipynb cell {i}", "exec")


def test_nbgrader_metadata_is_valid(notebook):
    from nbgrader.nbgraderformat import MetadataValidator

    day, nb = notebook
    MetadataValidator().validate_nb(nb)  # raises on a missing grade_id or points, duplicate ids
    ids = [_nbgrader(c)["grade_id"] for c in nb.cells if _nbgrader(c)]
    assert len(ids) == len(set(ids)), f"{day}: duplicate grade ids"
    for cell in nb.cells:
        meta = _nbgrader(cell)
        if meta.get("solution"):  # a thought question's answer: manually graded markdown
            assert cell.cell_type == "markdown" and meta["grade"] and not meta["locked"], meta
            assert meta["points"] > 0 and THOUGHT.match(meta["grade_id"]), meta
        elif meta:
            assert meta["schema_version"] == 3 and meta["locked"], meta
        if meta.get("grade") and not meta.get("solution"):
            assert cell.cell_type == "code" and meta["points"] > 0, meta
        if not meta.get("grade"):
            assert "HIDDEN TESTS" not in cell.source, f"{day}: hidden tests outside a grade cell"


def test_every_exercise_has_an_autograder_cell_with_hidden_tests(notebook):
    day, nb = notebook
    graded = {}
    for cell in _grade_cells(nb):
        calls = list(_calls(cell.source))
        assert calls, f"{day}: grade cell {_nbgrader(cell)['grade_id']} calls no nb.grade"
        assert HIDDEN.search(cell.source), f"{day}: grade cell {_nbgrader(cell)['grade_id']} has no hidden tests"
        graded.update({name: cell for d, name, _ in calls if d == day})
    for ex in exercises.day_exercises(day):
        assert ex.name in graded, f'{day}: no autograder cell calls nb.grade("{day}", "{ex.name}")'
        visible = graded[ex.name].source[:HIDDEN.search(graded[ex.name].source).start()]
        assert f'nb.grade("{day}", "{ex.name}")' in visible


def test_hidden_cases_fit_the_checks(notebook):
    day, nb = notebook
    for cell in _grade_cells(nb):
        hidden = HIDDEN.search(cell.source).group(1)
        for d, name, kwargs in _calls(hidden):
            ex = exercises.get(d, name)
            signature = inspect.signature(ex.check).parameters
            params = set(signature) - {"module", "found", "seed"}  # found: a Python exercise's data
            optional = {k for k in params if signature[k].default is not inspect.Parameter.empty}
            assert kwargs.get("cases"), f"{name}: hidden tests without cases"
            assert isinstance(kwargs.get("seed"), int), f"{name}: hidden tests without a fixed seed"
            for case in kwargs["cases"]:
                fits = params - optional <= set(case) <= params
                assert fits, f"{name}: case {case} does not fit check({sorted(params)})"
                assert case not in ex.cases, f"{name}: hidden case {case} is one of the visible ones"
                if "dtype" in case:
                    assert case["dtype"] in ("float32", "float16", "bfloat16"), case


def _by_id(nb) -> dict:
    return {_nbgrader(c)["grade_id"]: (i, c) for i, c in enumerate(nb.cells) if _nbgrader(c)}


def test_opens_with_objectives_and_a_plan(notebook):
    day, nb = notebook
    cells = _by_id(nb)
    assert f"{day}-objectives" in cells, f"{day}: no locked markdown cell {day}-objectives after the title"
    i, cell = cells[f"{day}-objectives"]
    assert i <= 2 and cell.cell_type == "markdown", f"{day}: the objectives come first (cell {i})"
    text = cell.source
    assert "Learning objectives" in text and "Plan" in text, f"{day}: objectives and plan headings"
    objectives = text[text.index("Learning objectives"):text.index("Plan")]
    assert len(re.findall(r"^\s*[-*] ", objectives, re.M)) >= 3, f"{day}: at least 3 learning objectives"
    plan = text[text.index("Plan"):]
    for part in ("heory", "eading", "ractice"):
        assert part in plan, f"{day}: the plan names the {part!r} part"
    assert "kernels/include/course/" in plan and "flashinfer" in plan.lower(), \
        f"{day}: the reading part names a course header and a FlashInfer file"
    total = sum(int(m) for m in MINUTES.findall(plan))
    assert 120 <= total <= 180, f"{day}: the plan adds up to {total} min, not 2-3 hours"


def test_closes_with_thought_questions(notebook):
    day, nb = notebook
    cells = _by_id(nb)
    answers = sorted(int(THOUGHT.match(g).group(1)) for g in cells if THOUGHT.match(g))
    assert 3 <= len(answers) <= 5 and answers == list(range(1, len(answers) + 1)), \
        f"{day}: 3-5 thought questions numbered 1.., found {answers}"
    for k in answers:
        i, answer = cells[f"{day}-think-{k}"]
        j, question = cells.get(f"{day}-think-{k}-q", (None, None))
        assert question is not None and j == i - 1, f"{day}: question cell {day}-think-{k}-q right before"
        assert question.cell_type == "markdown" and _nbgrader(question)["locked"]
        meta = _nbgrader(answer)
        assert meta["solution"] and meta["grade"] and not meta["locked"] and meta["points"] > 0, meta
        model = MODEL_ANSWER.search(answer.source)
        assert model and len(model.group(1).strip()) >= 150, \
            f"{day}-think-{k}: a model answer of some substance between BEGIN/END SOLUTION"
        assert 2 <= len(rubric(model.group(1), "Rubric:")) <= 3, \
            f"{day}-think-{k}: the model answer ends with a 'Rubric:' list of 2-3 gradable points"
    last_exercise = max(i for i, c in enumerate(nb.cells) if c in _grade_cells(nb))
    assert cells[f"{day}-think-1-q"][0] > last_exercise, f"{day}: thought questions come after the exercises"


def test_mentions_the_hint_command(notebook):
    day, nb = notebook
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert f"python -m grader hint {day}" in text, f"{day}: tell the student about `python -m grader hint`"
