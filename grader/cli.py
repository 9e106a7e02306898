"""`python -m grader ...`: the course's command line. `--help` lists the commands (messages.CATALOGUE's
"help.commands", in the lessons' language, as is every help text: `_Parser` finds each one's Chinese by
its English among the catalogue's help.* entries).

Commands with their own module (`grader/<command>.py`) declare HELP, add_arguments(parser) and
main(args); they are listed in COMMAND_MODULES. Every command's parser is a `_Parser`: a bad argument
gets one line, and a number an option takes (`type=int` or `float`: counts, sizes, seconds) must be
positive (a `--seed` may be 0). `main` turns the errors a command raises into one line on stderr and
exit status 2.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import math
import os
import platform
import re
import sys
import time
from pathlib import Path

from grader import compiler, days, device, exercises, paths
from grader.messages import helped, phrased, said, say, status

COMMAND_MODULES = ("sanitize", "autotune", "hints", "debug", "classgrade", "leaderboard", "profile",
                   "student_notebooks", "answers", "student_edition", "unlock")


def _days(arg: str | None) -> list[str]:
    return [days.day_name(arg)] if arg else exercises.days_with_exercises()


def _cu_file(arg: str) -> Path:
    """The .cu file named on the command line, or a clear error saying what it is instead."""
    path = Path(arg)
    if path.is_dir():
        raise ValueError(say("cli.folder", arg=arg))
    if path.suffix != ".cu":
        raise ValueError(say("cli.not_cu", arg=arg))
    if not path.is_file():
        raise FileNotFoundError(say("cli.no_file", arg=arg))
    return path


def _no_kernel(path: Path) -> str:
    return say("cli.no_kernel", path=path)


# ---- show-config --------------------------------------------------------------------------------

def _cuda_version(number: int) -> str:
    """'13.2' from CUDA's 13020; 'none' from 0 (no driver)."""
    return f"{number // 1000}.{number % 1000 // 10}" if number else say("cli.none")


def cmd_show_config(args) -> int:
    import numpy
    from rich.cells import cell_len  # a Chinese character takes two columns

    rows = [("python", platform.python_version()), ("numpy", numpy.__version__)]
    try:
        import cupy

        rows.append(("cupy", cupy.__version__))
        rows.append((say("config.runtime"), _cuda_version(cupy.cuda.runtime.runtimeGetVersion())))
    except ImportError:
        rows.append(("cupy", say("config.not_installed")))
    rows.append(("NVRTC", compiler.nvrtc_version()))
    if device.gpu_available():
        import cupy

        p = device.properties()
        rows += [("GPU", f"{p['name']} ({p['sm']}, {p['sms']} SMs, L2 {p['l2_bytes'] >> 20} MiB, "
                         f"{p['memory_bytes'] / 2**30:.0f} GiB)"),
                 (say("config.driver"), _cuda_version(cupy.cuda.runtime.driverGetVersion()))]
        if why := device.why_not_hardware():  # the emulator: why not a CUDA GPU
            rows.append((say("config.backend"), why))
    else:
        rows.append(("GPU", say("config.no_gpu", why=device.why_no_gpu())))
        rows.append((say("config.without_gpu"), say("config.without_gpu_list")))
    rows.append((say("config.kernels_from"), "solutions/" if paths.use_solutions() else "days/"))
    rows.append((say("config.kernel_cache"),
                 os.environ.get("CUPY_CACHE_DIR", str(Path.home() / ".cupy" / "kernel_cache"))))
    rows.append((say("config.include_paths"), "\n".join(str(d) for d in compiler.include_dirs())))
    rows.append((say("config.options"), " ".join(o for o in compiler.options() if not o.startswith("-I"))))
    width = max(cell_len(k) for k, _ in rows)
    for key, value in rows:
        lines = value.splitlines() or [""]
        print(f"{key}{' ' * (width - cell_len(key))}  {lines[0]}")
        for more in lines[1:]:
            print(f"{'':<{width}}  {more}")
    return 0


# ---- compile ------------------------------------------------------------------------------------

def _targets(arg: str | None) -> list[Path]:
    if arg and (Path(arg).suffix or Path(arg).exists() or "/" in arg):  # a path, not a day
        return [_cu_file(arg)]
    files = []
    for d in _days(arg):
        files += sorted((paths.DAYS / d).glob("*.cu")) + sorted((paths.SOLUTIONS / d).glob("*.cu"))
    return files


