"""`python -m grader profile dayNN [exercise]`: why a kernel is as fast as it is, one table per kernel.

On a GPU with Nsight Compute, the exercise's benchmark (the one `grader bench` times, each size) runs
in a child process under `ncu` (grader/ncu.py): every call the benchmark makes for your kernel (and,
with --compare, the solution's) is profiled once, after a warm-up, caches flushed, at the boost clock;
the ceilings are not run. The table is shown for the largest size (the one the targets are stated
for; --all-sizes: every size): duration and the benchmark's GB/s or TFLOP/s from it, DRAM and SM
throughput, global sectors per request, bank conflicts, L1/L2 hit rates, achieved and theoretical
occupancy with its limiter, registers, shared memory, tensor-pipe utilisation and the top warp stalls.
The report stays in .course/profiles/ for the Nsight Compute GUI (`ncu-ui`).

Without a GPU (the PTX emulator) the same command runs the largest self-check case the emulator runs
and prints the same table of ESTIMATES (grader/profile_estimates.py): sectors per request, bank
conflicts per source line, the instruction mix, divergence and an H100 occupancy estimate from the
compiled cubin. Nothing is timed there.

`--timeline` (day 14): the capstone's decode step stage by stage, each stage inside an NVTX range
(the `nvtx` package, when installed), under Nsight Systems (`nsys`) where it is installed, with the
per-stage table of CUDA-event times; on the emulator, the per-stage counts of a small block.

The work runs in a child process (`python -m grader.profile '<request>'`), which reports through a
JSON file: the profiler wraps the child, and what the child changes to observe the benchmark (the
benchmark's `measure`, the emulator's `launch`) never touches the caller's process.
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

from grader import device, exercises, ncu, paths, tables
from grader.language import LANG_ENV, language
from grader.messages import phrased, say, word

COMMAND = "profile"
HELP = "profile an exercise's benchmark case: Nsight Compute on a GPU, the emulator's estimates without"
FOLDER = paths.STATE / "profiles"
LABELS = ("yours", "solution")  # the benchmark's series for your kernel and the solution start so


def rows() -> tuple[tuple[str, str, str], ...]:
    """The table: (key, what it is, how to read it), in the lessons' language. ncu.rows and
    profile_estimates.rows fill it."""
    return (
        ("duration", say("profile.duration"), say("profile.duration.how")),
        ("throughput", say("profile.throughput"), say("profile.throughput.how")),
        ("dram", say("profile.dram"), say("profile.dram.how")),
        ("sm", say("profile.sm"), say("profile.sm.how")),
        ("sectors", say("profile.sectors"), say("profile.sectors.how")),
        ("bank_conflicts", say("profile.bank_conflicts"), say("profile.bank_conflicts.how")),
        ("l1", say("profile.l1"), say("profile.l1.how")),
        ("l2", say("profile.l2"), say("profile.l2.how")),
        ("occupancy", say("profile.occupancy"), say("profile.occupancy.how")),
        ("theoretical", say("profile.theoretical"), say("profile.theoretical.how")),
        ("registers", say("profile.registers"), say("profile.registers.how")),
        ("smem", say("profile.smem"), say("profile.smem.how")),
        ("tensor", say("profile.tensor"), say("profile.tensor.how")),
        ("instructions", say("profile.instructions"), say("profile.instructions.how")),
        ("active_threads", say("profile.active_threads"), say("profile.active_threads.how")),
        ("mix", say("profile.mix"), say("profile.mix.how")),
            ("stalls", say("profile.stalls"), say("profile.stalls.how")),
    )


# ---- the parent: run the child, read what it found, print the tables ----------------------------

def _run_child(request: dict, *, solutions: bool, source_dir: str | None, timeout: float,
               wrap=lambda cmd: cmd) -> tuple[dict | None, str]:
    """Run `python -m grader.profile <request>` (inside `wrap`'s profiler command, if any); returns the
    child's JSON result (None if it wrote none) and its output."""
    FOLDER.mkdir(parents=True, exist_ok=True)
    out = FOLDER / f"{request['stem']}.json"
    out.unlink(missing_ok=True)
    cmd = wrap([sys.executable, "-m", "grader.profile", json.dumps({**request, "out": str(out)})])
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": paths.python_path(),
           LANG_ENV: language(),  # the child runs in the course's root: the caller's folder may be what decides
           paths.KERNELS_ENV: "solutions" if solutions or paths.use_solutions() else "days"}
    if source_dir:
        env[paths.SOURCE_DIR_ENV] = str(Path(source_dir).resolve())
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            cwd=paths.ROOT, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output = proc.communicate()[0] + "\n" + say("profile.still_running", seconds=f"{timeout:.0f}")
    return (json.loads(out.read_text()) if out.is_file() else None), output


