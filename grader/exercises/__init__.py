"""What each day checks: one module per day (day01.py, day02.py, ...), each declaring its exercises.

An `Exercise` names its source file, a `check(module, seed, **case)` that launches the kernel on
fresh random inputs and compares with a numpy reference, the self-check cases (awkward sizes), and
optionally a `bench(modules)` that measures it against a ceiling from the same process, and the
`technique` the day teaches (SASS the graded kernel must show, `grader/technique.py`).

The registry imports only the table of days (`grader.days`), so any module may look exercises up; the
day modules it finds are imported when first asked for.
"""
from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Callable

from grader import days


@dataclass(frozen=True)
class Exercise:
    day: str
    name: str
    source: str
    title: str
    check: Callable
    cases: tuple[dict, ...]
    bench: Callable | None = None
    target: float | None = None   # the solution's ratio to its ceiling, at the largest benchmark size
    technique: tuple = ()  # grader.technique.Technique: what the kernel's SASS must show
    cost: Callable | None = None  # a case's work on the emulator, where not the product of its sizes
    statistics: bool = False  # its check reads the emulator's memory statistics (open design): kept on
                              # in its grading child, off in the others (nothing reads them there)
    hint_parts: tuple[int, ...] = ()  # the exercise regions of its files whose hints it shows (0-based, in
                                     # grader.hints.files order); (): all (a file's rungs each show their own)

    @property
    def key(self) -> str:
        return f"{self.day}/{self.name}"


def case_id(case: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in case.items())


def day_exercises(day) -> list[Exercise]:
    """The exercises of one day, in teaching order; an empty list for a day not written yet."""
    module = f"grader.exercises.{days.day_name(day)}"
    if importlib.util.find_spec(module) is None:
        return []
    return list(importlib.import_module(module).EXERCISES)


def get(day, name: str) -> Exercise:
    for ex in day_exercises(day):
        if ex.name == name:
            return ex
    raise UnknownExercise(days.day_name(day), name, [e.name for e in day_exercises(day)])


class UnknownExercise(KeyError):
    """An exercise the day does not have (English here; `grader.messages.said` words it for a student)."""

    def __init__(self, day: str, name: str, known: list[str]):
        self.fields = {"day": day, "name": repr(name), "known": ", ".join(known)}
        super().__init__(f"{day} has no exercise {name!r} (it has: {', '.join(known) or 'none yet'})")


def days_with_exercises() -> list[str]:
    """The days of the course that have exercises, in order (what commands do when no day is named)."""
    return [d for d in days.NAMES if day_exercises(d)]
