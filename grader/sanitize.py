"""`python -m grader sanitize dayNN`: a day's checks under compute-sanitizer, findings by source line.

Three tools by default: memcheck (out-of-bounds and misaligned accesses to global, local and shared
memory), racecheck (shared-memory hazards: a missing __syncthreads) and synccheck (barriers that not
every thread reaches); `--tool initcheck` adds reads of global memory nothing wrote. Each tool runs each exercise in its own child process (`grader.child`'s protocol),

    compute-sanitizer --tool TOOL python -m grader.sanitize '<request>'

where the child turns cupy's memory pool off first: with the pool on, a write past the end of a small
array lands in memory the pool owns and memcheck sees nothing. The child runs the exercise's first
cases (small shapes: the tools slow kernels down 10-100x) and reports its check result; the parent
reads the sanitizer's report and prints one row per finding: tool, exercise, what, kernel and the
file:line in the student's .cu (kernels are compiled with -lineinfo behind a #line naming the file).

A day may declare DEMOS in its grader/exercises module: kernels with a planted bug (day 4: a missing
__syncthreads, a missing bounds check). They run too unless --no-demos; their findings are expected,
and a demo with no finding means the sanitizer missed a planted bug.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from grader import child, device, exercises, paths, tables
from grader.messages import say, status

HELP = "the day's tests under compute-sanitizer (memcheck, racecheck, synccheck; initcheck on request)"
TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
DEFAULT_TOOLS = TOOLS[:3]  # initcheck (reads of global memory never written) with --tool initcheck
SANITIZER_ENV = "COMPUTE_SANITIZER"  # the compute-sanitizer executable, if not on PATH or in a toolkit

_PREFIX = "========="
# Where a report points. Current form: "at kernel+0x1b0 in /path/file.cu:41" (no " in ..." without
# line info); older form: "at 0x000001b0 in /path/file.cu:41:kernel".
_AT_NEW = re.compile(r"\bat (?P<fn>.+?)\+0x[0-9a-fA-F]+(?: in (?P<file>.+?):(?P<line>\d+))?(?=\s*(?:\[|$))")
_AT_OLD = re.compile(r"\bat 0x[0-9a-fA-F]+ in (?P<file>.+?):(?P<line>\d+):(?P<fn>.+?)(?=\s*(?:\[|$))")
_FRAME = re.compile(r"Device Frame:\s*(?P<fn>.+?)(?:\+0x[0-9a-fA-F]+)? in (?P<file>.+?):(?P<line>\d+)")
_RACE = re.compile(r"^(?P<level>Error|Warning): Race reported between (?P<first>\w+) access")
_AND = re.compile(r"^and (?P<other>\w+) access .*?(?:\[(?P<n>[\d,]+) hazards?\])?$")
_INVALID = re.compile(r"Invalid (?P<space>__\w+__) (?P<access>read|write) of size (?P<size>\d+) bytes?")
#: The sanitizer's words a finding shows in the lessons' language (a race's level, an access's kind).
_WORDS = {"error": "sanitize.level.error", "warning": "sanitize.level.warning", "read": "sanitize.access.read",
          "write": "sanitize.access.write"}
_HAZARDS = re.compile(r"\[(?P<n>[\d,]+) hazards?\]")
_NOT_FINDINGS = re.compile(r"^(COMPUTE-SANITIZER|\w+ SUMMARY|Target application returned|Program hit|"
                           r"Warning: Maximum number|Saved host backtrace|Note:)", re.I)


def _said(name: str) -> str:
    return say(_WORDS[name]) if name in _WORDS else name


@dataclass
class Location:
    kernel: str
    file: str | None = None
    line: int | None = None


@dataclass
class Finding:
    tool: str
    what: str                       # the sanitizer's headline, e.g. "Invalid __global__ write of size 4 bytes"
    kernel: str
    file: str | None = None
    line: int | None = None
    detail: str = ""                # racecheck: the other access(es) of the race
    count: int = 1                  # reports folded into this row (racecheck: hazards)
    race: tuple[str, str, str] | None = None  # racecheck: (level, this access, the other accesses), as `what` says
    lines: tuple[int, ...] = ()     # racecheck: the other accesses' lines, as `detail` says

    @property
    def shown(self) -> str:
        """What was found, in the lessons' language (`what` and `detail` stay as the sanitizer words them)."""
        if self.race:
            level, first, others = self.race
            text = say("sanitize.race", level=_said(level), first=_said(first),
                       others="/".join(_said(o) for o in others.split("/")))
        elif m := _INVALID.fullmatch(self.what):
            text = say("sanitize.invalid", space=m["space"], access=_said(m["access"]), size=m["size"])
        else:
            text = self.what
        return text + (say("sanitize.other_lines", lines=", ".join(map(str, self.lines))) if self.lines else "")

    @property
    def where(self) -> str:
        if self.file is None:
            return "-"
        path = Path(self.file)
        shown = path.relative_to(paths.ROOT) if path.is_absolute() and path.is_relative_to(paths.ROOT) else path
        return f"{shown}:{self.line}"