def _failure(what: str, result: dict | None, output: str) -> str:
    if result and result.get("error"):
        return f"{what}: {result['error']}"
    found = ncu.problem(output)
    tail = " | ".join(output.strip().splitlines()[-3:])
    return f"{what}: {found or say('profile.stopped', tail=tail)}"


def render(found: list[dict], estimates: bool) -> str:
    """One table per kernel (a column per version, a row per rows() entry), the meaning of the stalls it
    shows; with estimates, the memory instructions furthest from their ideal by source line too."""
    missing = say("profile.na_emulator") if estimates else say("profile.na")
    where = say("profile.estimates") if estimates else "Nsight Compute"
    meanings, table_rows, out = ncu.stall_meanings(), rows(), []
    memory = [say("memory.line"), say("memory.space"), say("memory.requests"), say("memory.per_request"),
              say("memory.ideal"), say("memory.instruction")]
    for t in found:
        columns = [phrased(c) + (say("profile.est") if estimates else "") for c in t["columns"]]
        cells_by_row = [[title, *(cells.get(key, missing) for cells in t["columns"].values())]
                        for key, title, _ in table_rows]
        out += ["", f"{t['kernel']} ({where})", tables.render([say("profile.metric"), *columns], cells_by_row)]
        reasons = sorted({r for cells in t["columns"].values() for r in re.findall(r"(\w+) [\d.]+", cells.get("stalls", ""))
                          if r in meanings})
        out += [say("profile.legend_row", title=r, meaning=meanings[r]) for r in reasons]
        for column, lines in t.get("lines", {}).items():
            if lines:
                out += ["", say("profile.furthest", kernel=t["kernel"], column=phrased(column)),
                        tables.render(memory,
                                      [[r["line"], r["kind"], f"{r['requests']:,}", f"{r['per_request']:.2f}",
                                        f"{r['ideal']:.2f}", r["instruction"][:60]] for r in lines],
                                      right=tuple(memory[2:5]), note=say("profile.memory_note"))]
    return "\n".join(out)


def legend() -> str:
    """How to read each row of the table."""
    return "\n".join([say("profile.legend")] + [say("profile.legend_row", title=title, meaning=meaning)
                                               for _, title, meaning in rows()])


def gpu_tables(launches: list[dict], calls: list[dict], xlabel: str = "size", all_sizes: bool = False) -> list[dict]:
    """Tables from ncu's launches and the child's record of its profiled calls: for each call shown (the
    last, i.e. largest, of each series; every one with `all_sizes`), a column in each kernel's table;
    the longest kernel first."""
    by_call = ncu.split_calls(launches)
    last = {c["label"]: i for i, c in enumerate(calls, 1)}
    shown = range(1, len(calls) + 1) if all_sizes else sorted(last.values())
    by_kernel: dict[str, dict] = {}
    for i in shown:
        call = calls[i - 1]
        column = f"{call['label']}, {xlabel} {call['size']}" if all_sizes else call["label"]
        seen: Counter = Counter()
        for launch in by_call.get(i, []):
            seen[launch["kernel"]] += 1
            n = seen[launch["kernel"]]
            kernel = launch["kernel"] if n == 1 else say("profile.launch", kernel=launch["kernel"], n=n)
            table = by_kernel.setdefault(kernel, {"kernel": kernel, "columns": {}, "weight": {}})
            table["columns"][column] = ncu.rows(launch["metrics"], call["nbytes"], call["flops"])
            duration = launch["metrics"].get(ncu.METRICS["duration"])
            table["weight"][column] = duration if isinstance(duration, float) else 0.0
    return sorted(by_kernel.values(), key=lambda t: -max(t.pop("weight").values()))


