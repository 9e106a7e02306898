"""`python -m grader ...`: the course's command line.

    show-config             GPU, driver, CUDA, NVRTC and cupy versions, cache and include paths
    compile [dayNN|file]    compile stubs and solutions for sm_80 and sm_90 with NVRTC (no GPU needed)
    check dayNN             run the day's tests, one child process per exercise; a table at the end
    bench dayNN             benchmark the day's exercises against the measured ceiling; PNG plots
    sass FILE               SASS instruction histogram and registers / spills / shared memory
    stubs [dayNN]           regenerate the student stubs from solutions/ (never overwrites your edits)
    progress                one line per day for the whole course
    release DIR             build the nbgrader course (release without solution code) in DIR;
                            --lang en|zh|both (Chinese assignments are named dayNN-zh)
    sanitize dayNN          the day's tests under compute-sanitizer (memcheck, racecheck, synccheck)
    autotune                search the day 10 GEMM's configuration space on the GPU in use
    hint dayNN exercise     the exercise's hints, level by level (--level 1|2|3)

Commands with their own module (`grader/<command>.py`) declare HELP, add_arguments(parser) and
main(args); they are listed in COMMAND_MODULES.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from grader import compiler, device, exercises, paths

TITLES = {
    "day01": "CUDA model, indexing, launch configuration, JIT compile cache",
    "day02": "memory coalescing and vectorised access",
    "day03": "PTX inline asm, low-level math, warp shuffles",
    "day04": "shared memory and bank conflicts",
    "day05": "warp-level programming: shuffles, ballot, scan, softmax",
    "day06": "multi-level reduction and RMSNorm",
    "day07": "asynchronous copy: cp.async pipelines",
    "day08": "CUB and ragged batches (indptr)",
    "day09": "tensor cores: mma.sync and ldmatrix",
    "day10": "GEMM with a config space and autotuning",
    "day11": "decode attention: online softmax, GQA, paged KV, split-KV",
    "day12": "prefill attention: FlashAttention-2 with mma.sync",
    "day13": "the JIT system: templates and a compile cache",
    "day14": "framework integration and the capstone",
}
ALL_DAYS = tuple(TITLES)
COMMAND_MODULES = ("sanitize", "autotune", "hints")


def _days(arg: str | None) -> list[str]:
    return [paths.day_name(arg)] if arg else [d for d in ALL_DAYS if exercises.day_exercises(d)]


# ---- show-config --------------------------------------------------------------------------------

def cmd_show_config(args) -> int:
    import numpy

    rows = [("python", platform.python_version()), ("numpy", numpy.__version__)]
    try:
        import cupy

        rows.append(("cupy", cupy.__version__))
        rows.append(("CUDA runtime (cupy built for)", str(cupy.cuda.runtime.runtimeGetVersion())
                     if device.gpu_available() else "n/a without a driver"))
    except ImportError:
        rows.append(("cupy", "not installed"))
    rows.append(("NVRTC", compiler.nvrtc_version()))
    if device.gpu_available():
        import cupy

        p = device.properties()
        rows += [("GPU", f"{p['name']} ({p['sm']}, {p['sms']} SMs, L2 {p['l2_bytes'] >> 20} MiB, "
                         f"{p['memory_bytes'] / 2**30:.0f} GiB)"),
                 ("driver (CUDA version it supports)", str(cupy.cuda.runtime.driverGetVersion()))]
    else:
        rows.append(("GPU", f"none: {device.why_no_gpu()}"))
        rows.append(("works without a GPU", "compile, sass, stubs, progress, release, the CPU tests"))
    rows.append(("kernels loaded from", "solutions/" if paths.use_solutions() else "days/"))
    rows.append(("kernel cache (CUPY_CACHE_DIR)",
                 os.environ.get("CUPY_CACHE_DIR", str(Path.home() / ".cupy" / "kernel_cache"))))
    rows.append(("include paths", "\n".join(str(d) for d in compiler.include_dirs())))
    rows.append(("NVRTC options", " ".join(o for o in compiler.options() if not o.startswith("-I"))))
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        lines = value.splitlines() or [""]
        print(f"{key:<{width}}  {lines[0]}")
        for more in lines[1:]:
            print(f"{'':<{width}}  {more}")
    return 0


# ---- compile ------------------------------------------------------------------------------------

def _targets(arg: str | None) -> list[Path]:
    if arg and Path(arg).suffix == ".cu":
        path = Path(arg)
        if not path.is_file():
            raise FileNotFoundError(f"no such file: {arg}")
        return [path]
    files = []
    for d in _days(arg):
        files += sorted((paths.DAYS / d).glob("*.cu")) + sorted((paths.SOLUTIONS / d).glob("*.cu"))
    return files


def cmd_compile(args) -> int:
    files = _targets(args.target)
    archs = args.arch or list(compiler.ARCHS)
    failed = 0
    for i, f in enumerate(files, 1):
        for arch in archs:
            start = time.perf_counter()
            rel = f.resolve().relative_to(paths.ROOT) if f.resolve().is_relative_to(paths.ROOT) else f
            try:
                c = compiler.compile_file(f, arch)
                print(f"[{i}/{len(files)}] ok    {arch}  {rel}  ({', '.join(c.kernels)}; "
                      f"{time.perf_counter() - start:.1f} s)", flush=True)
            except compiler.CompileError as e:
                failed += 1
                print(f"[{i}/{len(files)}] ERROR {arch}  {rel}\n{e.log}\n", flush=True)
    print(f"{len(files) * len(archs) - failed} of {len(files) * len(archs)} compilations succeeded")
    return 1 if failed else 0


# ---- check / bench ------------------------------------------------------------------------------

def cmd_check(args) -> int:
    from grader import isolation
    from grader.pytest_plugin import format_table, summarize

    day = paths.day_name(args.day)
    exs = exercises.day_exercises(day)
    if not exs:
        print(f"{day} has no exercises yet (see course_index.md)")
        return 1
    if not device.gpu_available():
        print(f"{day}: no GPU here ({device.why_no_gpu()}); nothing can run. "
              f"`python -m grader compile {day}` checks that your kernels compile.")
        return 1
    rows = []
    for i, ex in enumerate(exs, 1):
        print(f"[{i}/{len(exs)}] {ex.key} ...", flush=True)
        report = paths.STATE / f"check-{day}-{ex.name}.json"
        report.parent.mkdir(parents=True, exist_ok=True)
        report.unlink(missing_ok=True)
        cmd = ["-m", "pytest", str(paths.DAYS / day), "-q", "-p", "no:cacheprovider", "-k",
               f"test_{ex.name}", f"--course-report={report}"] + (["--solutions"] if args.solutions else [])
        timed_out, done = isolation.run_child(cmd, exercise=ex.key, timeout=args.timeout, cwd=paths.ROOT)
        results = json.loads(report.read_text()) if report.is_file() else []
        if timed_out:
            rows.append({"exercise": ex.key, "status": "TIMED OUT", "passed": 0, "failed": 0, "skipped": 0,
                         "ratio": None, "ceiling": None, "first_failure": timed_out.message})
        elif not results:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-10:])
            rows.append({"exercise": ex.key, "status": "CRASHED", "passed": 0, "failed": 0, "skipped": 0,
                         "ratio": None, "ceiling": None, "first_failure": f"exit {done.returncode}: {tail}"})
        else:
            rows += summarize(results)
    print()
    print(format_table(rows))
    for r in rows:
        if r["first_failure"]:
            print(f"\n{r['exercise']} ({r['status']}): {r['first_failure']}")
    _save_progress(day, rows)
    return 0 if all(r["status"] == "passed" for r in rows) else 1


def _save_progress(day: str, rows: list[dict]) -> None:
    state = paths.STATE / "progress.json"
    data = json.loads(state.read_text()) if state.is_file() else {}
    data[day] = {"when": time.strftime("%Y-%m-%d %H:%M"),
                 "passed": sum(r["status"] == "passed" for r in rows), "total": len(rows)}
    state.write_text(json.dumps(data, indent=1))


def cmd_bench(args) -> int:
    from grader import plots, runner

    day = paths.day_name(args.day)
    if device.why_not_hardware():
        raise device.NoGPU(f"benchmarks time kernels on a CUDA GPU: {device.why_not_hardware()}. On the "
                           f"emulator, `nb.bench` in the notebook shows the memory statistics instead.")
    out = Path(args.out)
    for ex in exercises.day_exercises(day):
        if ex.bench is None:
            continue
        print(f"{ex.key}: benchmarking ...", flush=True)
        report = runner.bench(ex, quick=args.quick, with_solution=True)
        print(report.table())
        for label in report.series:
            print(f"  {label}: {report.final_ratio(label):.1%} of the ceiling at the largest size")
        print(f"  plot: {plots.save(report, out / f'{day}-{ex.name}.png')}")
    return 0


# ---- sass ---------------------------------------------------------------------------------------

def cmd_sass(args) -> int:
    from grader import sass

    if args.compare:
        print(sass.compare(args.file, args.compare, arch=args.arch, kernel=args.kernel))
    else:
        print(sass.report(args.file, arch=args.arch, kernel=args.kernel))
    return 0


# ---- stubs / progress / release -----------------------------------------------------------------

def cmd_stubs(args) -> int:
    from grader import stubs

    def ask(path: Path) -> bool:
        if not sys.stdin.isatty():
            return False
        reply = input(f"{path.relative_to(paths.ROOT)} has your edits. Replace it with the new stub? [y/N] ")
        return reply.strip().lower() in ("y", "yes")

    for path, what in stubs.generate(args.day, force=args.force, ask=ask):
        print(f"{path.relative_to(paths.ROOT)}: {what}")
    return 0


def cmd_progress(args) -> int:
    from grader import stubs

    from grader import hints

    state = paths.STATE / "progress.json"
    checked = json.loads(state.read_text()) if state.is_file() else {}
    used = hints.levels_used()
    for day, title in TITLES.items():
        exs = exercises.day_exercises(day)
        if not exs:
            print(f"{day}  {title:<60} coming")
            continue
        edited = sum(stubs.status(paths.DAYS / day / ex.source) == "edited" for ex in exs)
        last = checked.get(day)
        result = (f"last check {last['passed']}/{last['total']} passed ({last['when']})" if last
                  else f"not checked yet: python -m grader check {day}")
        helped = [f"{k.split('/')[1]} {lv}" for k, lv in used.items() if k.startswith(day + "/")]
        result += f"; hint levels used: {', '.join(helped)}" if helped else ""
        print(f"{day}  {title:<60} {len(exs)} exercises, {edited} edited; {result}")
    return 0


def cmd_release(args) -> int:
    from grader import nbgrader_course

    langs = nbgrader_course.LANGS if args.lang == "both" else (args.lang,)
    folder = {"en": paths.NOTEBOOKS, "zh": paths.NOTEBOOKS / "zh"}
    days = ([paths.day_name(d) for d in args.days] if args.days else
            [d for d in _days(None) if all((folder[lg] / f"{d}.ipynb").is_file() for lg in langs)])
    course = nbgrader_course.build_course(Path(args.course_dir), days=days, force=args.force, lang=args.lang)
    assignments = [nbgrader_course.assignment_name(d, lg) for d in days for lg in langs]
    problems = [p for a in assignments for p in nbgrader_course.check_release(course, a)]
    for p in problems:
        print(f"PROBLEM: {p}")
    print(f"release built in {course / 'release'} for {', '.join(assignments)}"
          + ("" if not problems else f"; {len(problems)} problems"))
    return 1 if problems else 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m grader", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, metavar="command")
    sub.add_parser("show-config", help="versions, GPU, cache and include paths").set_defaults(fn=cmd_show_config)
    c = sub.add_parser("compile", help="compile stubs and solutions with NVRTC (no GPU needed)")
    c.add_argument("target", nargs="?", help="dayNN or a .cu file (default: every day)")
    c.add_argument("--arch", action="append", help="sm_80, sm_90, ... (repeatable; default both)")
    c.set_defaults(fn=cmd_compile)
    c = sub.add_parser("check", help="run a day's tests, one child process per exercise")
    c.add_argument("day")
    c.add_argument("--solutions", action="store_true", help="check solutions/ instead of days/")
    c.add_argument("--timeout", type=float, default=900, help="seconds per exercise (default 900)")
    c.set_defaults(fn=cmd_check)
    c = sub.add_parser("bench", help="benchmark a day's exercises; PNG plots")
    c.add_argument("day")
    c.add_argument("--quick", action="store_true", help="fewer sizes")
    c.add_argument("--out", default=str(paths.STATE / "plots"), help="folder for the PNG plots")
    c.set_defaults(fn=cmd_bench)
    c = sub.add_parser("sass", help="SASS histogram and resource use of a .cu file")
    c.add_argument("file")
    c.add_argument("--compare", metavar="OTHER", help="a second version of the file to compare with")
    c.add_argument("--arch", default="sm_90")
    c.add_argument("--kernel", help="only this kernel")
    c.set_defaults(fn=cmd_sass)
    c = sub.add_parser("stubs", help="regenerate stubs from solutions/ (keeps your edits)")
    c.add_argument("day", nargs="?")
    c.add_argument("--force", action="store_true", help="replace stubs even where you edited them")
    c.set_defaults(fn=cmd_stubs)
    sub.add_parser("progress", help="one line per day").set_defaults(fn=cmd_progress)
    c = sub.add_parser("release", help="build the nbgrader course and its release")
    c.add_argument("course_dir")
    c.add_argument("days", nargs="*", help="days to release (default: every day with exercises and a notebook)")
    c.add_argument("--force", action="store_true", help="rebuild an existing course directory's release")
    c.add_argument("--lang", choices=("en", "zh", "both"), default="en",
                   help="the lessons' language: dayNN (en), dayNN-zh (zh), or both (default en)")
    c.set_defaults(fn=cmd_release)
    for name in COMMAND_MODULES:
        if importlib.util.find_spec(f"grader.{name}") is None:
            continue
        module = importlib.import_module(f"grader.{name}")
        c = sub.add_parser(getattr(module, "COMMAND", name), help=module.HELP)
        module.add_arguments(c)
        c.set_defaults(fn=module.main)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.fn(args)
    except (ValueError, KeyError, FileNotFoundError, AssertionError, compiler.CompileError, device.NoGPU) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