def _locations(line: str) -> list[Location]:
    """The places one report line points at ("at ..." and "Device Frame: ..." forms)."""
    found = []
    for m in list(_AT_OLD.finditer(line)) or list(_AT_NEW.finditer(line)) or list(_FRAME.finditer(line)):
        found.append(Location(m.group("fn").strip(), m.group("file"), int(m.group("line")) if m.group("line") else None))
    return found


def _blocks(output: str) -> list[list[str]]:
    """The sanitizer's lines (prefix stripped), grouped: a report starts at an unindented line."""
    blocks: list[list[str]] = []
    for raw in output.splitlines():
        if not raw.startswith(_PREFIX):
            continue
        text = raw[len(_PREFIX):].rstrip()
        if not text.strip():
            blocks.append([])  # a blank sanitizer line ends a report
            continue
        if text.startswith(" " * 2) and blocks and blocks[-1]:
            blocks[-1].append(text.strip())
        else:
            blocks.append([text.strip()])
    return [b for b in blocks if b and not _NOT_FINDINGS.match(b[0])]


def _pick(locations: list[Location], prefer: str | None) -> Location | None:
    """The location in the student's file if there is one (an inlined header can come first); the
    sanitizer may print only the file's name, which then becomes the full path of `prefer`."""
    if prefer:
        for loc in locations:
            if loc.file and Path(loc.file).name == Path(prefer).name:
                return Location(loc.kernel, prefer if "/" not in loc.file else loc.file, loc.line)
    return next((loc for loc in locations if loc.file), locations[0] if locations else None)


def parse(output: str, tool: str, source: str | None = None) -> list[Finding]:
    """Findings in compute-sanitizer's output (other lines are ignored), with identical reports folded
    into one Finding with a count. `source`: the exercise's .cu, whose lines are preferred."""
    if tool not in TOOLS:
        raise ValueError(f"unknown tool {tool!r}: expected one of {', '.join(TOOLS)}")
    folded: dict[tuple, Finding] = {}
    for block in _blocks(output):
        head = block[0]
        race = _RACE.match(head)
        if race:
            first = _locations(head)
            others = [(m.group("other"), _locations(ln), m.group("n")) for ln in block[1:] if (m := _AND.match(ln))]
            at = _pick(first, source)
            kind = (race.group("level").lower(), race.group("first").lower(),
                    "/".join(sorted({o[0].lower() for o in others}) or ["?"]))
            what = "race ({}): {} vs {}".format(*kind)
            lines = tuple(sorted({loc.line for _, locs, _ in others for loc in locs if loc.line is not None}))
            detail = f"other access at line {', '.join(map(str, lines))}" if lines else ""
            count = sum(int(n.replace(",", "")) for _, _, n in others if n) or 1
        else:
            at = _pick([loc for ln in block for loc in _locations(ln)], source)
            what = _AT_NEW.split(head)[0].strip().rstrip(".") if at else head.rstrip(".")
            what = re.sub(r"\s+at\s*$", "", what)
            detail, count, kind, lines = "", 1, None, ()
            hazards = _HAZARDS.search(" ".join(block))
            if hazards:
                count = int(hazards.group("n").replace(",", ""))
        kernel = at.kernel if at else "-"
        key = (what, kernel, at.file if at else None, at.line if at else None, detail)
        if key in folded:
            folded[key].count += count
        else:
            folded[key] = Finding(tool, what, kernel, at.file if at else None, at.line if at else None, detail, count,
                                  kind, lines)
    return list(folded.values())


