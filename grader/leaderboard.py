"""`python -m grader leaderboard COURSE_DIR dayNN [exercise]`: the speed of every student's passing
kernel, measured so that a time cannot be faked.

Each (student, exercise) is timed in its own locked-down child (grader.isolation: a copy of the
submitted .cu files, a scrubbed environment, limits, results on a pipe with a nonce). The child runs
the exercise's own check (numpy float64 reference, NaN-poisoned outputs) on its largest case
(on the emulator, its smallest):

1. a first run, checked, which also counts the bytes the launches' arrays hold (the traffic of a
   perfect kernel) and the bytes they changed (written, at least);
2. warm-up runs on fresh inputs, each checked; then the last inputs again, checked: a kernel that
   skips repeated inputs leaves its poisoned output unwritten;
3. timed runs, each on fresh inputs (a new seed, new buffers) with the L2 flushed before its first
   launch, each launch timed with CUDA events, and the output checked after the timing: a kernel that
   caches results between launches, or writes only on its first launch, fails here.

Each run is checked and has its own time budget (grader.isolation's, from the solution's time). A
kernel that fails, crashes or hangs in its first run is "not passing" (so is one the gradebook gives
less than full points: it is not run); one that goes wrong in a later run is "rejected", naming the
run and the rule. A time below the physical bound (bytes written / the GPU's peak bandwidth, or flops /
its peak tensor rate) is rejected too; outliers (runs far from the median) are reported. The result of
a kernel is the median, as a share of its ceiling: the larger of bytes / measured copy bandwidth and
flops / measured cuBLAS rate, both measured in the same child before the student's code is loaded.
Results go to a table, `leaderboard/<day>.csv` and `leaderboard/<day>.png` in the course folder. On the
emulator nothing is timed, but every rule about inputs and outputs holds: a cheating kernel is
rejected there too.
"""
from __future__ import annotations

import csv
import json
import secrets
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from grader import child, device, exercises, isolation, paths, tables
from grader.messages import say

COMMAND = "leaderboard"
HELP = "time every student's passing kernel of a day under cheat-proof rules; table, CSV and plot"
WARMUP, RUNS = 3, 20                 # on a GPU
EMULATOR_WARMUP, EMULATOR_RUNS = 1, 2
OUTLIER_MADS = 5.0                   # a run this many (scaled) median absolute deviations from the median
#: Tensor-core FLOP per SM per clock of the densest format of any GPU the course runs on (sm_90 FP8):
#: a time below flops / (SMs x clock x this) is not physical.
PEAK_FLOP_PER_SM_CLOCK = 8192
SOLUTION = say("leaderboard.solution", "en")  # the course's row (the CSV's id; shown in the lessons' language)


class Rejected(AssertionError):
    """A run's output was wrong: the message names the run (and so the rule it broke)."""


# ---- the child: measuring one submission ----------------------------------------------------------

class _Launches:
    """Stands in for `device.launch` while an exercise's check runs: on a GPU each launch is timed with
    CUDA events (the L2 flushed before a run's first launch); with `account`, the bytes the launch's
    arrays hold and the bytes it changed are counted."""

    def __init__(self, launch):
        self.launch, self.timed, self.account = launch, device.current().timed, False
        self.ms, self.count, self.nbytes, self.written = 0.0, 0, 0, 0

    def reset(self) -> None:
        self.ms, self.count = 0.0, 0

    def __call__(self, kernel, grid, block, args, shared_mem: int = 0, what: str | None = None) -> None:
        import numpy as np

        def raw(a):  # the array's bytes, on the host
            return np.ascontiguousarray(device.to_host(a)).reshape(-1).view(np.uint8)

        arrays = list({id(a): a for a in args if hasattr(a, "nbytes") and not isinstance(a, np.generic)}.values())
        before = [raw(a).copy() for a in arrays] if self.account else []
        if self.timed:
            self.ms += self._timed(kernel, grid, block, args, shared_mem, what or getattr(kernel, "name", "kernel"))
        else:
            self.launch(kernel, grid, block, args, shared_mem=shared_mem, what=what)
        self.count += 1
        if self.account:
            self.nbytes += sum(a.nbytes for a in arrays)
            self.written += sum(int(np.count_nonzero(b != raw(a))) for a, b in zip(arrays, before))

    def _timed(self, kernel, grid, block, args, shared_mem: int, what: str) -> float:
        from grader import bench

        cp = device.require_gpu()
        if self.count == 0:
            bench.flush_l2()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        try:
            kernel(tuple(grid), tuple(block), tuple(args), shared_mem=shared_mem)
        except (cp.cuda.runtime.CUDARuntimeError, cp.cuda.driver.CUDADriverError) as e:
            raise device.KernelFault(say("leaderboard.launch_failed", what=what, error=e)) from None
        stop.record()
        device.synchronize(what)
        return cp.cuda.get_elapsed_time(start, stop)