def _exercises(day, name: str | None) -> list:
    exs = [exercises.get(day, name)] if name else exercises.day_exercises(day)
    if not exs:
        raise ValueError(say("profile.no_exercises", day=paths.day_name(day)))
    without = [ex.key for ex in exs if ex.bench is None]
    if name and without:
        raise ValueError(say("profile.no_benchmark", exercise=without[0]))
    benched = [ex for ex in exs if ex.bench is not None]
    if not benched:
        raise ValueError(say("profile.none_benchmarked", day=paths.day_name(day),
                             timeline=say("profile.capstone") if paths.day_name(day) == "day14" else ""))
    return benched


class ProfileError(RuntimeError):
    """A profile could not be made (ncu's error, a wrong kernel, a crash), in one line."""


def collect(ex, *, solutions: bool = False, compare: bool = False, metrics: str = "table", all_sizes: bool = False,
            source_dir: str | None = None, timeout: float = 900) -> dict:
    """Profile one exercise's benchmark case: {"tables": [...], "notes": [...], "estimates": bool,
    "report": the .ncu-rep or None}; ProfileError when no profile could be made, NoGPU when kernels
    cannot run, and on a GPU without ncu."""
    if metrics not in ncu.SETS:
        raise ValueError(say("profile.metrics", metrics=repr(metrics), sets=", ".join(ncu.SETS)))
    if device.why_no_gpu():
        raise device.NoGPU(say("profile.needs_gpu", why=device.why_no_gpu()))
    counters = device.current().hardware_counters
    tool = ncu.find_tool("ncu", ncu.NCU_ENV) if counters else None
    if counters and tool is None:
        raise device.NoGPU(say("profile.no_ncu", env=ncu.NCU_ENV))
    stem = f"{ex.day}-{ex.name}{'-compare' if compare else ''}"
    request = {"mode": "emulator" if tool is None else "ncu", "day": ex.day, "name": ex.name,
               "compare": compare, "stem": stem}
    report = FOLDER / f"{stem}.ncu-rep"
    report.unlink(missing_ok=True)  # never read an earlier run's report
    wrap = (lambda cmd: cmd) if tool is None else (lambda cmd: ncu.profile_command(tool, report, cmd, metrics))
    result, output = _run_child(request, solutions=solutions, source_dir=source_dir, timeout=timeout, wrap=wrap)
    if not result or result.get("error") or (tool is not None and (not report.is_file() or ncu.problem(output))):
        raise ProfileError(_failure(ex.key, result, output))
    if tool is None:
        return {"tables": result["tables"], "notes": result["notes"], "estimates": True, "report": None}
    imported = subprocess.run(ncu.import_command(tool, report), capture_output=True, text=True)
    if imported.returncode:
        raise ProfileError(f"{ex.key}: " + say("profile.import_failed", report=report,
                                                error=imported.stderr.strip()[:300]))
    try:
        launches = ncu.parse_csv(imported.stdout)
    except ValueError as e:
        raise ProfileError(f"{ex.key}: " + say("profile.import_unreadable", error=e, report=report)) from None
    tables = gpu_tables(launches, result["calls"], result["xlabel"], all_sizes)
    return {"tables": tables, "notes": result["notes"], "estimates": False, "report": report}


