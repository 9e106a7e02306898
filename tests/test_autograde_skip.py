"""The lesson cells tagged autograde.SKIP_TAG (demos nbgrader's autograde does not run, to save its time):
never a graded or answer cell, and nothing a later cell uses is defined only there, so the rest of
the notebook runs the same without them."""
import ast
import builtins

import nbformat
import pytest

from grader import paths
from grader.autograde import SKIP_TAG

SOURCES = sorted(paths.INSTRUCTOR_NOTEBOOKS.glob("day[0-9][0-9].ipynb")) + \
    sorted((paths.INSTRUCTOR_NOTEBOOKS / "zh").glob("day[0-9][0-9].ipynb"))
TAGGED = [p for p in SOURCES if SKIP_TAG in p.read_text()]


def _bound_and_used(source: str) -> tuple[set[str], set[str]]:
    """The names a cell binds (assignments, imports, defs, loop and with targets) and those it reads."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a magic or shell line: nothing known
        return set(), set()
    bound, used = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return bound, used


def test_day01_skips_its_sass_demos():
    assert paths.INSTRUCTOR_NOTEBOOKS / "day01.ipynb" in TAGGED
    assert paths.INSTRUCTOR_NOTEBOOKS / "zh" / "day01.ipynb" in TAGGED


@pytest.mark.parametrize("source", TAGGED, ids=lambda p: str(p.relative_to(paths.INSTRUCTOR_NOTEBOOKS)))
def test_a_skipped_cell_is_a_demo_nothing_else_needs(source):
    nb = nbformat.read(source, as_version=4)
    ran, skipped_only = set(dir(builtins)), {}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        bound, used = _bound_and_used(cell.source)
        if SKIP_TAG in cell.metadata.get("tags", []):
            meta = cell.metadata.get("nbgrader", {})
            assert not (meta.get("grade") or meta.get("solution")), f"cell {i} is graded or an answer cell"
            skipped_only |= {name: i for name in bound - ran}
            continue
        needed = sorted(n for n in used - ran - bound if n in skipped_only)
        assert not needed, f"cell {i} uses {needed}, defined only in skipped cells {[skipped_only[n] for n in needed]}"
        ran |= bound