def schedule(warmup: int, runs: int) -> list[str]:
    """What each run is, in order (the rules of the module's docstring), in English: the child keys on it."""
    return ([say("leaderboard.run.first", "en")]
            + [say("leaderboard.run.warmup", "en", k=k, n=warmup) for k in range(1, warmup + 1)]
            + [say("leaderboard.run.repeat", "en")]
            + [say("leaderboard.run.timed", "en", k=k, n=runs) for k in range(1, runs + 1)])


def _run_said(plan: list[str], i: int) -> str:
    """Run `i` of a `schedule` as the lessons' language names it."""
    warmup = sum(what.startswith("warm-up") for what in plan)
    if i == 0:
        return say("leaderboard.run.first")
    if i <= warmup:
        return say("leaderboard.run.warmup", k=i, n=warmup)
    if i == warmup + 1:
        return say("leaderboard.run.repeat")
    return say("leaderboard.run.timed", k=i - warmup - 1, n=len(plan) - warmup - 2)


def _fresh_seeds():
    last = None
    while True:
        seed = secrets.randbelow(2**31)  # never $COURSE_SEED: every run gets new inputs
        if seed != last:
            last = seed
            yield seed


def runs(ex, module, case: dict, plan: list[str]):
    """Run the exercise's check on `case` once per entry of `plan` (see `schedule`), yielding what each
    run measured: the first its traffic (bytes, written, launches), a timed run its `ms` (on a GPU).
    Rejected names a run whose output was wrong."""
    from grader import runner

    launches = _Launches(device.launch)
    seeds, seed = _fresh_seeds(), None
    device.launch = launches
    try:
        for i, what in enumerate(plan):
            seed = seed if what.startswith("a repeat") else next(seeds)
            launches.reset()
            launches.account = i == 0
            try:
                runner.check(ex, case, module, seed=seed)
            except AssertionError as e:
                raise Rejected(say("leaderboard.wrong", run=_run_said(plan, i),
                                   error=(str(e).splitlines() or [""])[0])) from None
            if i == 0:
                yield {"bytes": launches.nbytes, "written": launches.written, "launches": launches.count,
                       "flops": flops(case)}
            else:
                yield {"ms": launches.ms} if what.startswith("timed") and launches.timed else {}
    finally:
        device.launch = launches.launch


def flops(case: dict) -> float:
    """Floating-point operations a case needs at least: 2mnk for a matrix product, 4 x heads x q_len x
    kv_len x head_dim for attention (half when causal); 0 for the rest."""
    if {"m", "n", "k"} <= case.keys():
        return 2.0 * case["m"] * case["n"] * case["k"]
    if {"heads", "q_len", "kv_len", "head_dim"} <= case.keys():
        f = 4.0 * case["heads"] * case["q_len"] * case["kv_len"] * case["head_dim"]
        return f / 2 if case.get("causal") else f
    return 0.0


