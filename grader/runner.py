"""Loading an exercise's kernel and running its checks and benchmark, in this process.

A Python exercise (a .py file) is checked in two halves (`harnessed`): its harness calls the student's
functions and returns plain data (numbers, strings, arrays), in a sandboxed process of the student's
(grader.isolation); the check itself verifies that data in the grader, against inputs it made from
the seed it chose. Nothing the student's code does there reaches the verdict but the data.
"""
from __future__ import annotations

import base64
import functools
import importlib.util
import os
from pathlib import Path

import numpy as np

from grader import checks, compiler, device, paths, solution_facts, technique
from grader.exercises import Exercise
from grader.messages import phrased, say

_modules: dict[tuple, object] = {}


def source_of(ex: Exercise, solutions: bool | None = None) -> Path:
    """The file this exercise loads: the student's (days/, or $COURSE_SOURCE_DIR) or the solution."""
    if solutions:
        if not paths.SOLUTIONS.is_dir():  # paths.solutions_dir refuses in English only (it sits below the catalogue)
            raise paths.InstructorOnly(say("paths.instructor_only", what=say("runner.solution")))
        return paths.SOLUTIONS / ex.day / ex.source
    return paths.source_path(ex.day, ex.source)


def why_not_here(ex: Exercise) -> str | None:
    """Why this machine cannot run `ex` at all (no GPU; a GPU older than the exercise needs), or None."""
    reason = device.why_no_gpu()
    if reason:
        return say("runner.needs_gpu", reason=reason, day=ex.day)
    needed, specific = solution_facts.required_arch(ex.day, ex.source)
    if needed and not device.current().any_arch:
        have = device.properties()["sm"]
        if compiler.arch_number(have) < needed:
            return say("runner.needs_arch", exercise=ex.key, needed=needed, have=have)
        if specific and compiler.arch_number(have) != needed:
            return say("runner.needs_exact_arch", exercise=ex.key, needed=needed, have=have)
    return None


def version(path: str | os.PathLike) -> tuple[int, ...]:
    """What tells one version of a file from the next: inode, size, modification and change times
    (an editor's save changes one of them, even within one tick of the clock). OSError if absent."""
    st = os.stat(path)
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def load(ex: Exercise, solutions: bool | None = None):
    """The compiled module of an exercise (a .cu file), or the imported module of a Python one (a .py
    file), once per file `version` in this process; an AssertionError when a kernel's SASS lacks the
    technique the exercise teaches."""
    path = source_of(ex, solutions)
    key = (str(path.resolve()), version(path))
    if key not in _modules:
        if path.suffix == ".py":
            module = _import(path, f"course_{ex.day}_{path.stem}")
        else:
            module = device.load(path)
            technique.check(ex, path)
        _modules[key] = module
    return _modules[key]


def precompile(exs) -> None:
    """Compile the .cu files of `exs` and what their technique checks read, all at once in threads (NVRTC
    and nvdisasm run outside the GIL), so that their `load`s, one after another, find them in the compile
    cache: a grading child's files on cores it would leave idle (its share of them under grade-class,
    OMP_NUM_THREADS). A file that does not compile, or is missing, says so in its own `load`."""
    from concurrent.futures import ThreadPoolExecutor

    jobs = {}
    for ex in exs:
        try:
            path = source_of(ex)
        except OSError:
            continue
        if path.suffix == ".cu" and path.is_file():
            jobs.setdefault(("compile", str(path)), (device.compile, path))
            jobs.setdefault(("technique", str(path), bool(ex.technique)), (technique.prepare, ex, path))
    share = int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1)  # grade-class: a worker's cores
    if len(jobs) > 2 and share > 1 and device.backend() == "cupy":  # a GPU machine's spare cores only
        with ThreadPoolExecutor(min(len(jobs), share, 8)) as pool:
            for done in [pool.submit(*job) for job in jobs.values()]:
                done.exception()


def _import(path: Path, name: str):
    """Import a Python exercise file as its own module (not on sys.path: days/ and solutions/ hold the
    same names)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Returned:
    """What a Python exercise's harness returned, standing in for the module: the check verifies it."""

    def __init__(self, data):
        self.data = data


