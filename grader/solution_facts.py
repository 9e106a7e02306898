"""What a student edition knows of the solutions it leaves out, computed ahead on the instructor's side.

A student edition (`python -m grader student-edition`, grader/student_edition.py) carries no solutions/.
Where a student's command used the solution's source, the edition build writes what that command
needs into grader/data/solution_facts.json instead:

- technique: per exercise file (`dayNN/file.cu`), the solution's SHA-256 and, for each function of its
  SASS, the technique patterns it shows (`technique.reference_facts`: each kernel is graded on what its
  namesake in the solution shows);
- arch: per exercise file, the solution's COURSE_REQUIRE_ARCH and whether it needs sm_90a (what a test
  on an older GPU skips);
- answers: per day released with --unlocked, each thought question's model answer and rubric, by
  language (`answers.model_answer`); the other days' are not in the edition;
- hints: per day, the files whose hints each exercise file shows (`hints.files`) and each file's hint
  levels, part by part (`hints.english`).

In the full course (solutions/ present) nothing here is read: every fact comes from the solutions.
"""
from __future__ import annotations

import functools
import json

from grader import paths

FACTS = paths.ROOT / "grader" / "data" / "solution_facts.json"


@functools.cache
def _facts() -> dict:
    try:
        return json.loads(FACTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def technique(day, source: str) -> dict | None:
    """The solution's technique facts for an exercise file; None where the edition has none."""
    return _facts().get("technique", {}).get(f"{paths.day_name(day)}/{source}")


def hint_files(day, source: str) -> list[str]:
    """The files whose hints an exercise file shows (`hints.files`); FileNotFoundError where none."""
    found = _facts().get("hints", {}).get(paths.day_name(day), {}).get("files", {}).get(source)
    if found is None:
        raise FileNotFoundError(f"no hints for {paths.day_name(day)}/{source} in this student edition")
    return found


def hint_parts(day, filename: str) -> list[dict[int, list[str]]]:
    """The hints of a solution file, one {level: lines} per exercise region (`hints.english`)."""
    found = _facts().get("hints", {}).get(paths.day_name(day), {}).get("parts", {}).get(filename)
    if found is None:
        raise FileNotFoundError(f"no hints for {paths.day_name(day)}/{filename} in this student edition")
    return [{int(lv): lines for lv, lines in part.items()} for part in found]


def required_arch(day, source: str) -> tuple[int | None, bool]:
    """The solution's COURSE_REQUIRE_ARCH (the oldest architecture it compiles for, None for any) and
    whether it needs the architecture-specific target (sm_90a), from the solution or the edition's facts."""
    from grader import compiler

    path = paths.SOLUTIONS / paths.day_name(day) / source
    if paths.SOLUTIONS.is_dir():
        return (compiler.required_arch(path), compiler.arch_specific(path)) if path.is_file() else (None, False)
    needed, specific = _facts().get("arch", {}).get(f"{paths.day_name(day)}/{source}", (None, False))
    return needed, specific


def model_answer(day, n: int, lang: str) -> str:
    """Thought question n's model answer, where the edition's instructor released the day's answers."""
    day = paths.day_name(day)
    released = _facts().get("answers", {}).get(day)
    if released is None:
        raise paths.InstructorOnly(f"{day}'s model answers are not in this student edition: your instructor "
                                   f"releases them (student-edition ... --unlocked {day})")
    by_n = released.get(lang) or released.get("en", {})
    if str(n) not in by_n:
        raise ValueError(f"{day} has no thought question {n} (it has {len(by_n)}: 1 to {len(by_n)})")
    return by_n[str(n)]