# ---- running ------------------------------------------------------------------------------------

def find_sanitizer(explicit: str | None = None) -> Path:
    """compute-sanitizer: `explicit`, $COMPUTE_SANITIZER, PATH, $CUDA_HOME or $CUDA_PATH, /usr/local/cuda*."""
    candidates = [explicit] if explicit else []
    candidates += [os.environ.get(SANITIZER_ENV), shutil.which("compute-sanitizer")]
    candidates += [str(Path(os.environ[e]) / "bin/compute-sanitizer") for e in ("CUDA_HOME", "CUDA_PATH")
                   if os.environ.get(e)]
    candidates += ["/usr/local/cuda/bin/compute-sanitizer",
                   *sorted(glob.glob("/usr/local/cuda*/bin/compute-sanitizer"), reverse=True)]
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return Path(c)
    if explicit:
        raise FileNotFoundError(say("sanitize.no_such", path=explicit))
    raise FileNotFoundError(say("sanitize.not_found", env=SANITIZER_ENV))


@dataclass
class Job:
    tool: str
    exercise: exercises.Exercise
    cases: list[dict]
    solutions: bool
    expect: str | None = None       # a demo: the tool that must report its planted bug

    @property
    def demo(self) -> bool:
        return self.expect is not None

    @property
    def label(self) -> str:
        return say("sanitize.demo", name=self.exercise.key) if self.demo else self.exercise.key

    def request(self) -> dict:
        return {"day": self.exercise.day, "name": self.exercise.name, "demo": self.demo, "cases": self.cases}

    def source(self) -> Path:
        if self.demo:
            return paths.course_file(self.exercise.day, self.exercise.source)
        if self.solutions:
            return paths.SOLUTIONS / self.exercise.day / self.exercise.source
        return paths.source_path(self.exercise.day, self.exercise.source)


@dataclass
class Result:
    job: Job
    check: str                      # passed | failed | crashed | timed out | not run
    message: str = ""
    findings: list[Finding] = field(default_factory=list)
    output: str = ""

    @property
    def problem(self) -> str | None:
        """What needs attention, or None: an exercise with findings, a run that did not finish, a planted
        bug that the tool meant to catch it did not report."""
        if self.check in ("not run", "timed out"):
            return say("sanitize.problem.run", check=status(self.check), message=self.message)
        if not self.job.demo and self.findings:
            return say("sanitize.problem.findings", count=len(self.findings))
        if self.job.expect == self.job.tool and not self.findings:
            return say("sanitize.problem.missed")
        return None


def command(sanitizer: Path, job: Job) -> list[str]:
    return child.command("grader.sanitize", job.request(), [str(sanitizer), "--tool", job.tool])


