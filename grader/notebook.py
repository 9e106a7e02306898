"""What the lesson notebooks call: set-up, loading a day's kernel, graded checks in a child process,
and benchmark plots.

A notebook's exercise files are found in the notebook's own folder when present (an nbgrader release
or submission holds the .cu files beside the notebook), else in days/dayNN/ of the course.
"""
from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import numpy as np

from grader import device, exercises, isolation, language as lang, paths, runner
from grader.messages import phrased, say


LANG_ENV, language = lang.LANG_ENV, lang.language  # nb.language(), as before


def tr(en: str, zh: str) -> str:
    """`en` or `zh`, the lesson's language (its folder decides); Chinese also readies the CJK plot font."""
    if language() != "zh":
        return en
    _cjk_font()
    return zh


@functools.cache
def _cjk_font() -> str | None:
    from grader import plots

    return plots.use_cjk_font()


def autograding() -> bool:
    """True while nbgrader autogrades (it sets NBGRADER_EXECUTION)."""
    return os.environ.get("NBGRADER_EXECUTION") == "autograde"


def _local_source_dir(ex) -> str | None:
    if (Path.cwd() / ex.source).is_file():
        return str(Path.cwd())
    if autograding():  # grade what was submitted, never the course checkout's copy
        raise FileNotFoundError(say("nb.not_submitted", source=ex.source, folder=Path.cwd()))
    return None


def setup(day) -> None:
    """Print what this machine can do for the day's notebook."""
    d = paths.day_name(day)
    reason = device.why_no_gpu()
    if reason:
        print(say("setup.no_gpu", day=d, reason=reason))
        return
    p = device.properties()
    where = {ex.name: str(source(d, ex.name)) for ex in exercises.day_exercises(d)}
    if device.why_not_hardware():
        from grader import emulator

        built = ", ".join(sorted({emulator.target(path) for path in where.values()})) or p["sm"]
        print(say("setup.emulator", day=d, device=p["name"], target=built))
    else:
        print(say("setup.gpu", day=d, device=p["name"], sm=p["sm"], sms=p["sms"], l2=p["l2_bytes"] >> 20))
    for name, path in where.items():
        print(f"  {name:<18} {path}")


def size(full: int, emulator: int) -> int:
    """`full` on a GPU, `emulator` on the emulator (a CPU runs 2^26 threads in minutes, not microseconds):
    the backend's `full_sizes` decides."""
    for what, value in (("full", full), ("emulator", emulator)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
            raise ValueError(say("nb.size", what=what, value=repr(value)))
    return int(full if device.current().full_sizes else emulator)


def source(day, name: str) -> Path:
    ex = exercises.get(day, name)
    local = _local_source_dir(ex)
    return Path(local) / ex.source if local else runner.source_of(ex)


def load(day, name: str):
    """The compiled module (a cupy.RawModule) of an exercise, for experiments in the notebook."""
    return device.load(source(day, name))


def grade(day, name: str, cases: list[dict] | None = None, seed: int | None = None,
          timeout: float | None = None) -> None:
    """Check an exercise in a child process (a crash or hang cannot kill the notebook) and print the
    result; a failure is printed (stderr) and the notebook goes on, so that Run All on a fresh lesson
    still runs its demos. Under nbgrader validate a failure raises AssertionError (a failing cell is how
    validate counts); under autograde the course has graded the submitted files already, outside the
    notebook (grader.autograde): nothing runs here."""
    if autograding():
        print(say("nb.graded_outside", exercise=f"{paths.day_name(day)}/{name}"))
        return
    ex = exercises.get(day, name)
    outcome = isolation.run_exercise(day, name, cases, source_dir=_local_source_dir(ex),
                                     solutions=paths.use_solutions(), seed=seed, timeout=timeout)
    if outcome.status == "passed":
        print(outcome)
    elif os.environ.get("NBGRADER_EXECUTION"):
        raise AssertionError(str(outcome))
    else:
        print(f"{outcome}\n{say('go_on')}", file=sys.stderr)


def bench(day, name: str, quick: bool = True):
    """Benchmark your kernel (and the solution, where the course has it) and plot it against the
    ceiling; on the emulator, nothing timed, draw its memory statistics and instruction mix instead.
    Skipped while autograding: timings are not graded."""
    if autograding():
        print(say("nb.bench_skipped"))
        return None
    from grader import plots

    ex = exercises.get(day, name)
    mod = load(day, name)
    if not device.current().timed:
        return _memory_statistics(ex, mod)
    report = runner.bench(ex, mod, quick=quick, with_solution=True)
    print(report.table())
    return plots.plot(report)


def profile(day, name: str, compare: bool = True, all_sizes: bool = False) -> None:
    """Why your kernel is as fast as it is (`python -m grader profile`): Nsight Compute's table of its
    benchmark case on a GPU, beside the solution's with `compare`; the emulator's estimates without a
    GPU. Skipped while autograding."""
    if autograding():
        print(say("nb.profile_skipped"))
        return
    from grader import profile as profiler

    try:
        profiler.profile(day, name, compare=compare, all_sizes=all_sizes, solutions=paths.use_solutions(),
                         source_dir=_local_source_dir(exercises.get(day, name)))
    except device.NoGPU as e:  # a GPU without Nsight Compute: say so, the notebook goes on
        print(e)


def _memory_statistics(ex, module):
    """The stand-in for a benchmark where nothing is timed (the emulator): the largest case it runs,
    checked with your kernel and the solution's on the same inputs; each launch's instruction mix and
    memory table printed, and drawn (`plots.emulator_figure`, returned). A kernel that fails the check
    is drawn too, marked failed (its accesses still show); AssertionError when nothing launched."""
    from grader import checks, plots
    from grader.emulator import report

    case = report.largest_case(ex)
    modules = {"solution" if paths.use_solutions() else "yours": module}
    if "solution" not in modules and (paths.SOLUTIONS / ex.day / ex.source).is_file():
        modules["solution"] = runner.load(ex, solutions=True)
    what = ", ".join(f"{k}={v}" for k, v in case.items())
    print(say("memory.instead", exercise=ex.key, case=what))
    seed, versions, failures = checks.new_seed(), {}, []
    for label, mod in modules.items():
        launches, error = report.record_case(ex, case, mod, seed)
        if error:
            failures.append(f"{phrased(label)}: {error}")
            label = f"{label} (failed)"
        failed = say("memory.check_failed", error=error) if error else ""
        print("\n" + say("memory.version", label=phrased(label)) + failed)
        for run in launches:
            print(report.launch_text(run))
        if launches:
            versions[label] = launches
    if not versions:
        raise AssertionError(say("sep").join(failures))
    return plots.emulator_figure(ex, case, versions)


def memory_summary() -> str:
    """The emulator's memory statistics of the last launch in one line: requests, sectors per global
    request and wavefronts per shared request, each against its ideal (for cells that time on a GPU)."""
    from grader.emulator import report

    totals, parts = report.totals(), []
    for kind, unit, name in (("global", "sectors", say("memory.sectors")),
                             ("shared", "wavefronts", say("memory.wavefronts"))):
        t = totals[kind]
        if t["requests"]:
            parts.append(say("memory.summary", kind=kind, requests=t["requests"], unit=name,
                             per=f"{t[unit] / t['requests']:.2f}", ideal=f"{t['ideal'] / t['requests']:.2f}"))
    return say("sep").join(parts) or say("memory.no_access")
