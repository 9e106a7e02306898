"""The emulator's memory tables of a day's kernels: each exercise's largest case that the emulator runs,
compiled for the emulator (without the grader's technique check), every launch's instruction mix and
memory table (`grader.emulator.report`).

    python -m grader.emutools.day_report day02 [strided_gather] [--solutions]
"""
from __future__ import annotations

import argparse
import os
import sys

from grader.emulator import report


def exercise_tables(ex, solutions: bool = False) -> str:
    """The memory table of every launch of the exercise's largest case that the emulator runs (the
    kernel compiled for the emulator, without the grader's technique check)."""
    from grader import emulator, paths

    case = report.largest_case(ex)
    what = ", ".join(f"{k}={v}" for k, v in case.items())
    source = paths.solutions_dir("the solution's memory table (--solutions)") / ex.day / ex.source if solutions \
        else paths.source_path(ex.day, ex.source)
    out = [f"{ex.key} ({what}), {source}:"]
    launches, error = report.record_case(ex, case, emulator.load(source))
    if error:
        out.append(f"  failed: {error}")
    out += ["\n" + report.launch_text(run) for run in launches]
    return "\n".join(out)


USAGE = """The emulator's memory statistics, per instruction and CUDA source line:

  python -m grader.emutools.day_report dayNN [exercise] [--solutions]
      each exercise's largest case that the emulator runs: sectors per request, bank conflicts
  python -m grader profile dayNN [exercise]
      the same as an estimate of Nsight Compute's table, with the instruction mix and occupancy
  from grader.emulator import report; print(report.memory_table())
      the last launch in this process

The emulator's own speed: python -m grader.emutools.speed"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m grader.emutools.day_report",
                                 description="memory tables of a day's kernels on the emulator")
    ap.add_argument("day", nargs="?", help="dayNN (without: how to get memory statistics)")
    ap.add_argument("exercise", nargs="?", help="one exercise of the day (default: all of them)")
    ap.add_argument("--solutions", action="store_true", help="the course's solutions instead of days/")
    args = ap.parse_args(argv)
    if args.day is None:
        print(USAGE)
        return 0
    os.environ["COURSE_BACKEND"] = "emulator"
    from grader import compiler, exercises

    try:
        found = [exercises.get(args.day, args.exercise)] if args.exercise else exercises.day_exercises(args.day)
        if not found:
            raise ValueError(f"{args.day} has no exercises yet")
        for ex in found:
            print(exercise_tables(ex, args.solutions), flush=True)
    except (KeyError, ValueError, FileNotFoundError, compiler.CompileError) as e:
        print(f"error: {e.args[0] if isinstance(e, KeyError) else e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