def ceilings(case: dict) -> dict:
    """The GPU's measured copy bandwidth (and cuBLAS rate, for a case that counts flops), and its peak
    bandwidth and tensor rate (the physical bounds); nothing where kernels are not timed (the emulator)."""
    if not device.current().timed:
        return {}
    from grader import bench

    cp = device.require_gpu()
    attrs = cp.cuda.Device().attributes
    copy = bench.copy_ceiling(1 << 30)
    mm = bench.matmul_ceiling(4096, 4096, 4096).tflops if flops(case) else float("inf")
    peak_bw = 2e3 * attrs.get("MemoryClockRate", 0) * attrs.get("GlobalMemoryBusWidth", 0) / 8
    return {"copy_gbps": copy.gbps, "matmul_tflops": mm,
            "peak_gbps": peak_bw / 1e9 if peak_bw else 1.5 * copy.gbps,  # no clock reported: a safe margin
            "peak_tflops": attrs["MultiProcessorCount"] * attrs.get("ClockRate", 2_000_000) * 1e3
                           * PEAK_FLOP_PER_SM_CLOCK / 1e12}


def _child(request: dict) -> None:
    """In the locked-down child: each protocol "case" is one run of `schedule` on the request's case."""
    send = child.result_channel()
    from grader import runner

    ex = exercises.get(request["day"], request["name"])
    limits = ceilings(request["cases"][0])  # before the student's code is loaded
    try:
        module = runner.load(ex)
    except Exception as e:  # noqa: BLE001 - compile errors, a missing technique
        send(event="compiled", ok=False, message=str(e))
        return
    send(event="compiled", ok=True, message="")
    measured = runs(ex, module, request["cases"][0], request["plan"])
    for i in range(len(request["plan"])):
        send(event="start", index=i)
        start, status, message, data = time.perf_counter(), "passed", "", {}
        try:
            data = {**next(measured), **(limits if i == 0 else {})}
        except Rejected as e:
            status, message = "failed", str(e)
        except device.KernelFault as e:
            status, message = "crashed", str(e)
        send(event="end", index=i, status=status, message=message, seed=None, data=data,
             seconds=time.perf_counter() - start)
        if status != "passed":
            break
    send(event="done")


# ---- the parent: one entry per (student, exercise) ------------------------------------------------

@dataclass
class Entry:
    student: str
    exercise: str
    status: str                 # timed | rejected | not timed (emulator) | not passing
    median_ms: float | None = None
    of_ceiling: float | None = None
    runs: int = 0
    outliers: int = 0
    bound_ms: float | None = None
    reason: str = ""


def timed_case(ex) -> dict:
    """The case the leaderboard times: the exercise's largest; on the emulator, its smallest that runs."""
    from grader.emulator.scaling import case_size

    cases = isolation.runnable_cases(ex) or list(ex.cases)
    return (max if device.current().full_sizes else min)(cases, key=case_size)


def time_submission(ex, source_dir, student: str, *, case: dict | None = None, warmup: int | None = None,
                    runs: int | None = None) -> Entry:
    """Time one submission's kernel (the .cu files in `source_dir`) in a locked-down child: a kernel
    that fails, crashes or hangs in its first run is "not passing"; one that goes wrong later is
    "rejected"."""
    slow = not device.current().full_sizes  # the emulator: fewer runs
    plan = schedule((EMULATOR_WARMUP if slow else WARMUP) if warmup is None else warmup,
                    (EMULATOR_RUNS if slow else RUNS) if runs is None else runs)
    case = case or timed_case(ex)
    budget = isolation.case_budgets(ex, [case], device.backend())[0]
    outcome = isolation.run_locked(ex, [case] * len(plan), source_dir=source_dir, budgets=[budget] * len(plan),
                                   entry="grader.leaderboard", options={"plan": plan})
    wrong = next((r for r in outcome.cases if r.status != "passed"), None)
    if wrong is not None:
        why = (wrong.message or outcome.message or wrong.status).splitlines()[0]
        return Entry(student, ex.key, "not passing" if wrong is outcome.cases[0] else "rejected", reason=why)
    first = outcome.cases[0].data
    return verdict(student, ex.key, {**first, "ms": [r.data["ms"] for r in outcome.cases if "ms" in r.data]})


