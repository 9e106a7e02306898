"""`python -m grader notebooks [dayNN] [--force]`: the student notebooks, generated from the instructor's.

instructor/notebooks/dayNN.ipynb (and zh/) are the nbgrader sources: each thought question's model
answer (with its rubric) between `### BEGIN SOLUTION` and `### END SOLUTION`, each grade cell's hidden
cases between `### BEGIN HIDDEN TESTS` and `### END HIDDEN TESTS`. notebooks/dayNN.ipynb (and zh/) is
what a student opens: nbgrader's own preprocessors make it, as `nbgrader generate_assignment` does
(ClearSolutions: a model answer becomes "YOUR ANSWER HERE"; ClearHiddenTests; ClearOutput).

Each student notebook records in its metadata the hash of its cells as generated, so regeneration can
tell a notebook nobody touched (safe to replace) from one a student wrote in or ran (never overwritten:
the new version goes beside it as dayNN.ipynb.new, unless the student says yes when asked).
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Callable

from grader import paths
from grader.messages import say

COMMAND = "notebooks"
HELP = "regenerate the student notebooks from instructor/notebooks/ (keeps your edits)"
META = "cuda_course"  # the notebook metadata key holding what it was generated from, and its hash


def sources(day: str | None = None) -> list[Path]:
    """The instructor's notebooks (English, then Chinese), of one day or all."""
    name = f"{paths.day_name(day)}.ipynb" if day else "day[0-9][0-9].ipynb"
    root = paths.INSTRUCTOR_NOTEBOOKS
    return sorted(root.glob(name)) + sorted((root / "zh").glob(name))


def student_path(source: Path) -> Path:
    """Where the student version of an instructor notebook lives: notebooks/[zh/]dayNN.ipynb."""
    return paths.NOTEBOOKS / source.relative_to(paths.INSTRUCTOR_NOTEBOOKS)


def _digest(nb) -> str:
    """The hash of what a student can change: each cell's type, source and outputs."""
    cells = [[c.cell_type, c.source, c.get("outputs", [])] for c in nb.cells]
    return hashlib.sha256(json.dumps(cells, sort_keys=True).encode()).hexdigest()[:16]


def render_notebook(source: Path):
    """The student version of an instructor notebook, as a NotebookNode."""
    import nbformat  # imported where used: the course's CLI works without Jupyter (a bare GPU machine)
    from nbgrader.preprocessors import ClearHiddenTests, ClearOutput, ClearSolutions

    nb = nbformat.read(source, as_version=4)
    resources: dict = {}
    for step in (ClearSolutions(), ClearHiddenTests(), ClearOutput()):
        nb, resources = step.preprocess(nb, resources)
    rel = source.relative_to(paths.ROOT) if source.is_relative_to(paths.ROOT) else source
    nb.metadata[META] = {"generated_from": Path(rel).as_posix(), "cells_sha256": _digest(nb)}
    return nb


def render(source: Path) -> str:
    """The student notebook's file text (nbformat's layout: indent 1, a final newline)."""
    import nbformat

    return nbformat.writes(render_notebook(source)) + "\n"


def status(notebook: Path) -> str:
    """'missing', 'untouched' (as generated) or 'edited' (written in, run, or not generated at all)."""
    if not notebook.is_file():
        return "missing"
    import nbformat

    try:
        nb = nbformat.read(notebook, as_version=4)
    except Exception:  # noqa: BLE001 - a file that is not a notebook is someone's
        return "edited"
    recorded = nb.metadata.get(META, {}).get("cells_sha256")
    return "untouched" if recorded == _digest(nb) else "edited"


def generate(day: str | None = None, *, force: bool = False,
             ask: Callable[[Path], bool] | None = None) -> list[tuple[Path, str]]:
    """Write the student notebooks of one day (or all); (notebook, what happened) pairs. A notebook the
    student edited is replaced only with `force` or when `ask(path)` says yes; otherwise the fresh one
    is written beside it as dayNN.ipynb.new."""
    if not paths.INSTRUCTOR_NOTEBOOKS.is_dir():
        raise paths.InstructorOnly("regenerating the student notebooks (grader notebooks) is an instructor "
                                   "feature: this student edition of the course has no instructor/notebooks/")
    done = []
    for source in sources(day):
        target, text = student_path(source), render(source)
        state = status(target)
        if state != "missing" and target.read_text(encoding="utf-8") == text:
            done.append((target, say("stubs.up_to_date")))
            continue
        if state == "edited" and not (force or (ask is not None and ask(target))):
            new = target.with_name(target.name + ".new")
            new.write_text(text, encoding="utf-8")
            done.append((target, say("notebooks.kept", new=new.name)))
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        done.append((target, say("stubs.created" if state == "missing" else "stubs.regenerated")))
    return done


def add_arguments(parser) -> None:
    parser.add_argument("day", nargs="?", help="dayNN (default: every day)")
    parser.add_argument("--force", action="store_true", help="replace notebooks even where you edited them")


def _ask(path: Path) -> bool:
    if not sys.stdin.isatty():
        return False
    try:
        reply = input(f"{path.relative_to(paths.ROOT)} has your edits (answers, outputs). Replace it with the "
                      f"new notebook? [y/N] ")
    except EOFError:  # Ctrl-D: no
        print()
        return False
    return reply.strip().lower() in ("y", "yes")


def main(args) -> int:
    found = generate(args.day, force=args.force, ask=_ask)
    if not found:
        raise FileNotFoundError(f"no instructor notebook for {args.day or 'any day'} in "
                                f"{paths.INSTRUCTOR_NOTEBOOKS.relative_to(paths.ROOT)}")
    for path, what in found:
        print(f"{path.relative_to(paths.ROOT)}: {what}")
    return 0