def cmd_compile(args) -> int:
    files = _targets(args.target)
    archs = args.arch or list(compiler.ARCHS)
    failed = skipped = 0
    for i, f in enumerate(files, 1):
        for arch in archs:
            start = time.perf_counter()
            rel = f.resolve().relative_to(paths.ROOT) if f.resolve().is_relative_to(paths.ROOT) else f
            needed = compiler.required_arch(f)
            if needed and compiler.arch_number(arch) < needed:  # COURSE_REQUIRE_ARCH: not for this GPU
                skipped += 1
                print(say("cli.compile_skip", i=i, n=len(files), arch=arch, rel=rel, needed=needed), flush=True)
                continue
            try:
                c = compiler.compile_file(f, arch)
                if not c.kernels:
                    raise compiler.CompileError(str(f), _no_kernel(rel))
                print(say("cli.compile_ok", i=i, n=len(files), arch=arch, rel=rel, kernels=", ".join(c.kernels),
                          seconds=time.perf_counter() - start), flush=True)
            except compiler.CompileError as e:
                failed += 1
                print(say("cli.compile_failed", i=i, n=len(files), arch=arch, rel=rel, log=e.log), flush=True)
    total = len(files) * len(archs) - skipped
    print(say("cli.compiled", ok=total - failed, total=total,
              skipped=say("cli.compile_skipped", count=skipped) if skipped else ""))
    return 1 if failed else 0


# ---- check / bench ------------------------------------------------------------------------------

def _only(ex, exs) -> str:
    """pytest's -k for this exercise's tests alone: `test_gemm and not test_gemm_mma and ...`."""
    longer = [o.name for o in exs if o.name != ex.name and f"test_{ex.name}" in f"test_{o.name}"]
    return " and ".join([f"test_{ex.name}", *(f"not test_{name}" for name in longer)])


def _check_row(ex, outcome) -> dict:
    """One exercise's line of the check table (`pytest_plugin.format_table`'s fields) from its outcome."""
    ran = len(outcome.cases) or outcome.total  # a file that does not compile reports no cases
    passed = sum(c.status == "passed" for c in outcome.cases)
    first = next((c for c in outcome.cases if c.status not in ("passed", "not run")), None)
    return {"exercise": ex.key, "status": "passed" if outcome.status == "passed" else "FAILED",
            "passed": passed, "failed": ran - passed, "skipped": len(ex.cases) - ran,
            "ratio": None, "ceiling": None, "case": first,
            "first_failure": "" if outcome.status == "passed" else
            (f"{exercises.case_id(first.case)}: {first.message}" if first and first.message else outcome.message)}


def _ratio(ex, exs, solutions: bool, timeout: float) -> tuple[float | None, str | None]:
    """The exercise's perf test (its ratio to the ceiling measured in the same run), in a child pytest."""
    from grader import isolation

    report = paths.STATE / f"check-{ex.day}-{ex.name}-perf.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.unlink(missing_ok=True)
    cmd = ["-m", "pytest", str(paths.DAYS / ex.day), "-q", "-p", "no:cacheprovider", "-m", "perf", "-k",
           _only(ex, exs), f"--course-report={report}"] + (["--solutions"] if solutions else [])
    isolation.run_child(cmd, exercise=ex.key, timeout=timeout, cwd=paths.ROOT)
    found = json.loads(report.read_text()) if report.is_file() else []
    timed = [r for r in found if r["exercise"] == ex.key and r["ratio"] is not None]
    return (timed[0]["ratio"], timed[0]["ceiling"]) if timed else (None, None)


