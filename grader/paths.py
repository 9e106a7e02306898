"""Where things live: the course tree, the day folders, and the source a kernel is loaded from."""
from __future__ import annotations

import os
from pathlib import Path

from grader.days import day_name

ROOT = Path(__file__).resolve().parent.parent
DAYS = ROOT / "days"
SOLUTIONS = ROOT / "solutions"
INCLUDE = ROOT / "kernels" / "include"
#: The course's versions of what a day's exercises ask (solutions/include/dayNN/...), which the course
#: headers of later days include: the instructor's repository (grading always uses these).
SOLUTION_INCLUDE = SOLUTIONS / "include"
#: The same, in a student edition: the days an instructor released or `grader unlock` copied in.
UNLOCKED = ROOT / "kernels" / "unlocked"
#: The include root after those: the student's own headers (days/dayNN/x.cuh, e.g. day 7's cp_async.cuh),
#: which stand in for a course version (<dayNN/x.cuh>) that the answer root does not hold.
OWN_INCLUDE = DAYS
NOTEBOOKS = ROOT / "notebooks"  # the student notebooks (generated from INSTRUCTOR_NOTEBOOKS)
INSTRUCTOR_NOTEBOOKS = ROOT / "instructor" / "notebooks"  # the nbgrader sources: model answers, hidden tests
STATE = ROOT / ".course"  # git-ignored: last results, plots

#: Set to "solutions" to load solutions/ instead of days/ (pytest's --solutions sets it too).
KERNELS_ENV = "COURSE_KERNELS"
#: A folder whose .cu files take precedence (nbgrader autograde points it at the submission).
SOURCE_DIR_ENV = "COURSE_SOURCE_DIR"


class InstructorOnly(FileNotFoundError):
    """Something that needs solutions/ (or instructor/), asked for in a student edition, which has none."""


def solutions_dir(what: str) -> Path:
    """solutions/, or InstructorOnly naming `what` where this is a student edition (no solutions/)."""
    if not SOLUTIONS.is_dir():
        raise InstructorOnly(f"{what} is an instructor feature: this student edition of the course has no "
                             f"solutions/")
    return SOLUTIONS


def course_file(day: int | str, filename: str) -> Path:
    """A file of the course's own for a day that is no answer (day 4's demos): solutions/dayNN/filename,
    or where a student edition carries it, days/dayNN/filename."""
    d = day_name(day)
    solution = SOLUTIONS / d / filename
    return solution if SOLUTIONS.is_dir() else DAYS / d / filename


def answer_include() -> Path:
    """The include root of the course's own answers that later days build on: solutions/include where
    it exists (the instructor's repository), else kernels/unlocked (a student edition)."""
    return SOLUTION_INCLUDE if SOLUTION_INCLUDE.is_dir() else UNLOCKED


def use_solutions() -> bool:
    value = os.environ.get(KERNELS_ENV, "days").strip().lower()
    if value not in ("days", "solutions", ""):
        raise ValueError(f"{KERNELS_ENV}={value!r}: expected 'days' or 'solutions'")
    return value == "solutions"


def source_path(day: int | str, filename: str) -> Path:
    """The .cu file an exercise loads: $COURSE_SOURCE_DIR, else solutions/ or days/."""
    d = day_name(day)
    override = os.environ.get(SOURCE_DIR_ENV)
    if override:
        path = Path(override) / filename
        if not path.is_file():
            raise FileNotFoundError(f"{filename} not found in {override} ({SOURCE_DIR_ENV}); "
                                    f"it is the file the exercise grades")
        return path
    base = solutions_dir(f"{KERNELS_ENV}=solutions (pytest --solutions)") if use_solutions() else DAYS
    path = base / d / filename
    if not path.is_file():
        raise FileNotFoundError(f"no exercise file {path.relative_to(ROOT)}")
    return path


def python_path() -> str:
    """PYTHONPATH for a child process that imports the course: the course first, then the caller's."""
    return os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))


def exercise_files(folder: Path) -> list[Path]:
    """Every .cu file under a days/ or solutions/ folder, in a stable order."""
    return sorted(folder.glob("day[0-9][0-9]/*.cu"))
