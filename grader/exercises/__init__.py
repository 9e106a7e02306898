"""What each day checks: one module per day (day01.py, day02.py, ...), each declaring its exercises.

An `Exercise` names its source file, a `check(module, seed, **case)` that launches the kernel on
fresh random inputs and compares with a numpy reference, the self-check cases (awkward sizes), and
optionally a `bench(modules)` that measures it against a ceiling from the same process, and the
`technique` the day teaches (SASS the graded kernel must show, `grader/technique.py`).
"""
from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field
from typing import Callable

from grader import paths

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
    kernels: tuple[str, ...] = field(default=())
    technique: tuple = ()  # grader.technique.Technique: what the kernel's SASS must show

    @property
    def key(self) -> str:
        return f"{self.day}/{self.name}"


def case_id(case: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in case.items())


def day_exercises(day) -> list[Exercise]:
    """The exercises of one day, in teaching order; an empty list for a day not written yet."""
    module = f"grader.exercises.{paths.day_name(day)}"
    if importlib.util.find_spec(module) is None:
        return []
    return list(importlib.import_module(module).EXERCISES)


def get(day, name: str) -> Exercise:
    for ex in day_exercises(day):
        if ex.name == name:
            return ex
    known = ", ".join(e.name for e in day_exercises(day)) or "none yet"
    raise KeyError(f"{paths.day_name(day)} has no exercise {name!r} (it has: {known})")