def harnessed(harness):
    """A Python exercise's check in two halves: `harness(module, seed, **case)` runs the student's code
    and returns plain data; the decorated `verify(data, seed, **case)` raises AssertionError when the
    data is wrong. Called with a module, the check runs both here; with `Returned`, only the verify."""
    def wrap(verify):
        @functools.wraps(verify)
        def check(module, seed, **case):
            data = module.data if isinstance(module, Returned) else harness(module, seed, **case)
            return verify(data, seed, **case)
        check.harness = harness
        return check
    return wrap


def is_python(ex: Exercise) -> bool:
    return ex.source.endswith(".py")


def harness(ex: Exercise, case: dict, module, seed: int):
    """In the student's process: the harness's data, encoded for a pipe (JSON)."""
    return encode(ex.check.harness(module, seed, **case))


def verify(ex: Exercise, case: dict, data, seed: int) -> None:
    """In the grader: the check on the data a harness returned (AssertionError when wrong or malformed)."""
    try:
        decoded = decode(data)
    except (TypeError, ValueError, KeyError) as e:
        raise AssertionError(say("runner.malformed", exercise=ex.key, error=e)) from None
    try:
        ex.check(Returned(decoded), seed, **case)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:
        raise AssertionError(say("runner.malformed", exercise=ex.key, error=f"{type(e).__name__}: {e}")) from None


ARRAY_DTYPES = ("float16", "float32", "float64", "bfloat16", "int32", "int64", "uint16", "bool")


def encode(value):
    """Plain data with numpy arrays as {"__array__": [dtype, shape, base64 bytes]}."""
    if isinstance(value, np.ndarray):
        a = np.ascontiguousarray(value)
        return {"__array__": [str(a.dtype), list(a.shape), base64.b64encode(a.tobytes()).decode()]}
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, (np.generic,)):
        return value.item()
    return value


def decode(value):
    """`encode`'s inverse, strict: a dtype of ARRAY_DTYPES, a shape that matches the bytes."""
    from grader.dtypes import dtype as named

    if isinstance(value, dict):
        if set(value) == {"__array__"}:
            name, shape, data = value["__array__"]
            if name not in ARRAY_DTYPES or not all(isinstance(n, int) and n >= 0 for n in shape):
                raise ValueError(say("runner.bad_array", dtype=repr(name), shape=repr(shape)))
            dt = named(name) if name == "bfloat16" else np.dtype(name)
            raw = base64.b64decode(data, validate=True)
            if len(raw) != dt.itemsize * int(np.prod(shape, dtype=np.int64)):
                raise ValueError(say("runner.array_bytes", shape=shape, count=len(raw)))
            return np.frombuffer(raw, dt).reshape(shape).copy()
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(say("runner.bad_value", type=type(value).__name__))


def check(ex: Exercise, case: dict, module=None, seed: int | None = None) -> int:
    """Run one case of an exercise on fresh random inputs; returns the seed used."""
    seed = checks.new_seed() if seed is None else seed
    ex.check(module if module is not None else load(ex), seed, **case)
    return seed


def bench(ex: Exercise, module=None, quick: bool = False, with_solution: bool = False):
    """The exercise's benchmark for the loaded kernel (and the solution's, if asked and present).
    Only kernels that pass the largest self-check case are timed: a wrong kernel's speed means nothing."""
    if ex.bench is None:
        raise ValueError(say("runner.no_benchmark", exercise=ex.key))
    modules = {"yours" if not paths.use_solutions() else "solution": module or load(ex)}
    solution = paths.SOLUTIONS / ex.day / ex.source
    if with_solution and "solution" not in modules and solution.is_file():
        modules["solution"] = load(ex, solutions=True)
    refused = []
    for label, mod in list(modules.items()):
        try:
            check(ex, ex.cases[-1], mod)
        except AssertionError as e:
            refused.append(say("bench.wrong_output", label=phrased(label), error=str(e).splitlines()[0]))
            del modules[label]
    if not modules:
        raise AssertionError(say("sep").join(refused))
    report = ex.bench(modules, quick=quick)
    report.notes += refused
    return report