def profile(day, name: str | None = None, *, solutions: bool = False, compare: bool = False,
            metrics: str = "table", all_sizes: bool = False, source_dir: str | None = None,
            timeout: float = 900) -> int:
    """Profile an exercise's benchmark case (every benchmarked exercise of the day without `name`) and
    print its tables; 0 when every profile was made."""
    failed = 0
    for ex in _exercises(day, name):
        print(say("profile.running", exercise=ex.key) if device.current().hardware_counters else
              say("profile.running_emulator", exercise=ex.key), flush=True)
        try:
            found = collect(ex, solutions=solutions, compare=compare, metrics=metrics, all_sizes=all_sizes,
                            source_dir=source_dir, timeout=timeout)
        except ProfileError as e:
            print(e)
            failed += 1
            continue
        print(render(found["tables"], found["estimates"]))
        print("\n".join(found["notes"]))
        if found["report"]:
            print(say("profile.report", report=found["report"]))
    print(legend())
    return 1 if failed else 0


def timeline(*, solutions: bool = False, timeout: float = 900) -> int:
    """Day 14's decode step, stage by stage (see the module's doc)."""
    if device.why_no_gpu():
        raise device.NoGPU(say("profile.timeline_gpu", why=device.why_no_gpu()))
    nsys = ncu.find_tool("nsys", ncu.NSYS_ENV) if device.current().hardware_counters else None
    report = FOLDER / "day14-timeline"
    wrap = ((lambda cmd: [str(nsys), "profile", "--trace=cuda,nvtx", "--force-overwrite=true", "-o", str(report), *cmd])
            if nsys else (lambda cmd: cmd))
    print(say("profile.timeline", under=say("profile.under", tool=nsys) if nsys else ""), flush=True)
    result, output = _run_child({"mode": "timeline", "stem": "day14-timeline"}, solutions=solutions,
                                source_dir=None, timeout=timeout, wrap=wrap)
    if not result or result.get("error"):
        print(_failure("day14 timeline", result, output))
        return 1
    if "stages" in result:
        print(stage_table(result))
        return 0
    print(result["table"])
    if nsys:
        print(say("profile.timeline_file", report=report, nvtx="" if result["nvtx"] else say("profile.nvtx")))
    else:
        print(say("profile.no_nsys", env=ncu.NSYS_ENV))
    return 0


def stage_table(result: dict) -> str:
    """The emulator's per-stage counts of the decode step."""
    total = max(sum(s["instructions"] for s in result["stages"]), 1)
    rows = [[word("stage", s["stage"]), word("stagefrom", s["source"]), ", ".join(s["kernels"]) or say("profile.none_here"),
             f"{s['instructions']:,}", f"{s['instructions'] / total:.0%}", f"{s['active_threads']:.1f}", f"{s['bytes']:,}",
             f"{s['sectors']:.2f} ({s['ideal']:.2f})" if s["requests"] else "-", f"{s['extra_wavefronts']:,}"]
            for s in result["stages"]]
    headers = [say("profile.stage"), say("profile.kernel_from"), say("profile.kernels"), say("profile.warp_instructions"),
               say("profile.share"), say("profile.active"), say("profile.global_bytes"), say("profile.sectors_ideal"),
               say("profile.extra_wavefronts")]
    return tables.render(headers, rows, right=tuple(headers[3:7]) + (headers[8],),
                         note=say("profile.stages_note", config=result["config"]))


def add_arguments(parser) -> None:
    parser.add_argument("day")
    parser.add_argument("exercise", nargs="?", help="default: every benchmarked exercise of the day")
    parser.add_argument("--solutions", action="store_true", help="profile solutions/ instead of days/")
    parser.add_argument("--compare", action="store_true", help="yours and the solution side by side")
    parser.add_argument("--metrics", default="table", choices=tuple(ncu.SETS),
                        help="table: the table's metrics (fast); detailed / full: ncu's section sets too, "
                             "for the Nsight Compute GUI")
    parser.add_argument("--all-sizes", action="store_true", help="a column for every benchmark size, not "
                                                                 "only the largest")
    parser.add_argument("--timeline", action="store_true", help="day14: the decode step stage by stage")
    parser.add_argument("--timeout", type=float, default=900, help="seconds for the profiling run (default 900)")