def run_job(sanitizer: Path, job: Job, timeout: float) -> Result:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", paths.KERNELS_ENV: "solutions" if job.solutions else "days"}
    finished = child.run(command(sanitizer, job), env=env, cwd=paths.ROOT, budget=timeout, keep=None)
    findings = parse(finished.output, job.tool, str(job.source()))
    if finished.ended == "timed out":
        return Result(job, "timed out", say("sanitize.timed_out", seconds=f"{timeout:.0f}"), findings, finished.output)
    r = next((e for e in finished.events if e["event"] == "result"), None)
    if r is None:
        return Result(job, "not run", say("sanitize.not_reported", how=finished.how, tail=finished.tail(8)),
                      findings, finished.output)
    return Result(job, r["status"], r["message"], findings, finished.output)


def jobs_for(day, tools=DEFAULT_TOOLS, names=None, cases: int = 3, demos: bool = True, solutions: bool = False,
             demos_only: bool = False) -> list[Job]:
    """The (tool, exercise) runs for a day: its exercises' first `cases` cases, then its DEMOS."""
    d = paths.day_name(day)
    if cases < 1:
        raise ValueError(say("sanitize.cases", cases=cases))
    unknown = [t for t in tools if t not in TOOLS]
    if unknown or not tools:
        raise ValueError(say("sanitize.tool", tool=repr(unknown[0] if unknown else None), tools=", ".join(TOOLS)))
    exs = [exercises.get(d, n) for n in names] if names else exercises.day_exercises(d)
    if not exs:
        raise ValueError(say("sanitize.no_exercises", day=d))
    planted = demo_exercises(d) if (demos or demos_only) and not names else []
    if demos_only and not planted:
        raise ValueError(say("sanitize.no_demos", day=d))
    runs = ([] if demos_only else [(ex, None) for ex in exs]) + planted
    return [Job(t, ex, list(ex.cases[:cases]), solutions, expect) for t in tools for ex, expect in runs]


def demo_exercises(day) -> list[tuple[exercises.Exercise, str]]:
    """A day's planted-bug kernels and the tool meant to catch each: DEMOS in its exercises module (those
    present: a student edition has none, a planted bug being the exercise's answer less one line)."""
    import importlib

    module = importlib.import_module(f"grader.exercises.{paths.day_name(day)}")
    return [(ex, tool) for ex, tool in getattr(module, "DEMOS", ())
            if paths.course_file(ex.day, ex.source).is_file()]


def run(day, tools=DEFAULT_TOOLS, names=None, cases: int = 3, demos: bool = True, solutions: bool | None = None,
        sanitizer: str | None = None, jobs: int = 3, timeout: float = 600, log_dir: str | None = None,
        demos_only: bool = False) -> list[Result]:
    """Run a day's checks under compute-sanitizer (see the module's doc), print the table and what
    needs attention; returns the results."""
    solutions = paths.use_solutions() if solutions is None else solutions
    planned = jobs_for(day, tools, names, cases, demos, solutions, demos_only)
    if jobs < 1 or timeout <= 0:
        raise ValueError(say("sanitize.jobs", jobs=jobs, timeout=timeout))
    if device.why_not_hardware():
        raise device.NoGPU(say("sanitize.needs_gpu", reason=device.why_not_hardware()))
    exe = find_sanitizer(sanitizer)
    print(say("sanitize.start", runs=len(planned), exe=exe, folder="solutions/" if solutions else "days/",
              cases=cases), flush=True)
    with ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(lambda j: run_job(exe, j, timeout), planned))
    if log_dir:
        folder = Path(log_dir)
        folder.mkdir(parents=True, exist_ok=True)
        for r in results:
            (folder / f"{r.job.tool}-{'demo-' if r.job.demo else ''}{r.job.exercise.name}.log").write_text(r.output)
    print(table(results))
    problems = [say("sanitize.problem.line", tool=r.job.tool, label=r.job.label, problem=r.problem)
                for r in results if r.problem]
    print("\n".join(problems) if problems else say("sanitize.clean") + (
        say("sanitize.clean_demos") if any(r.job.demo for r in results) else ""))
    return results


