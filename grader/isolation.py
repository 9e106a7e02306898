"""Grading an exercise in a locked-down child process.

Everything that grades a student's kernel goes through `run_exercise`: pytest's self-checks, the
notebook's `nb.grade`, `grader check` and nbgrader autograde. The child

- works in an empty folder of its own that holds only copies of the submission's .cu/.cuh files
  (regular files; a link is refused), and compiles them with the course headers on the include path
  (`compiler.check_includes`: only its own files and the course's headers, decided on the
  preprocessor's tokens, `grader.includes`);
- gets a scrubbed environment (a short allow-list; HOME is its own folder) and resource limits: CPU
  time, file size, no core files, and address space on the emulator;
- reports on a pipe of its own, each line carrying a nonce the parent chose (`grader.child`, the
  protocol every course child uses): a kernel's `printf` writes to stdout and cannot forge a result;
- runs each case under a time budget derived from the solution's time for that case on the same
  backend (BUDGET_FACTOR times, at least BUDGET_FLOOR_S), so a hung kernel is reported as
  "timed out after N s in case X" quickly; the process group is then killed.

The parent reports "passed", "failed", "crashed" or "timed out", case by case.

Inside `remembering()` (grade-class's workers), a call whose verdict is a function of its inputs alone
(`_remembered_key`: the emulator, which is deterministic; a kernel, not student Python; a fixed seed, as
the hidden tests have) is run once per worker for each set of submitted bytes: a later submission with
the same bytes gets the same verdict without running again, naming its own folder. Only this process,
from what its child reported, writes what is remembered, and only in its memory. There, too, a notebook's
calls (its exercises' visible and hidden tests: `run_calls`) share one child, one compile per exercise.
"""
from __future__ import annotations

import collections
import contextlib
import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader import child, language, paths
from grader.limits import EMULATOR_ADDRESS_SPACE, THREAD_ENV, apply_limits
from grader.messages import say, status as status_word

COMPILE_BUDGET_S = 240.0                        # interpreter start, compile and the technique check
BUDGET_FACTOR = 10.0                            # a case may take this many times the solution's time
BUDGET_FLOOR_S = {"cupy": 10.0, "emulator": 20.0}
UNMEASURED_BUDGET_S = 120.0                     # a case whose solution time is not known
MEASURING_BUDGET_S = 900.0                      # the course's own solution, timed to set the budgets
MAX_FILE_BYTES = 1 << 20
#: Days that teach shared memory: on a GPU, their graded kernels also run (smallest case) under
#: compute-sanitizer racecheck; a race fails the exercise. The emulator finds races on every run.
RACECHECK_DAYS = ("day04", "day06")
SOURCE_SUFFIXES = (".cu", ".cuh")
STATS_ENV = "COURSE_EMULATOR_STATS"  # "0": the emulator keeps no memory statistics (grader/emulator/program.py)
_ENV_KEEP = ("PATH", "LANG", "LC_ALL", "TERM", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
             "CUDA_PATH", "CUDA_HOME", "LD_LIBRARY_PATH", "CUPY_CACHE_DIR", "COURSE_BACKEND",
             "COURSE_SEED", "COURSE_EMULATOR_FULL", "COURSE_EMULATOR_ARCH", "COURSE_LANG", *THREAD_ENV)


@dataclass
class CaseResult:
    case: dict
    status: str            # passed | failed | crashed | timed out | not run
    message: str = ""
    seconds: float = 0.0
    seed: int | None = None
    data: dict = field(default_factory=dict)   # what a child module other than this one reports


@dataclass
class Outcome:
    exercise: str
    status: str            # passed | failed | crashed | timed out
    message: str = ""
    passed: int = 0
    total: int = 0
    cases: list[CaseResult] = field(default_factory=list)
    output: str = field(default="", repr=False)
    files: dict[str, str] = field(default_factory=dict)  # the files graded: name -> sha256 of the copy
    unchecked: list[str] = field(default_factory=list)    # own cases past a size boundary not run here

    def __str__(self) -> str:
        head = say("outcome", exercise=self.exercise, status=status_word(self.status), passed=self.passed,
                   total=self.total)
        return head + (f"\n{self.message}" if self.message else "")


class SubmissionError(ValueError):
    """A submission folder that cannot be graded as it is (a link, a huge file, a missing file)."""


# ---- the locked-down child's folder and environment ----------------------------------------------

