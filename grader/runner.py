"""Loading an exercise's kernel and running its checks and benchmark, in this process."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from grader import checks, device, paths, technique
from grader.exercises import Exercise

_modules: dict[tuple[str, float], object] = {}


def source_of(ex: Exercise, solutions: bool | None = None) -> Path:
    """The file this exercise loads: the student's (days/, or $COURSE_SOURCE_DIR) or the solution."""
    if solutions:
        return paths.SOLUTIONS / ex.day / ex.source
    return paths.source_path(ex.day, ex.source)


def load(ex: Exercise, solutions: bool | None = None):
    """The compiled module of an exercise (a .cu file), or the imported module of a Python one (a .py
    file), once per file version in this process; an AssertionError when a kernel's SASS lacks the
    technique the exercise teaches."""
    path = source_of(ex, solutions)
    key = (str(path.resolve()), path.stat().st_mtime)
    if key not in _modules:
        if path.suffix == ".py":
            module = _import(path, f"course_{ex.day}_{path.stem}")
        else:
            module = device.load(path)
            technique.check(ex, path)
        _modules[key] = module
    return _modules[key]


def _import(path: Path, name: str):
    """Import a Python exercise file as its own module (not on sys.path: days/ and solutions/ hold the
    same names)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(ex: Exercise, case: dict, module=None, seed: int | None = None) -> int:
    """Run one case of an exercise on fresh random inputs; returns the seed used."""
    seed = checks.new_seed() if seed is None else seed
    ex.check(module if module is not None else load(ex), seed, **case)
    return seed


def bench(ex: Exercise, module=None, quick: bool = False, with_solution: bool = False):
    """The exercise's benchmark for the loaded kernel (and the solution's, if asked and present).
    Only kernels that pass the largest self-check case are timed: a wrong kernel's speed means nothing."""
    if ex.bench is None:
        raise ValueError(f"{ex.key} has no benchmark")
    modules = {"yours" if not paths.use_solutions() else "solution": module or load(ex)}
    solution = paths.SOLUTIONS / ex.day / ex.source
    if with_solution and "solution" not in modules and solution.is_file():
        modules["solution"] = load(ex, solutions=True)
    refused = []
    for label, mod in list(modules.items()):
        try:
            check(ex, ex.cases[-1], mod)
        except AssertionError as e:
            refused.append(f"{label}: not benchmarked, its output is wrong ({str(e).splitlines()[0]})")
            del modules[label]
    if not modules:
        raise AssertionError("; ".join(refused))
    report = ex.bench(modules, quick=quick)
    report.notes += refused
    return report