def table(results: list[Result]) -> str:
    """One row per finding (or per clean run), in the lessons' language, lined up by display width."""
    headers = [say(k) for k in ("sanitize.head.tool", "sanitize.head.exercise", "sanitize.head.check",
                                "sanitize.head.finding", "sanitize.head.kernel", "sanitize.head.where",
                                "sanitize.head.count")]
    rows = []
    for r in results:
        check = status(r.check)
        if not r.findings:
            rows.append((r.job.tool, r.job.label, check, say("sanitize.no_finding"), "-", "-", "-"))
        for f in r.findings:
            rows.append((r.job.tool, r.job.label, check, _cut(f.shown), _cut(f.kernel), f.where, f.count))
    return tables.render(headers, rows, right=(headers[-1],))


WIDTH = 64  # the widest a finding or kernel name gets (a templated kernel's signature can be long)


def _cut(text: str) -> str:
    return text if len(text) <= WIDTH else text[:WIDTH - 3] + "..."


# ---- the command ---------------------------------------------------------------------------------

def add_arguments(parser) -> None:
    parser.add_argument("day")
    parser.add_argument("--solutions", action="store_true", help="check solutions/ instead of days/")
    parser.add_argument("--tool", action="append", choices=TOOLS, help="repeatable (default: memcheck, racecheck, synccheck)")
    parser.add_argument("--exercise", action="append", metavar="NAME", help="only this exercise (repeatable)")
    parser.add_argument("--cases", type=int, default=3, help="the first N cases of each exercise (default 3)")
    parser.add_argument("--no-demos", action="store_true", help="skip the day's planted-bug demos")
    parser.add_argument("--demos-only", action="store_true", help="only the day's planted-bug demos")
    parser.add_argument("--sanitizer", metavar="PATH", help=f"compute-sanitizer to use (default: ${SANITIZER_ENV}, "
                        "PATH, the CUDA toolkit)")
    parser.add_argument("--jobs", type=int, default=3, help="runs at once (default 3)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per run (default 600)")
    parser.add_argument("--log-dir", metavar="DIR", help="keep each run's full sanitizer output here")


def main(args) -> int:
    if args.solutions or paths.use_solutions():
        paths.solutions_dir("sanitize --solutions")
    results = run(args.day, tuple(args.tool or DEFAULT_TOOLS), args.exercise, args.cases, not args.no_demos,
                  args.solutions or paths.use_solutions(), args.sanitizer, args.jobs, args.timeout, args.log_dir,
                  args.demos_only)
    return 1 if any(r.problem for r in results) else 0


# ---- the child, under the sanitizer -------------------------------------------------------------

def _check(request: dict) -> dict:
    """Turn cupy's memory pool off, compile, run the cases (every one: the sanitizer watches them all);
    the first failure, or the first crash (which ends the run)."""
    from grader import runner

    device.require_gpu().cuda.set_allocator(None)  # every array its own cudaMalloc: memcheck sees its bounds
    day = paths.day_name(request["day"])
    if request["demo"]:
        ex = next(e for e, _ in demo_exercises(day) if e.name == request["name"])
        path = paths.course_file(day, ex.source)
    else:
        ex = exercises.get(day, request["name"])
        path = runner.source_of(ex)
    result = {"status": "passed", "message": ""}
    try:
        module = device.load(path)
    except Exception as e:  # noqa: BLE001 - compile errors and missing files are reported
        return {"status": "failed", "message": str(e).splitlines()[0]}
    for case in request["cases"]:
        try:
            runner.check(ex, case, module)
        except AssertionError as e:  # the first failure is reported; the later cases still run
            if result["status"] == "passed":
                result = {"status": "failed", "message": f"{exercises.case_id(case)}: {str(e).splitlines()[0]}"}
        except device.KernelFault as e:
            return {"status": "crashed", "message": f"{exercises.case_id(case)}: {e}"}
    return result


def _child(request: dict, send) -> None:
    send(event="result", **_check(request))


if __name__ == "__main__":
    child.main(_child)