def _copy_submission(source_dir: Path, wanted: str, dest: Path) -> None:
    """Copy the .cu/.cuh files of `source_dir` and the exercise's own file (`wanted`: a .py exercise's)
    into `dest`, refusing links and oversized files."""
    if not (source_dir / wanted).exists() and not (source_dir / wanted).is_symlink():
        raise SubmissionError(say("isolation.missing", name=wanted, folder=source_dir))
    for path in sorted(source_dir.iterdir()):
        if path.suffix not in SOURCE_SUFFIXES and path.name != wanted:
            continue
        if path.is_symlink() or not path.is_file():
            raise SubmissionError(say("isolation.not_a_file", name=path.name, folder=source_dir))
        if path.stat().st_size > MAX_FILE_BYTES:
            raise SubmissionError(say("isolation.too_large", name=path.name, mib=MAX_FILE_BYTES >> 20))
        shutil.copyfile(path, dest / path.name, follow_symlinks=False)


def _child_env(workdir: Path) -> dict[str, str]:
    env = {k: os.environ[k] for k in _ENV_KEEP if k in os.environ}
    env.setdefault("CUPY_CACHE_DIR", str(Path.home() / ".cupy" / "kernel_cache"))
    env[language.LANG_ENV] = language.language()  # a zh lesson's folder decides it, not only $COURSE_LANG
    env.update({"HOME": str(workdir / "home"), "PYTHONPATH": paths.python_path(), "PYTHONSAFEPATH": "1",
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg",
                "NUMPY_MADVISE_HUGEPAGE": "0",  # a fresh 10M-element array's first touch: 2x faster without
                "COURSE_JIT_CACHE": str(workdir / "jit"), paths.KERNELS_ENV: "days",
                paths.SOURCE_DIR_ENV: str(workdir / "src")})
    return env


def _limits(cpu_seconds: int, emulated: bool):
    def apply():  # in the child, before exec
        apply_limits(cpu_seconds, EMULATOR_ADDRESS_SPACE if emulated else None)
    return apply


# ---- time budgets from the solution's times ----------------------------------------------------

def _times_file(backend: str) -> Path:
    return paths.STATE / "case-times" / f"{backend}.json"


def _case_key(ex, case: dict) -> str:
    from grader import exercises

    return f"{ex.key}:{exercises.case_id(case)}"


def _read_times(backend: str) -> dict[str, float]:
    try:
        return json.loads(_times_file(backend).read_text())
    except (OSError, ValueError):
        return {}


def _record_times(backend: str, new: dict[str, float]) -> None:
    if not new:
        return
    from filelock import FileLock

    path = _times_file(backend)
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(path.with_suffix(".lock")):  # grading processes of a class record side by side
        times = {**_read_times(backend), **new}
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(times, indent=0, sort_keys=True))
        os.replace(tmp, path)


def case_budgets(ex, cases: list[dict], backend: str) -> list[float]:
    """Seconds each case may take: BUDGET_FACTOR x the solution's time on this backend (measured
    once, in a child, and kept in .course/case-times/; one process measures an exercise while any
    other that needs it waits), at least BUDGET_FLOOR_S."""
    times = _read_times(backend)
    solution = paths.SOLUTIONS / ex.day / ex.source
    if any(_case_key(ex, c) not in times for c in cases) and solution.is_file():
        from filelock import FileLock

        lock = _times_file(backend).with_name(f"{backend}.{ex.key.replace('/', '.')}.lock")
        lock.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(lock):  # a class's tasks of one day start together: one measures, the rest wait for it
            times = _read_times(backend)
            missing = [c for c in cases if _case_key(ex, c) not in times]
            if missing:
                _run(ex, missing, source_dir=solution.parent, seed=None,
                     budgets=[MEASURING_BUDGET_S] * len(missing), backend=backend, record=True)
                times = _read_times(backend)
    floor = BUDGET_FLOOR_S.get(backend, 20.0)
    return [max(floor, BUDGET_FACTOR * times[_case_key(ex, c)]) if _case_key(ex, c) in times
            else UNMEASURED_BUDGET_S for c in cases]


# ---- the parent ----------------------------------------------------------------------------------

def runnable_cases(ex) -> list[dict]:
    """The exercise's own cases that this machine runs: all on a GPU; on the emulator, those small
    enough for a CPU (grader/emulator/scaling.py)."""
    from grader import device

    if device.current().full_sizes:
        return list(ex.cases)
    from grader.emulator.scaling import runs_on_emulator

    return [c for c in ex.cases if runs_on_emulator(ex, c)[0]]