def main(args) -> int:
    if args.solutions or args.compare:
        paths.solutions_dir("profile --solutions or --compare (the course's solution)")
    if args.timeline:
        if paths.day_name(args.day) != "day14" or args.exercise:
            raise ValueError(say("profile.timeline_only"))
        return timeline(solutions=args.solutions, timeout=args.timeout)
    return profile(args.day, args.exercise, solutions=args.solutions, compare=args.compare,
                   metrics=args.metrics, all_sizes=args.all_sizes, timeout=args.timeout)


# ---- the child ------------------------------------------------------------------------------------

def _first_line(e: Exception, limit: int = 240) -> str:
    text = (str(e).splitlines() or [""])[0]
    return text if len(text) <= limit else text[:limit] + " ..."


MARK_SOURCE = f'extern "C" __global__ void {ncu.MARK_KERNEL}() {{}}\n'


@contextlib.contextmanager
def _replaced(owner, name: str, value):
    saved = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, saved)


@contextlib.contextmanager
def _profiler_range():
    """cudaProfilerStart ... cudaProfilerStop: the launches `ncu --profile-from-start off` profiles."""
    profiler = device.require_gpu().cuda.profiler
    profiler.start()
    try:
        yield
    finally:
        profiler.stop()


def _modules(ex, compare: bool) -> tuple[dict, list[str]]:
    """({label: (module, source path)}, notes): yours (the solution under COURSE_KERNELS=solutions) and,
    with `compare`, the solution, labelled as `runner.bench` labels them. With `compare`, a kernel of
    yours that does not compile (or lacks the day's technique) is left out with a note."""
    from grader import compiler, runner

    label = "solution" if paths.use_solutions() else "yours"
    found, notes = {}, []
    try:
        found[label] = (runner.load(ex), runner.source_of(ex))
    except (AssertionError, compiler.CompileError, FileNotFoundError) as e:
        if not compare or label == "solution":
            raise
        notes.append(say("profile.not_profiled", error=_first_line(e)))
    if compare and label == "yours":
        found["solution"] = (runner.load(ex, solutions=True), runner.source_of(ex, solutions=True))
    return found, notes


def _ncu_calls(ex, compare: bool) -> dict:
    """Under ncu: the benchmark, each of its calls for yours / the solution profiled once after a
    warm-up, a marker kernel (grid = call number) before each; the ceilings are not run."""
    from grader import bench, runner

    mark = device.load_source(MARK_SOURCE, f"{ncu.MARK_KERNEL}.cu").get_function(ncu.MARK_KERNEL)
    calls: list[dict] = []

    def measure(label, fn, *, size, nbytes=0, flops=0.0, **_):
        if label.startswith(LABELS):
            fn()
            device.synchronize(label)
            with _profiler_range():
                device.launch(mark, (len(calls) + 1,), (1,), (), what="the profile's marker")
                fn()
                device.synchronize(label)
            calls.append({"label": label, "size": size, "nbytes": nbytes, "flops": flops})
        return bench.Measurement(label, size, float("nan"), nbytes, flops, timed=False)

    def interleaved(fns: dict, *, size: int, nbytes: int = 0, flops: float = 0.0, **_):
        """The benchmarks that time kernels in turns (days 15-16) go through `measure` too."""
        return {label: measure(label, fn, size=size, nbytes=nbytes, flops=flops) for label, fn in fns.items()}

    modules, notes = _modules(ex, compare)
    if "yours" not in modules and "solution" in modules:  # yours left out: the benchmark runs the solution alone
        os.environ[paths.KERNELS_ENV] = "solutions"
    with _replaced(bench, "measure", measure), _replaced(bench, "measure_interleaved", interleaved):
        report = runner.bench(ex, quick=True, with_solution=compare)
    return {"calls": calls, "xlabel": report.xlabel, "notes": notes + report.notes}