def cmd_check(args) -> int:
    from grader import isolation, progress, runner
    from grader.pytest_plugin import format_table

    day = paths.day_name(args.day)
    exs = exercises.day_exercises(day)
    if not exs:
        print(say("cli.no_exercises", day=day))
        return 1
    if not device.gpu_available():
        print(say("cli.check_no_gpu", day=day, why=device.why_no_gpu()))
        return 1
    rows = []
    for i, ex in enumerate(exs, 1):
        print(f"[{i}/{len(exs)}] {ex.key} ...", flush=True)
        why = runner.why_not_here(ex)
        if why:
            rows.append({"exercise": ex.key, "status": "skipped", "passed": 0, "failed": 0,
                         "skipped": len(ex.cases), "ratio": None, "ceiling": None, "first_failure": ""})
            print(say("cli.skipped", why=why))
            continue
        row = _check_row(ex, isolation.run_exercise(day, ex.name, solutions=args.solutions, timeout=args.timeout))
        if row["case"] is not None and not args.solutions:
            progress.record_failure(ex.key, row["case"].case, row["case"].seed)  # what `grader debug` replays
        if row["status"] == "passed" and ex.bench is not None and device.current().timed:
            row["ratio"], row["ceiling"] = _ratio(ex, exs, args.solutions, args.timeout)
        rows.append(row)
    print()
    print(format_table(rows))
    for r in rows:
        if r["first_failure"]:
            print(say("cli.first_failure", exercise=r["exercise"], status=status(r["status"]), failure=r["first_failure"]))
    if not args.solutions:
        progress.record(rows, "grader check")
    return 0 if all(r["status"] == "passed" for r in rows) else 1


def cmd_bench(args) -> int:
    from grader import plots, runner

    day = paths.day_name(args.day)
    if not device.current().timed:
        return _memory_statistics(day, Path(args.out))
    if device.why_not_hardware():
        raise device.NoGPU(say("cli.bench_needs_gpu", why=device.why_not_hardware()))
    out = Path(args.out)
    for ex in exercises.day_exercises(day):
        if ex.bench is None:
            continue
        print(say("cli.benchmarking", exercise=ex.key), flush=True)
        report = runner.bench(ex, quick=args.quick, with_solution=True)
        print(report.table())
        for label in report.series:
            print(say("cli.bench_ratio", label=phrased(label), ratio=report.final_ratio(label)))
        print(say("cli.plot", path=plots.save(report, out / f"{day}-{ex.name}.png")))
    return 0


def _memory_statistics(day: str, out: Path) -> int:
    """`bench` on the emulator: nothing is timed; what it measures instead, per benchmarked exercise,
    printed and drawn (a PNG per exercise in `out`)."""
    import matplotlib

    from grader import notebook, plots

    matplotlib.use("Agg")
    print(say("cli.emulator_bench", day=day, why=device.why_not_hardware()), flush=True)
    failed = 0
    for ex in exercises.day_exercises(day):
        if ex.bench is None:
            continue
        try:
            fig = notebook.bench(day, ex.name)
            if fig is not None:
                print(say("cli.pictures", path=plots.write(fig, out / f"{day}-{ex.name}-emulator.png")))
        except (AssertionError, device.KernelFault, compiler.CompileError) as e:
            failed += 1
            print(say("cli.not_measured", exercise=ex.key, error=str(e).splitlines()[0]))
        print(flush=True)
    return 1 if failed else 0


# ---- sass ---------------------------------------------------------------------------------------

def cmd_sass(args) -> int:
    from grader import sass

    if args.compare and args.ptx_map is not None:
        raise ValueError(say("cli.choose_one", first="--compare", second="--ptx-map"))
    for name in filter(None, (args.file, args.compare)):
        compiled, _, _ = sass.load(_cu_file(name), args.arch)  # cached: the report below reuses it
        if not compiled.kernels:
            raise ValueError(_no_kernel(Path(name)))
    if args.ptx_map is not None:
        print(sass.ptx_map(args.file, args.ptx_map or None, arch=args.arch, kernel=args.kernel))
    elif args.compare:
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
        try:
            reply = input(say("cli.replace_stub", path=path.relative_to(paths.ROOT)))
        except EOFError:  # Ctrl-D: no
            print()
            return False
        return reply.strip().lower() in ("y", "yes")

    for path, what in stubs.generate(args.day, force=args.force, ask=ask):
        print(f"{path.relative_to(paths.ROOT)}: {what}")
    return 0


def cmd_progress(args) -> int:
    from rich.cells import cell_len  # a Chinese character takes two columns

    from grader import answers, hints, progress, stubs, unlock
    from grader.language import language

    used, lang, shown, unlocked = hints.levels_used(), language(), answers.seen(), unlock.unlocked()
    width = max(cell_len(days.title(d, lang)) for d in days.NAMES)
    for day in days.NAMES:
        exs, title = exercises.day_exercises(day), days.title(day, lang)
        title += " " * (width - cell_len(title))
        if not exs:
            print(f"{day}  {title} {say('progress.coming')}")
            continue
        edited = sum(stubs.status(paths.DAYS / day / ex.source) == "edited" for ex in exs)
        result = progress.day_summary(day, [ex.key for ex in exs])
        helped = [f"{k.split('/')[1]} {lv}" for k, lv in used.items() if k.startswith(day + "/")]
        result += say("progress.hints", levels=", ".join(helped)) if helped else ""
        result += say("progress.answers", questions=", ".join(f"Q{n}" for n in shown[day])) if shown.get(day) else ""
        result += say("progress.unlocked") if day in unlocked else ""
        print(f"{day}  {title} " + say("progress.day", count=len(exs), edited=edited, result=result))
    return 0