def run_child(args: list[str], *, exercise: str, timeout: float, cwd: Path | None = None):
    """Run `python <args>` (trusted course code, such as a pytest run) with a time limit:
    (Outcome, None) if it timed out, else (None, the completed process)."""
    try:
        done = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout,
                              cwd=cwd, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    except subprocess.TimeoutExpired:
        return Outcome(exercise, "timed out", say("isolation.still_running", seconds=timeout)), None
    return None, done


def run_exercise(day, name: str, cases: list[dict] | None = None, *, source_dir: str | None = None,
                 solutions: bool = False, seed: int | None = None, timeout: float | None = None) -> Outcome:
    """Check an exercise's cases (by default its own that this machine runs) in a locked-down child.
    `source_dir` is the folder holding the student's files (default: days/dayNN, $COURSE_SOURCE_DIR, or
    solutions/dayNN with `solutions`); `timeout`, if given, caps each case's budget."""
    return run_calls(day, [(name, cases, seed)], source_dir=source_dir, solutions=solutions, timeout=timeout)[0]


def run_calls(day, calls: list[tuple[str, list[dict] | None, int | None]], *, source_dir: str | None = None,
              solutions: bool = False, timeout: float | None = None) -> list[Outcome]:
    """`run_exercise` for each (exercise name, cases, seed) of `calls` (a notebook's autograder calls),
    one Outcome each. Inside `remembering()`, the kernel exercises' calls share one child (one start, one
    compile per exercise; on a GPU the child stops at a crash, the CUDA context being gone); a call it did
    not reach runs again in a child of its own."""
    from grader import device, exercises, runner

    found = [exercises.get(day, name) for name, _, _ in calls]
    day = found[0].day if found else paths.day_name(day)
    resolved = [(ex, list(cases) if cases is not None else runnable_cases(ex), seed)
                for ex, (_, cases, seed) in zip(found, calls)]
    if source_dir:
        folder = Path(source_dir).resolve()
    elif solutions:
        folder = paths.SOLUTIONS / day
    else:  # days/dayNN, or $COURSE_SOURCE_DIR, or solutions/ under COURSE_KERNELS=solutions
        try:
            folder = paths.source_path(day, found[0].source).parent if found else paths.SOLUTIONS / day
        except FileNotFoundError as e:
            return [Outcome(ex.key, "failed", str(e), total=len(cases)) for ex, cases, _ in resolved]
    reason = device.why_no_gpu()
    if reason:
        return [Outcome(ex.key, "failed", say("isolation.needs_gpu", reason=reason), total=len(cases))
                for ex, cases, _ in resolved]
    backend = device.backend()
    parts = []
    for ex, cases, seed in resolved:
        budgets = case_budgets(ex, cases, backend)
        parts.append((ex, cases, seed, [min(b, timeout) for b in budgets] if timeout is not None else budgets))
    record = folder == (paths.SOLUTIONS / day).resolve()
    shared = [k for k, p in enumerate(parts) if not runner.is_python(p[0])] if _Remembered.on and not record else []
    outcomes = [None] * len(parts)
    for k, outcome in zip(shared, _run_parts([parts[k] for k in shared], source_dir=folder, backend=backend)
                          if shared else []):
        outcomes[k] = outcome
    for k, (ex, cases, seed, budgets) in enumerate(parts):
        if outcomes[k] is None:
            outcomes[k] = _run(ex, cases, source_dir=folder, seed=seed, budgets=budgets, backend=backend,
                               record=record)
    raced = {}  # exercise -> (ex, cases, budgets) of its first passing call: a race is the kernel's, not a case's
    for k, (ex, cases, _, budgets) in enumerate(parts):
        if outcomes[k].status == "passed" and backend == "cupy" and ex.day in RACECHECK_DAYS:
            raced.setdefault(ex.key, (ex, cases, budgets))
    races = _racecheck(list(raced.values()), folder) if raced else {}
    for k, ((ex, cases, _, budgets), (_, explicit, _)) in enumerate(zip(parts, calls)):
        if ex.key in races and outcomes[k].status == "passed":
            _apply_racecheck(outcomes[k], *races[ex.key])
        if explicit is None and len(cases) < len(ex.cases):
            outcomes[k].message = "\n".join(filter(None, [outcomes[k].message, _not_run(ex, cases)]))
            outcomes[k].unchecked = [exercises.case_id(c) for c in unchecked(ex, cases)[0]]
    return outcomes


#: Sizes past which a kernel's arithmetic changes: float indices lose integers past 2^24 elements,
#: 32-bit offsets overflow past 2^31 bytes. A case past one that no case the emulator ran reached is
#: unchecked there: its points wait for a GPU.
BOUNDARIES = ((1 << 24, "boundary.elements"), (1 << 31, "boundary.bytes"))  # the limit, its catalogue name
_BYTES = {"float16": 2, "bfloat16": 2, "e4m3": 1}