def _emulator_tables(ex, compare: bool) -> dict:
    """On the emulator: the largest self-check case it runs, each launch recorded."""
    from grader import profile_estimates, runner, sass
    from grader.emulator.scaling import case_size, runs_on_emulator

    case = max((c for c in ex.cases if runs_on_emulator(ex, c)[0]), key=case_size)
    notes = [say("profile.on_emulator", exercise=ex.key, case=exercises.case_id(case))]
    by_kernel: dict[str, dict] = {}
    modules, left_out = _modules(ex, compare)
    notes += left_out
    for label, (module, path) in modules.items():
        try:
            resources = sass.load(path, "sm_90")[2]
        except FileNotFoundError as e:
            resources = {}
            notes.append(say("profile.no_occupancy", label=phrased(label), error=e))
        with profile_estimates.recording() as records:
            try:
                runner.check(ex, case, module)
            except AssertionError as e:
                notes.append(say("profile.wrong_output", label=phrased(label), error=_first_line(e)))
                continue
        seen: Counter = Counter()
        for record in records:
            seen[record.kernel] += 1
            n = seen[record.kernel]
            kernel = record.kernel if n == 1 else say("profile.launch", kernel=record.kernel, n=n)
            table = by_kernel.setdefault(kernel, {"kernel": kernel, "columns": {}, "lines": {}, "weight": {}})
            table["columns"][label] = profile_estimates.rows(record, resources.get(record.kernel, {}))
            table["lines"][label] = profile_estimates.line_rows(record)
            table["weight"][label] = record.launch.instructions
    ordered = sorted(by_kernel.values(), key=lambda t: -max(t.pop("weight").values()))  # most work first
    return {"tables": ordered, "notes": notes}


def _nvtx_range(name: str):
    """An NVTX range named `name` (seen by Nsight Systems) with the nvtx package; else nothing."""
    if importlib.util.find_spec("nvtx") is None:
        return contextlib.nullcontext()
    import nvtx

    return nvtx.annotate(name, domain="course")


def _timeline() -> dict:
    from grader import bench, profile_estimates
    from grader.exercises import capstone

    if not device.current().hardware_counters:  # the emulator: its estimates, stage by stage
        cfg = capstone.BlockConfig(**capstone.CAPSTONE_CASES[1])
        state = {k: device.asarray(v) for k, v in capstone.block_inputs(cfg, seed=0).items()}
        stages = []
        for stage in capstone.STAGES:
            with profile_estimates.recording() as records:
                state.update(stage.run(state, cfg))
            mem = [profile_estimates.memory(r) for r in records]
            g = {k: sum(m["global"][k] for m in mem) for k in ("requests", "sectors", "ideal", "bytes")}
            instructions = sum(r.launch.instructions for r in records)
            stages.append({"stage": stage.name, "source": stage.source, "kernels": [r.kernel for r in records],
                           "instructions": instructions, "bytes": g["bytes"], "requests": g["requests"],
                           "active_threads": sum(r.launch.thread_instructions for r in records) / max(instructions, 1),
                           "sectors": g["sectors"] / max(g["requests"], 1), "ideal": g["ideal"] / max(g["requests"], 1),
                           "extra_wavefronts": sum(m["shared"]["wavefronts"] - m["shared"]["ideal"] for m in mem)})
        return {"stages": stages, "config": str(cfg)}
    measure = bench.measure

    def ranged(label, fn, **kwargs):
        with _nvtx_range(label):
            return measure(label, fn, **kwargs)

    with _replaced(bench, "measure", ranged):
        rows = capstone.time_block()
    return {"table": capstone.stage_table(rows), "nvtx": importlib.util.find_spec("nvtx") is not None}


def _child(request: dict) -> dict:
    try:
        if request["mode"] == "timeline":
            return _timeline()
        ex = exercises.get(request["day"], request["name"])
        if request["mode"] == "ncu":
            return _ncu_calls(ex, request["compare"])
        return _emulator_tables(ex, request["compare"])
    except Exception as e:  # noqa: BLE001 - compile errors, wrong kernels, faults: reported in one line
        return {"error": f"{type(e).__name__}: {_first_line(e)}"}


if __name__ == "__main__":
    _request = json.loads(sys.argv[1])
    Path(_request["out"]).write_text(json.dumps(_child(_request)))
