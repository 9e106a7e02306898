"""Assignments: their names (`dayNN` in English, `dayNN-zh` in Chinese) and the lines a released
notebook or a grader's output must never show (the hidden tests, the solutions' code)."""
from __future__ import annotations

from pathlib import Path

import nbformat

from grader import exercises, paths, stubs
from grader.days import day_name

HIDDEN_BEGIN, HIDDEN_END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"


def day_of(day) -> str:
    """The day of an assignment; ValueError for a day without exercises."""
    d = day_name(day)  # ValueError for a day the course does not have
    if not exercises.day_exercises(d):
        ready = ", ".join(exercises.days_with_exercises())
        raise ValueError(f"{d} has no exercises yet, so no assignment (days with exercises: {ready})")
    return d


LANGS = ("en", "zh")
ZH_SUFFIX = "-zh"


def split_assignment(name) -> tuple[str, str]:
    """(day, language) of an assignment: 'day01' (English) -> ('day01', 'en'); 'day01-zh' (the Chinese
    lesson, same exercises and hidden tests) -> ('day01', 'zh')."""
    text = str(name).strip()
    lang = "zh" if text.endswith(ZH_SUFFIX) else "en"
    return day_of(text.removesuffix(ZH_SUFFIX)), lang


def assignment_name(day, lang: str = "en") -> str:
    if lang not in LANGS:
        raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGS)}")
    return day_of(day) + ("" if lang == "en" else ZH_SUFFIX)


def cells(notebook: Path) -> list:
    return nbformat.read(notebook, as_version=4).cells


def hidden_lines(notebook: Path) -> set[str]:
    """The lines between the hidden-test markers of a source notebook, stripped."""
    found, inside = set(), False
    for cell in cells(notebook):
        for line in cell.source.splitlines():
            if HIDDEN_BEGIN in line:
                inside = True
            elif HIDDEN_END in line:
                inside = False
            elif inside and line.strip():
                found.add(line.strip())
    return found


def solution_lines(day: str) -> set[str]:
    """Lines of the solutions' exercise regions that would give an answer away (long enough to mean
    something, more than braces, not a preprocessor line such as `#pragma unroll`, and not a line the
    course gives anyway: outside the regions, such as a `__syncthreads();` it shares, or in a demo the
    lesson prints)."""
    found, given = set(), set()
    solutions = stubs.solutions(day)
    for solution in solutions:
        text = solution.read_text()
        lines = text.splitlines()
        inside = set()
        for region in stubs.regions(text, str(solution)):
            inside |= set(range(region.start, region.end + 1))
            found |= {s for line in region.code if len(s := line.strip()) >= 12
                      and s.strip("{}();") != "" and not s.startswith("#")}
        given |= {line.strip() for i, line in enumerate(lines) if i not in inside}
    for demo in set((paths.SOLUTIONS / day_name(day)).rglob("*.cu*")) - set(solutions):
        given |= {line.strip() for line in demo.read_text().splitlines()}
    return found - given