def cmd_release(args) -> int:
    from grader import nbgrader_course

    langs = nbgrader_course.LANGS if args.lang == "both" else (args.lang,)
    chosen = args.days or nbgrader_course.default_days(args.lang)
    if Path(args.course_dir).exists() and not Path(args.course_dir).is_dir():
        raise ValueError(say("cli.release_file", path=args.course_dir))
    try:
        course = nbgrader_course.build_course(Path(args.course_dir), days=chosen, force=args.force, lang=args.lang)
    except FileExistsError as e:
        raise FileExistsError(say("cli.release_force", what=str(e).split(":")[0])) from None
    assignments = [nbgrader_course.assignment_name(d, lg) for d in chosen for lg in langs]
    problems = [p for a in assignments for p in nbgrader_course.check_release(course, a)]
    for p in problems:
        print(say("cli.problem", problem=p))
    print(say("cli.released", path=course / "release", assignments=", ".join(assignments),
              problems=say("cli.problems", count=len(problems)) if problems else ""))
    return 1 if problems else 0


def _number(kind, zero: bool = False):
    """argparse's `type` for a finite number that must be positive (a count, a size, seconds), or
    with `zero` at least 0 (a seed)."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value) or value < 0 or (value == 0 and not zero):
            key = {(False, False): "cli.positive", (False, True): "cli.positive_whole",
                   (True, False): "cli.non_negative", (True, True): "cli.non_negative_whole"}[zero, kind is int]
            raise argparse.ArgumentTypeError(say(key, value=repr(text)))
        return value
    return parse


#: argparse's own error messages (Python 3.11 to 3.13) and the catalogue's words for them.
_ARGPARSE_ERRORS = tuple((re.compile(pattern, re.S), key) for pattern, key in (
    (r"the following arguments are required: (?P<names>.+)", "cli.required"),
    (r"one of the arguments (?P<names>.+) is required", "cli.one_of"),
    (r"unrecognized arguments: (?P<args>.*)", "cli.unrecognized"),
    (r"argument (?P<name>[^:]+): (?P<message>.+)", "cli.argument"),
    (r"invalid choice: (?P<value>.+) \(choose from (?P<choices>.+)\)", "cli.choice"),
    (r"expected one argument", "cli.one_value"),
    (r"expected at least one argument", "cli.some_values"),
    (r"not allowed with argument (?P<other>.+)", "cli.not_allowed"),
    (r"ambiguous option: (?P<option>\S+) could match (?P<matches>.+)", "cli.ambiguous"),
    (r"invalid (?P<kind>\w+) value: (?P<value>.+)", "cli.invalid"),
))


def _argparse_error(message: str) -> str:
    """An error argparse words itself, in the lessons' language (one it does not know: as it is)."""
    for pattern, key in _ARGPARSE_ERRORS:
        if m := pattern.fullmatch(message):
            fields = m.groupdict()
            if "message" in fields:
                fields["message"] = _argparse_error(fields["message"])
            return say(key, **fields)
    return message