def _extent(case: dict, unit: str) -> int:
    from grader.emulator.scaling import case_size

    size = case_size(case)
    if unit.endswith("bytes"):
        size *= max((_BYTES.get(case.get(k), 4) for k in ("dtype", "kv_dtype") if k in case), default=4)
    return size


def unchecked(ex, ran: list[dict]) -> tuple[list[dict], list[str]]:
    """The cases of `ex` left out of `ran` that lie past a size boundary (BOUNDARIES) no case of `ran`
    reached, and the names of those boundaries."""
    left = [c for c in ex.cases if c not in ran]
    past, beyond = [], []
    for bound, name in BOUNDARIES:
        if any(_extent(c, name) > bound for c in ran):
            continue
        over = [c for c in left if _extent(c, name) > bound]
        past += [name] if over else []
        beyond += [c for c in over if c not in beyond]
    return beyond, past


def _not_run(ex, ran: list[dict]) -> str:
    """The sizes the emulator left out, and the boundaries past the largest case it ran that only a
    GPU's grade checks (`unchecked`)."""
    from grader import exercises

    left = [c for c in ex.cases if c not in ran]
    beyond, past = unchecked(ex, ran)
    return (say("emulator.not_run", cases=", ".join(exercises.case_id(c) for c in left))
            + (say("emulator.unchecked", bounds=say("limiter.and").join(say(b) for b in past),
                   cases=", ".join(exercises.case_id(c) for c in beyond)) if past else ""))


def _racecheck(checks: list[tuple], folder: Path) -> dict[str, tuple[bool, str]]:
    """The smallest case of each (exercise, cases, budgets) again, all in one child under compute-sanitizer
    racecheck (a missing __syncthreads can pass a check by luck): exercise key -> (a race was found, what
    to say: the race and its line, or why racecheck proves nothing; "" for a clean run). A race belongs
    to the exercise whose file defines the kernel it was found in."""
    from grader import sanitize
    from grader.emulator.scaling import case_size

    try:
        exe = sanitize.find_sanitizer()
    except FileNotFoundError as e:
        return {ex.key: (False, say("isolation.race_not_run", why=e)) for ex, _, _ in checks}
    parts = []
    for ex, cases, budgets in checks:
        i = min(range(len(cases)), key=lambda k: case_size(cases[k]))
        parts.append((ex, [cases[i]], None, [budgets[i] * 20 + 60]))
    checked = _run_parts(parts, source_dir=folder, backend="cupy", wrapper=[str(exe), "--tool", "racecheck"])
    verdicts = {}
    for (ex, _, _, _), outcome in zip(parts, checked):
        races = [r for r in sanitize.parse(outcome.output, "racecheck", str(folder / ex.source))
                 if _defines(folder / ex.source, r.kernel)]
        if races:
            r = races[0]
            verdicts[ex.key] = (True, say("isolation.race", what=r.shown, kernel=r.kernel, where=r.where))
        elif outcome.status != "passed":  # say so: a racecheck that did not finish proves nothing
            first = (outcome.message.splitlines() or [""])[0]
            verdicts[ex.key] = (False, say("isolation.race_unfinished", status=status_word(outcome.status), first=first))
        else:
            verdicts[ex.key] = (False, "")
    return verdicts


def _defines(source: Path, kernel: str) -> bool:
    """Whether `source` defines or launches a function named as the sanitizer names `kernel`
    ("transpose_tiled_padded", "ns::k<int>(float *)"); a finding with no kernel name belongs to every file."""
    name = re.match(r"[\w:]*", kernel).group().rsplit("::", 1)[-1]
    try:
        return not name or re.search(rf"\b{re.escape(name)}\b", source.read_text(errors="replace")) is not None
    except OSError:
        return True


def _apply_racecheck(outcome: Outcome, race: bool, message: str) -> None:
    """A passed outcome after its exercise's racecheck: failed, every case, where it found a race."""
    if message:
        outcome.message = message
    if race:
        outcome.status, outcome.passed = "failed", 0
        for c in outcome.cases:
            c.status, c.message = "failed", message


def run_locked(ex, cases: list[dict], *, source_dir, budgets: list[float], entry: str,
               options: dict | None = None) -> Outcome:
    """Run `python -m <entry>` on a submission, locked down as `run_exercise`'s child is; the module
    reads its request (`options` added) from argv and reports on `child.result_channel()`, an "end"
    event per case (with any `data`), then "done"."""
    from grader import device

    return _run(ex, cases, source_dir=Path(source_dir), seed=None, budgets=budgets, backend=device.backend(),
                record=False, entry=entry, options=options)