def verdict(student: str, exercise: str, data: dict) -> Entry:
    """An entry from a child's measurements: rejected below the physical bound, outliers counted, the
    median as a share of the ceiling."""
    times = data["ms"]
    if not times:
        return Entry(student, exercise, "not timed (emulator)", reason=say("leaderboard.checks_passed"))
    median = statistics.median(times)
    bound = max(data["written"] / (data["peak_gbps"] * 1e9), data["flops"] / (data["peak_tflops"] * 1e12)) * 1e3
    fastest = min(times)
    if fastest < bound:
        return Entry(student, exercise, "rejected", median, runs=len(times), bound_ms=bound,
                     reason=say("leaderboard.below_bound", fastest=f"{fastest:.4g}", bound=f"{bound:.4g}",
                                written=data["written"], gbps=f"{data['peak_gbps']:.0f}",
                                flops=f"{data['flops']:.3g}", tflops=f"{data['peak_tflops']:.0f}"))
    mad = statistics.median(abs(t - median) for t in times) * 1.4826
    outliers = [t for t in times if abs(t - median) > max(OUTLIER_MADS * mad, 0.05 * median)]
    ceiling = max(data["bytes"] / (data["copy_gbps"] * 1e9), data["flops"] / (data["matmul_tflops"] * 1e12)) * 1e3
    note = say("leaderboard.outliers", count=len(outliers), slowest=f"{max(times) / median:.2f}") if outliers else ""
    return Entry(student, exercise, "timed", median, ceiling / median if ceiling else None, len(times),
                 len(outliers), bound, note)


def _submissions(course_dir: Path, day: str, students) -> dict[str, Path]:
    """student -> their submitted folder for the day (the English assignment first, else the Chinese)."""
    from grader import nbgrader_course as course

    found = {}
    for lang in course.LANGS:
        assignment = course.assignment_name(day, lang)
        for folder in sorted((course_dir / "submitted").glob(f"*/{assignment}")):
            found.setdefault(folder.parent.name, folder)
    if students:
        missing = sorted(set(students) - set(found))
        if missing:
            raise ValueError(say("leaderboard.no_submission", day=day, students=", ".join(missing),
                                 folder=course_dir / "submitted"))
        found = {s: found[s] for s in students}
    if not found:
        raise ValueError(say("leaderboard.nothing", day=day, folder=course_dir / "submitted"))
    return found


def _passing(course_dir: Path, folder: Path, ex) -> bool | None:
    """Whether the gradebook gives the exercise's grade cell full points (None: not graded yet)."""
    from nbgrader.api import MissingEntry

    from grader import nbgrader_course as course

    student, assignment = folder.parent.name, folder.name
    with course.gradebook(course_dir) as gb:
        try:
            sub = gb.find_submission(assignment, student)
        except MissingEntry:
            return None
        grades = [g for nb in sub.notebooks for g in nb.grades if g.cell.name == f"{ex.day}-{ex.name}"]
        return all(g.score >= g.max_score for g in grades) if grades else None


def leaderboard(course_dir, day, exercise: str | None = None, students=None, **timing) -> list[Entry]:
    """Time every passing submission of a day (or one exercise) and the course's solution."""
    from grader.classgrade import course_folder

    course_dir, day = course_folder(course_dir), paths.day_name(day)
    exs = [exercises.get(day, exercise)] if exercise else exercises.day_exercises(day)
    if not exs:
        raise ValueError(say("leaderboard.no_exercises", day=day))
    folders = _submissions(course_dir, day, students)
    entries = []
    for ex in exs:
        if paths.SOLUTIONS.is_dir():  # a student edition has no solution row
            entries.append(time_submission(ex, paths.SOLUTIONS / day, SOLUTION, **timing))
        for student, folder in folders.items():
            if _passing(course_dir, folder, ex) is False:
                entries.append(Entry(student, ex.key, "not passing",
                                     reason=say("leaderboard.not_full")))
            else:
                entries.append(time_submission(ex, folder, student, **timing))
    return entries