class _Parser(argparse.ArgumentParser):
    """The course's parsers (the subcommands' too): a bad argument gets one line, not the usage
    block, and `type=int` / `type=float` options take positive numbers only (`--seed`: 0 too). Their
    help, headings and errors are in the lessons' language."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._positionals.title, self._optionals.title = say("cli.positionals"), say("cli.options")

    def _get_formatter(self):
        formatter = super()._get_formatter()
        add_usage = formatter.add_usage
        formatter.add_usage = lambda usage, actions, groups, prefix=None: add_usage(
            usage, actions, groups, say("cli.usage_prefix") if prefix is None else prefix)
        return formatter

    def error(self, message: str):
        self.exit(2, say("cli.usage", prog=self.prog, message=_argparse_error(message)) + "\n")

    def add_argument(self, *args, **kwargs):
        if kwargs.get("type") in (int, float):
            kwargs["type"] = _number(kwargs["type"], zero="--seed" in args)
        if kwargs.get("help"):
            kwargs["help"] = helped(kwargs["help"])
        return super().add_argument(*args, **kwargs)


def _command(sub, name: str, help: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=helped(help))


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m grader", description=say("help.commands"),
                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, metavar="command")
    _command(sub, "show-config", "versions, GPU, cache and include paths").set_defaults(fn=cmd_show_config)
    c = _command(sub, "compile", "compile stubs and solutions with NVRTC (no GPU needed)")
    c.add_argument("target", nargs="?", help="dayNN or a .cu file (default: every day)")
    c.add_argument("--arch", action="append", help="sm_80, sm_90, ... (repeatable; default both)")
    c.set_defaults(fn=cmd_compile)
    c = _command(sub, "check", "run a day's tests, one child process per exercise")
    c.add_argument("day")
    c.add_argument("--solutions", action="store_true", help="check solutions/ instead of days/")
    c.add_argument("--timeout", type=float, default=900,
                   help="at most this many seconds per case (default 900; a hang is caught sooner)")
    c.set_defaults(fn=cmd_check)
    c = _command(sub, "bench", "benchmark a day's exercises; PNG plots")
    c.add_argument("day")
    c.add_argument("--quick", action="store_true", help="fewer sizes")
    c.add_argument("--out", default=str(paths.STATE / "plots"), help="folder for the PNG plots")
    c.set_defaults(fn=cmd_bench)
    c = _command(sub, "sass", "SASS histogram and resource use of a .cu file")
    c.add_argument("file")
    c.add_argument("--compare", metavar="OTHER", help="a second version of the file to compare with")
    c.add_argument("--arch", default="sm_90")
    c.add_argument("--kernel", help="only this kernel")
    c.add_argument("--ptx-map", nargs="?", const="", metavar="FILTER",
                   help="the SASS each PTX instruction became, by source line; FILTER: opcode prefixes, "
                        "comma-separated (mma, ld.global, cp.async ...; default: memory, mma, shuffles)")
    c.set_defaults(fn=cmd_sass)
    c = _command(sub, "stubs", "regenerate stubs from solutions/ (keeps your edits)")
    c.add_argument("day", nargs="?")
    c.add_argument("--force", action="store_true", help="replace stubs even where you edited them")
    c.set_defaults(fn=cmd_stubs)
    _command(sub, "progress", "one line per day").set_defaults(fn=cmd_progress)
    c = _command(sub, "release", "build the nbgrader course and its release")
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
        c = _command(sub, getattr(module, "COMMAND", name), module.HELP)
        module.add_arguments(c)
        c.set_defaults(fn=module.main)
    return p


def _message(e: BaseException) -> str:
    """An exception as a person reads it: in the lessons' language where the catalogue words it, a
    KeyError without its quotes, an OS error with its file."""
    if (text := said(e)) is not None:
        return text
    if isinstance(e, KeyError) and e.args:
        return str(e.args[0])
    if isinstance(e, OSError) and e.strerror and e.filename:
        return f"{e.filename}: {e.strerror}"
    return str(e) or e.__class__.__name__


def main(argv: list[str] | None = None) -> int:
    """Run a command; what goes wrong is one line on stderr (a compile error: the compiler's log) and
    exit status 2. COURSE_TRACEBACK=1 shows the traceback of an unexpected error instead."""
    args = parser().parse_args(argv)
    try:
        return args.fn(args)
    except KeyboardInterrupt:
        print(say("cli.interrupted"), file=sys.stderr)
        return 130
    except compiler.CompileError as e:
        print(say("cli.compile", path=e.path, sep="\n" if "\n" in e.log else " ", log=e.log), file=sys.stderr)
    except (ValueError, LookupError, OSError, EOFError, AssertionError, device.NoGPU, device.KernelFault) as e:
        print(say("cli.error", message=_message(e)), file=sys.stderr)
    except Exception as e:  # noqa: BLE001 - one line, never a traceback, unless asked for
        if os.environ.get("COURSE_TRACEBACK") == "1":
            raise
        print(say("cli.unexpected", kind=e.__class__.__name__, message=_message(e)), file=sys.stderr)
    return 2