def _run(ex, cases, *, source_dir: Path, seed, budgets, backend: str, record: bool,
         wrapper: list[str] = (), entry: str = "grader.isolation", options: dict | None = None) -> Outcome:
    return _run_parts([(ex, cases, seed, budgets)], source_dir=source_dir, backend=backend, record=record,
                      wrapper=wrapper, entry=entry, options=options)[0]


def _run_parts(parts, *, source_dir: Path, backend: str, record: bool = False, wrapper: list[str] = (),
               entry: str = "grader.isolation", options: dict | None = None) -> list[Outcome]:
    """The Outcome of each (exercise, cases, seed, budgets) of `parts` (a day's kernel exercises when
    there are several), graded in one child on one copy of the submission (again, in another, those
    that child did not reach); a remembered verdict where there is one (`remembering`)."""
    from grader import runner

    there = str(source_dir)  # paths as the student knows them
    outcomes: list[Outcome | None] = [None] * len(parts)
    with tempfile.TemporaryDirectory(prefix="course-grade-") as tmp:
        workdir = Path(tmp)
        (workdir / "src").mkdir()
        (workdir / "home").mkdir()
        for k, (ex, cases, _, _) in enumerate(parts):
            if not (Path(source_dir) / ex.source).exists() and not (Path(source_dir) / ex.source).is_symlink():
                outcomes[k] = Outcome(ex.key, "failed", say("isolation.missing", name=ex.source, folder=source_dir),
                                      total=len(cases))
        present = [k for k in range(len(parts)) if outcomes[k] is None]
        try:
            _copy_submission(Path(source_dir), parts[present[0]][0].source if present else parts[0][0].source,
                             workdir / "src")
        except (SubmissionError, OSError) as e:
            return [outcomes[k] or Outcome(ex.key, "failed", str(e), total=len(cases))
                    for k, (ex, cases, _, _) in enumerate(parts)]
        files = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((workdir / "src").iterdir())}
        here = str(workdir / "src")
        keys = [None] * len(parts)
        for k, (ex, cases, seed, budgets) in enumerate(parts):
            if outcomes[k] is not None:
                continue
            if _Remembered.on and seed is not None and backend == "emulator" and not record and not wrapper \
                    and entry == "grader.isolation" and not runner.is_python(ex):
                keys[k] = _remembered_key(ex, cases, seed, budgets, _reachable(ex.source, workdir / "src", files))
                if keys[k] in _Remembered.verdicts:
                    _Remembered.verdicts.move_to_end(keys[k])
                    raw, ran_in = _Remembered.verdicts[keys[k]]
                    outcomes[k] = _placed(copy.deepcopy(raw), ran_in, there)
                    outcomes[k].files = files  # this submission's own files (others than the key's may differ)
        todo = [k for k in range(len(parts)) if outcomes[k] is None]
        together = not any(runner.is_python(p[0]) for p in parts) and entry == "grader.isolation"
        while todo:
            batch = todo if together else todo[:1]
            finished, seeds, note = _child_run([parts[k] for k in batch], workdir, backend, wrapper, entry, options)
            sizes = [len(parts[k][1]) for k in batch]
            endings = _part_endings(finished, sizes) if len(batch) > 1 else [finished.ended]
            left = []
            for j, (k, ended) in enumerate(zip(batch, endings)):
                if ended is None:  # the shared child never reached it: again, in a child of its own
                    left.append(k)
                    continue
                ex, cases, _, budgets = parts[k]
                view = child.Finished(ended, finished.returncode, _part_events(finished.events, sum(sizes[:j]),
                                                                              sizes[j], j), finished.output)
                results, status, message = _results(ex, cases, budgets, view, seeds)
                message = "\n".join(filter(None, [message, note]))
                if record:
                    _record_times(backend, {_case_key(ex, r.case): r.seconds for r in results if r.status == "passed"})
                passed = sum(r.status == "passed" for r in results)
                raw = Outcome(ex.key, status, message, passed, len(cases), results, finished.output, files)
                if keys[k] is not None and ended == "done" and status in ("passed", "failed") \
                        and all(r.status in ("passed", "failed", "not run") for r in results):
                    _Remembered.keep(keys[k], copy.deepcopy(raw), here)
                outcomes[k] = _placed(raw, here, there)
            todo = left + todo[len(batch):]
    return outcomes