# ---- output -------------------------------------------------------------------------------------

def _ranked(entries: list[Entry]) -> list[Entry]:
    order = {"timed": 0, "not timed (emulator)": 1, "rejected": 2, "not passing": 3}
    return sorted(entries, key=lambda e: (e.exercise, order.get(e.status, 9), -(e.of_ceiling or 0), e.median_ms or 0))


def write_csv(entries: list[Entry], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(asdict(entries[0])))
        writer.writeheader()
        writer.writerows(asdict(e) for e in _ranked(entries))
    return path


def plot(entries: list[Entry], path: Path) -> Path | None:
    """One horizontal bar chart per exercise: each timed kernel's median as % of its ceiling."""
    timed = [e for e in entries if e.status == "timed" and e.of_ceiling is not None]
    if not timed:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from grader import plots

    keys = list(dict.fromkeys(e.exercise for e in timed))
    fig, axes = plt.subplots(len(keys), 1, figsize=(8, 1.2 + 0.35 * len(timed)), squeeze=False)
    for ax, key in zip(axes[:, 0], keys):
        rows = sorted((e for e in timed if e.exercise == key), key=lambda e: e.of_ceiling)
        ax.barh([_who(e.student) for e in rows], [100 * e.of_ceiling for e in rows],
                color=["tab:gray" if e.student == SOLUTION else "tab:blue" for e in rows])
        ax.set_title(key)
        ax.set_xlabel(say("leaderboard.xlabel", plots.label_language()))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _who(student: str) -> str:
    return say("leaderboard.solution") if student == SOLUTION else student


_STATUS = {"timed": "leaderboard.status.timed", "rejected": "leaderboard.status.rejected",
           "not timed (emulator)": "leaderboard.status.emulator",
           "not passing": "leaderboard.status.not_passing"}


def table(entries: list[Entry]) -> str:
    """The ranked entries under a title, in the lessons' language (grader.tables: by display width)."""
    headers = [say(k) for k in ("leaderboard.head.exercise", "leaderboard.head.student", "leaderboard.head.status",
                                "leaderboard.head.median", "leaderboard.head.share", "leaderboard.head.notes")]
    rows = [(e.exercise, _who(e.student), say(_STATUS[e.status]), f"{e.median_ms:.4g}" if e.median_ms else "",
             f"{e.of_ceiling:.0%}" if e.of_ceiling else "", e.reason) for e in _ranked(entries)]
    return say("leaderboard.title") + "\n" + tables.render(headers, rows, right=tuple(headers[3:5]))


def add_arguments(parser) -> None:
    parser.add_argument("course_dir", help="the nbgrader course folder (python -m grader release)")
    parser.add_argument("day", help="dayNN")
    parser.add_argument("exercise", nargs="?", help="one exercise (default: every exercise of the day)")
    parser.add_argument("--students", nargs="+", metavar="ID", help="these students only")
    parser.add_argument("--runs", type=int, metavar="N",
                        help=f"timed runs (default {RUNS}; {EMULATOR_RUNS} on the emulator)")
    parser.add_argument("--warmup", type=int, metavar="N",
                        help=f"warm-up runs (default {WARMUP}; {EMULATOR_WARMUP} on the emulator)")


def main(args) -> int:
    entries = leaderboard(args.course_dir, args.day, args.exercise, args.students, warmup=args.warmup, runs=args.runs)
    name = paths.day_name(args.day) + (f"-{args.exercise}" if args.exercise else "")
    out = Path(args.course_dir).resolve() / "leaderboard"
    print(table(entries))
    print(say("leaderboard.csv", path=write_csv(entries, out / f"{name}.csv")))
    png = plot(entries, out / f"{name}.png")
    print(say("leaderboard.plot", path=png) if png else say("leaderboard.no_plot"))
    return 0


if __name__ == "__main__":
    _child(json.loads(sys.argv[1]))