def _child_run(parts, workdir: Path, backend: str, wrapper, entry: str, options):
    """Run one child on `parts` (exercise, cases, seed, budgets), their cases numbered as one list;
    (Finished, the seeds of a Python exercise's cases or None, a note)."""
    from grader import runner

    ex, cases, seed, _ = parts[0]
    budgets = [b for p in parts for b in p[3]]
    cpu = int(COMPILE_BUDGET_S * len(parts) + sum(budgets)) + 30
    seeds, note = None, ""
    request = {"day": ex.day, "name": ex.name, "cases": cases, "seed": seed, **(options or {})}
    if len(parts) > 1:
        request = {"day": ex.day, "parts": [{"name": e.name, "cases": c, "seed": s} for e, c, s, _ in parts]}
    argv = child.command(entry, request, wrapper)
    if runner.is_python(ex) and entry == "grader.isolation":  # student Python: sandboxed, verified here
        from grader import checks

        seeds = request["seeds"] = [checks.new_seed() if seed is None else seed for _ in cases]
        argv, note = _sandboxed(child.command(entry, request), workdir, cpu, backend, ex.day)
    finished = child.run(argv, env=_child_env(workdir), cwd=workdir,
                         budget=COMPILE_BUDGET_S, on_event=_deadlines(budgets, len(parts)),
                         preexec_fn=_limits(cpu, backend == "emulator"))
    return finished, seeds, note


def _part_endings(finished: child.Finished, sizes: list[int]) -> list[str | None]:
    """How each part of a shared child's cases ended, for `_results`: the child's own ending for the
    part it stopped in (or reported part of), "done" for one it finished or whose compile failed, None
    for one it never reached (the first part always takes the child's ending)."""
    events = finished.events
    started = {e["index"] for e in events if e.get("event") == "start" and isinstance(e.get("index"), int)}
    ended = {e["index"] for e in events if e.get("event") == "end" and isinstance(e.get("index"), int)}
    no_compile = {e.get("part", 0) for e in events if e.get("event") == "compiled" and e.get("ok") is False}
    out, start = [], 0
    for j, n in enumerate(sizes):
        mine = set(range(start, start + n))
        start += n
        if (started - ended) & mine:
            out.append(finished.ended)
        elif j in no_compile or (mine and mine <= ended):
            out.append("done")
        elif ended & mine or j == 0:
            out.append(finished.ended)
        else:
            out.append(None)
    return out


def _part_events(events: list[dict], start: int, n: int, part: int) -> list[dict]:
    """The events of part `part` of a shared child: its cases' (indices from 0) and its compile's."""
    out = []
    for e in events:
        if e.get("event") == "compiled" and e.get("part", 0) != part:
            continue
        if isinstance(e.get("index"), int):
            if not start <= e["index"] < start + n:
                continue
            e = {**e, "index": e["index"] - start}
        out.append(e)
    return out


def _placed(outcome: Outcome, here: str, there: str) -> Outcome:
    """`outcome` with the child's folder `here` named as the student knows it, `there`."""
    for r in outcome.cases:
        r.message = r.message.replace(here, there)
    outcome.message, outcome.output = outcome.message.replace(here, there), outcome.output.replace(here, there)
    return outcome


# ---- verdicts remembered by submitted bytes (grade-class) -------------------------------------------

class _Remembered:
    """The verdicts of this process's deterministic calls (`_remembered_key`), newest last."""
    on = False
    verdicts: collections.OrderedDict[str, tuple[Outcome, str]] = collections.OrderedDict()
    LIMIT = 512

    @classmethod
    def keep(cls, key: str, raw: Outcome, here: str) -> None:
        cls.verdicts[key] = (raw, here)
        while len(cls.verdicts) > cls.LIMIT:
            cls.verdicts.popitem(last=False)


@contextlib.contextmanager
def remembering():
    """Within: a call with a fixed seed of a kernel exercise on the emulator is run once per set of
    submitted bytes in this process; an identical submission gets its verdict (see the module)."""
    saved, _Remembered.on = _Remembered.on, True
    try:
        yield
    finally:
        _Remembered.on = saved


def remembered() -> bool:
    """Whether this process is inside `remembering()`."""
    return _Remembered.on


def _remembered_key(ex, cases: list[dict], seed: int, budgets: list[float], files: dict[str, str]) -> str:
    """What a deterministic call's verdict depends on: the exercise, its cases, seed and budgets, the
    bytes of every file the child gets (`files`: their sha256), the environment it passes on, and the
    state of the course's code, headers and solutions (`_course_state`)."""
    env = {k: os.environ.get(k) for k in (*_ENV_KEEP, "CUPY_CACHE_DIR")} | {language.LANG_ENV: language.language()}
    state = [ex.key, cases, seed, budgets, files, env, sys.executable, _course_state()]
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()


def _reachable(own: str, folder: Path, files: dict[str, str]) -> dict[str, str]:
    """The digests of the files of `files` (in `folder`) that compiling `own` can read: it, every
    header (.cuh), and any other file whose name one of those holds (an include names its file
    literally: `compiler.check_includes` refuses computed ones)."""
    kept = {n for n in files if n == own or n.endswith(".cuh")}
    while True:
        text = b"".join((folder / n).read_bytes() for n in sorted(kept))
        more = {n for n in files if n not in kept and n.encode() in text}
        if not more:
            return {n: files[n] for n in sorted(kept)}
        kept |= more


def _course_state() -> str:
    """(path, inode, size, mtime, ctime) of every file the child reads from the course (its Python,
    headers and solutions), hashed: any change shows (the ctime cannot be set back)."""
    digest = hashlib.sha256()
    for root in sorted({paths.ROOT / "grader", paths.INCLUDE, paths.answer_include(), paths.SOLUTIONS}):
        for top, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                try:
                    st = os.stat(os.path.join(top, name), follow_symlinks=False)
                except OSError:
                    continue
                digest.update(f"{top}/{name} {st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}\n".encode())
    return digest.hexdigest()


def _sandboxed(argv: list[str], workdir: Path, cpu: int, backend: str, day: str) -> tuple[list[str], str]:
    """A Python exercise's child behind grader.sandbox (its own folder a copy of `workdir`; the course's
    kernels of earlier days, which it launches, visible), or as it is with a note where no sandbox can
    be made (the verdict is still the grader's, from its data)."""
    from grader import sandbox

    why_not = sandbox.unavailable()
    if why_not:
        return argv, say("isolation.no_sandbox", why=why_not)
    memory = EMULATOR_ADDRESS_SPACE if backend == "emulator" else None
    return sandbox.wrapper(workdir, cpu=cpu, memory=memory, solutions_before=day) + argv[1:], ""


def _deadlines(budgets: list[float], compiles: int = 1):
    """The child's time until its next event: a case's budget from its "start", COMPILE_BUDGET_S from
    an "end" or a compile (the time until the next start, or the next exercise's compile); never past
    the sum of them all from now (a child that sends events of its own, such as student Python, cannot
    keep itself alive)."""
    end = time.monotonic() + COMPILE_BUDGET_S * (len(budgets) + compiles) + sum(budgets)

    def on_event(event: dict) -> float | None:
        if event.get("event") == "start" and event.get("index") in range(len(budgets)):
            renewed = budgets[event["index"]]
        elif event.get("event") in ("end", "compiled"):
            renewed = COMPILE_BUDGET_S
        else:
            return None
        return max(0.0, min(renewed, end - time.monotonic()))
    return on_event


def _results(ex, cases: list[dict], budgets: list[float], finished: child.Finished, seeds=None):
    """(case results, overall status, message) from what the child reported and how it ended. With
    `seeds` (a Python exercise), a case passes only when the data it returned passes the check here,
    on those seeds: the child can report a failure, never a pass."""
    from grader import exercises

    results = [CaseResult(c, "not run") for c in cases]
    current = None
    for event in finished.events:
        if not _well_formed(event, len(cases)):
            continue
        kind = event["event"]
        if kind == "compiled" and not event["ok"]:
            return results, "failed", event["message"]
        if kind == "start":
            current = event["index"]
        elif kind == "end":
            r = results[event["index"]]
            r.status, r.message, r.seconds, r.seed = event["status"], event["message"], event["seconds"], event["seed"]
            r.data = event.get("data", {})
            if seeds is not None:
                r.seed, r.data = seeds[event["index"]], {}
                r.status, r.message = _verified(ex, r.case, event, r.seed)
            current = None
    reported = any(r.status != "not run" for r in results)
    if finished.ended == "done":
        status = _overall(results)
        if status == "passed" and not all(r.status == "passed" for r in results):
            status = "failed"
        failures = [f"{exercises.case_id(r.case)}: {r.message}" for r in results
                    if r.status not in ("passed", "not run")]
        return results, status, "\n".join(failures[:3]) + (
            say("failures.more", n=len(failures) - 3) if len(failures) > 3 else "")
    if current is not None:
        r = results[current]
        if finished.ended == "timed out":
            r.status, r.seconds = "timed out", budgets[current]
            r.message = say("timed_out", seconds=f"{budgets[current]:.0f}", case=exercises.case_id(r.case))
            return results, "timed out", r.message
        r.status, r.message = "crashed", say("isolation.process_died", how=finished.how)
        return results, "crashed", f"{exercises.case_id(r.case)}: {r.message}"
    if finished.ended == "timed out":
        when = say("isolation.between_cases" if reported else "isolation.before_cases")
        return results, "timed out", say("isolation.compile_timeout", seconds=COMPILE_BUDGET_S, when=when)
    when = say("isolation.between_cases" if reported else "isolation.before_report")
    return results, "crashed", say("isolation.ended", how=finished.how, when=when) + f"\n{finished.tail(15)}"


_EVENT_FIELDS = {"compiled": {"ok": bool, "message": str}, "start": {"index": int},
                 "end": {"index": int, "status": str, "message": str, "seconds": (int, float),
                         "seed": (int, type(None))},
                 "done": {}}


def _well_formed(event: dict, n: int) -> bool:
    """An event with the fields its kind needs, of their types, and a case index in range (a child
    running student Python may send anything)."""
    fields = _EVENT_FIELDS.get(event.get("event"))
    if fields is None or not all(isinstance(event.get(k), t) for k, t in fields.items()):
        return False
    return "index" not in fields or 0 <= event["index"] < n


def _verified(ex, case: dict, event: dict, seed: int) -> tuple[str, str]:
    """(status, message) of a Python exercise's case from its child's "end" event: the grader's check
    on the data returned; a failure or crash the child reports stands."""
    from grader import runner

    if event["status"] in ("failed", "crashed"):
        return event["status"], str(event["message"])
    if event["status"] != "ran":
        return "failed", "the student's process reported a result instead of returning data"
    try:
        runner.verify(ex, case, event.get("data"), seed)
    except AssertionError as e:
        return "failed", str(e)
    return "passed", ""


def _overall(results: list[CaseResult]) -> str:
    for status in ("crashed", "timed out", "failed"):
        if any(r.status == status for r in results):
            return status
    return "passed"


# ---- the child -----------------------------------------------------------------------------------

def _child(request: dict, send) -> None:
    """In the child: for each part (one exercise's cases; a request without "parts" is one), compile
    (and check the technique), then run each case, reporting with `send` (the cases numbered across the
    parts); stop at the first crash (the CUDA context is gone)."""
    from grader import exercises, runner

    parts = request.get("parts") or [{"name": request["name"], "cases": request["cases"], "seed": request["seed"]}]
    if len(parts) > 1:  # a notebook's files: compiled together first
        runner.precompile([exercises.get(request["day"], p["name"]) for p in parts])
    first = 0
    for k, part in enumerate(parts):
        if not _child_part(request["day"], part, k, first, request.get("seeds"), send):
            return
        first += len(part["cases"])


def _child_part(day: str, part: dict, k: int, first: int, seeds, send) -> bool:
    """One part of `_child`; False after a crash."""
    from grader import checks, device, exercises, runner

    ex = exercises.get(day, part["name"])
    os.environ[STATS_ENV] = "1" if ex.statistics else "0"  # a sixth of a launch, read by open designs only
    try:
        module = runner.load(ex)
    except Exception as e:  # noqa: BLE001 - compile errors, a missing technique, missing files
        send(event="compiled", ok=False, message=str(e), part=k)
        return True
    send(event="compiled", ok=True, message="", part=k)
    data = None
    for i, case in enumerate(part["cases"], first):
        seed = seeds[i] if seeds else checks.new_seed() if part["seed"] is None else part["seed"]
        send(event="start", index=i)
        start, status, message = time.perf_counter(), "passed", ""
        try:
            if seeds:  # a Python exercise: the data goes to the grader, which checks it
                data, status = runner.harness(ex, case, module, seed), "ran"
            else:
                runner.check(ex, case, module, seed=seed)
        except AssertionError as e:
            status, message = "failed", str(e)
        except device.KernelFault as e:
            status, message = "crashed", str(e)
        except Exception as e:  # noqa: BLE001 - a check that cannot run this kernel says why
            why = e.args[0] if isinstance(e, KeyError) and e.args else e  # a KeyError's str() adds quotes
            status, message = "failed", f"{e.__class__.__name__}: {why}"
        send(event="end", index=i, status=status, message=message, seed=seed,
             seconds=time.perf_counter() - start, **({"data": data} if status == "ran" else {}))
        if status == "crashed" and not device.current().survives_faults:
            return False
    return True


if __name__ == "__main__":
    child.main(_child)
