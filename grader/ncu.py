"""Nsight Compute (`ncu`) for `python -m grader profile`: what it collects, how it is run, and how its
report is read back.

    ncu --export R.ncu-rep --profile-from-start off --clock-control none --metrics <METRICS> \\
        python -m grader.profile '<request>'            # the child profiles only between
                                                       # cudaProfilerStart / Stop
    ncu --import R.ncu-rep --page raw --csv --print-units base

The raw page has one row per profiled kernel launch (after a header row and a row of units), one
column per metric; `parse_csv` also reads the details page's long form ("Metric Name", "Metric
Value"), which some versions print instead. `--clock-control none` keeps the GPU's boost clock, so
durations agree with `grader bench` (ncu's default locks the base clock); caches are flushed before
every replay (ncu's default), as `bench` flushes L2 before every timed run.
"""
from __future__ import annotations

import csv
import glob
import io
import os
import re
import shutil
from pathlib import Path

from grader.messages import say, word

NCU_ENV = "COURSE_NCU"    # the ncu executable, if not on PATH or in a CUDA toolkit
NSYS_ENV = "COURSE_NSYS"  # the nsys executable, likewise

#: The metrics of the table, by the course's short name. Names from the Nsight Compute Kernel
#: Profiling Guide (sections SpeedOfLight, Occupancy, LaunchStats, MemoryWorkloadAnalysis,
#: ComputeWorkloadAnalysis, WarpStateStats, InstructionStats).
METRICS = {
    "duration": "gpu__time_duration.sum",
    "dram_pct": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm_pct": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "achieved_occupancy": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "theoretical_occupancy": "sm__maximum_warps_per_active_cycle_pct",
    "limit_registers": "launch__occupancy_limit_registers",
    "limit_shared_mem": "launch__occupancy_limit_shared_mem",
    "limit_warps": "launch__occupancy_limit_warps",
    "limit_blocks": "launch__occupancy_limit_blocks",
    "registers": "launch__registers_per_thread",
    "smem_static": "launch__shared_mem_per_block_static",
    "smem_dynamic": "launch__shared_mem_per_block_dynamic",
    "grid_size": "launch__grid_size",
    "global_ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global_ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "bank_conflicts_ld": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "bank_conflicts_st": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1_hit": "l1tex__t_sector_hit_rate.pct",
    "l2_hit": "lts__t_sector_hit_rate.pct",
    "tensor_pct": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "instructions": "smsp__inst_executed.sum",
    "threads_per_instruction": "smsp__thread_inst_executed_per_inst_executed.ratio",
}

def stall_meanings(lang: str | None = None) -> dict[str, str]:
    """Warp stall reasons (cycles a warp spends in each state per issued instruction) and what each means,
    in `lang` (default: the lessons' language)."""
    return {
        "long_scoreboard": say("stall.long_scoreboard", lang),
        "short_scoreboard": say("stall.short_scoreboard", lang),
        "barrier": say("stall.barrier", lang),
        "wait": say("stall.wait", lang),
        "mio_throttle": say("stall.mio_throttle", lang),
        "lg_throttle": say("stall.lg_throttle", lang),
        "math_pipe_throttle": say("stall.math_pipe_throttle", lang),
        "tex_throttle": say("stall.tex_throttle", lang),
        "membar": say("stall.membar", lang),
        "drain": say("stall.drain", lang),
        "branch_resolving": say("stall.branch_resolving", lang),
        "dispatch_stall": say("stall.dispatch_stall", lang),
        "no_instruction": say("stall.no_instruction", lang),
        "imc_miss": say("stall.imc_miss", lang),
        "sleeping": say("stall.sleeping", lang),
        "misc": say("stall.misc", lang),
        "not_selected": say("stall.not_selected", lang),
        "selected": say("stall.selected", lang),
    }


STALLS = tuple(stall_meanings("en"))  # the reasons ncu is asked for


def stall_metric(reason: str) -> str:
    return f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"


#: --metrics SET: the table's metrics only (fast), or with one of ncu's section sets (a fuller report
#: for the Nsight Compute GUI, more replays).
SETS = {"table": (), "detailed": ("--set", "detailed"), "full": ("--set", "full")}

MARK_KERNEL = "course_profile_mark"  # launched before each profiled call, grid = (call number,)

_UNITS = {"nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0, "ns": 1e-9, "us": 1e-6, "ms": 1e-3,
          "s": 1.0,
          "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1024, "MB": 1 << 20}
_IDENTITY = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
             "Block Size", "Grid Size", "Device", "CC")


def all_metrics() -> list[str]:
    return list(METRICS.values()) + [stall_metric(r) for r in STALLS]


def find_tool(name: str, env: str, explicit: str | None = None) -> Path | None:
    """An NVIDIA tool (ncu, nsys): `explicit`, $env, PATH, $CUDA_HOME/bin, /usr/local/cuda*/bin, /opt/nvidia;
    None if there is none."""
    candidates = [explicit, os.environ.get(env), shutil.which(name)]
    candidates += [str(Path(os.environ[e]) / "bin" / name) for e in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(e)]
    candidates += sorted(glob.glob(f"/usr/local/cuda*/bin/{name}"), reverse=True)
    candidates += sorted(glob.glob(f"/opt/nvidia/nsight-*/*/{name}"), reverse=True)
    return next((Path(c) for c in candidates if c and Path(c).is_file() and os.access(c, os.X_OK)), None)


def profile_command(ncu: Path, report: Path, child: list[str], metric_set: str = "table") -> list[str]:
    """ncu around `child` (a command line), profiling only the launches between cudaProfilerStart and
    Stop, every kernel with the table's metrics, into `report` (.ncu-rep)."""
    if metric_set not in SETS:
        raise ValueError(say("profile.metrics", metrics=repr(metric_set), sets=", ".join(SETS)))
    return [str(ncu), "--export", str(report), "--force-overwrite", "--profile-from-start", "off",
            "--clock-control", "none", *SETS[metric_set], "--metrics", ",".join(all_metrics()), *child]


def import_command(ncu: Path, report: Path) -> list[str]:
    return [str(ncu), "--import", str(report), "--page", "raw", "--csv", "--print-units", "base"]


def problem(output: str) -> str | None:
    """ncu's own error in its output, in one line (None if it reported none)."""
    if "ERR_NVGPUCTRPERM" in output:
        return say("ncu.counters_denied")
    errors = [ln.split("==ERROR==", 1)[1].strip() for ln in output.splitlines() if "==ERROR==" in ln]
    if errors:
        return say("ncu.error", error=errors[0])  # ncu's own words stay as it printed them
    return say("ncu.no_kernels") if "No kernels were profiled" in output else None


def _number(text: str, unit: str = ""):
    """A metric value as a float (thousands separators dropped, time in seconds, bytes in bytes); text
    that is not a number (n/a, a name) is returned as it is."""
    t = text.strip().replace(",", "")
    try:
        value = float(t)
    except ValueError:
        return text.strip()
    return value * _UNITS.get(unit.strip(), 1)


def _grid(text: str) -> int:
    """The first extent of '(3, 1, 1)' or '3, 1, 1'; 0 if none."""
    m = re.search(r"\d+", text or "")
    return int(m.group()) if m else 0


def parse_csv(text: str) -> list[dict]:
    """Kernel launches from `ncu --import R --csv` (raw page, or the details page's long form), in launch
    order: {"id", "kernel", "grid", "block", "metrics": {metric name: float or text}}. Lines that are not
    CSV (ncu's ==PROF== messages, the program's output) are skipped."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    start = next((i for i, r in enumerate(rows) if "Kernel Name" in r and "ID" in r), None)
    if start is None:
        raise ValueError(say("ncu.not_csv"))
    header, body = rows[start], rows[start + 1:]
    col = {name: i for i, name in enumerate(header)}
    launches: dict[str, dict] = {}

    def launch(row) -> dict:
        key = row[col["ID"]]
        if key not in launches:
            launches[key] = {"id": key, "kernel": row[col["Kernel Name"]],
                             "grid": _grid(row[col["Grid Size"]]) if "Grid Size" in col else 0,
                             "block": _grid(row[col["Block Size"]]) if "Block Size" in col else 0,
                             "metrics": {}}
        return launches[key]

    if "Metric Name" in col and "Metric Value" in col:  # the long form: one row per metric
        unit = col.get("Metric Unit")
        for row in body:
            if len(row) == len(header) and row[col["Metric Name"]]:
                launch(row)["metrics"][row[col["Metric Name"]]] = _number(
                    row[col["Metric Value"]], row[unit] if unit is not None else "")
    else:  # the raw page: one row per launch, the first row under the header holds the units
        units = body[0] if body and not body[0][col["ID"]].strip() else [""] * len(header)
        names = [(i, h) for i, h in enumerate(header) if h not in _IDENTITY]
        for row in body:
            if len(row) != len(header) or not row[col["ID"]].strip():
                continue
            launch(row)["metrics"].update({h: _number(row[i], units[i]) for i, h in names})
    found = list(launches.values())
    for r in found:
        if not r["grid"] and isinstance(r["metrics"].get(METRICS["grid_size"]), float):
            r["grid"] = int(r["metrics"][METRICS["grid_size"]])
    return found


def split_calls(launches: list[dict]) -> dict[int, list[dict]]:
    """The launches of each profiled call, by call number: the marker kernel launched before call k has
    grid (k,); launches before the first marker are dropped."""
    calls: dict[int, list[dict]] = {}
    current = None
    for r in launches:
        if r["kernel"].split("(")[0].strip() == MARK_KERNEL:
            current = r["grid"]
            calls.setdefault(current, [])
        elif current is not None:
            calls[current].append(r)
    return calls


def _pct(value) -> str:
    return f"{value:.1f}%" if isinstance(value, float) else say("profile.na")


def top_stalls(metrics: dict, count: int = 3) -> list[tuple[str, float]]:
    """The `count` largest stall reasons (cycles per issued instruction), issuing itself left out."""
    found = [(r, metrics[stall_metric(r)]) for r in STALLS
             if r != "selected" and isinstance(metrics.get(stall_metric(r)), float)]
    return sorted(found, key=lambda kv: -kv[1])[:count]


def limiter(metrics: dict) -> str:
    """What bounds the theoretical occupancy: the resource that allows the fewest blocks per SM."""
    limits = {"registers": metrics.get(METRICS["limit_registers"]),
              "shared memory": metrics.get(METRICS["limit_shared_mem"]),
              "block size (warps per SM)": metrics.get(METRICS["limit_warps"]),
              "blocks per SM": metrics.get(METRICS["limit_blocks"])}
    known = {k: v for k, v in limits.items() if isinstance(v, float)}
    if not known:
        return "?"
    least = min(known.values())
    return say("limiter.blocks", limiter=limiters([k for k, v in known.items() if v == least]), blocks=f"{least:.0f}")


def limiters(names: list[str]) -> str:
    """Occupancy limiters ('registers', 'shared memory', ...), joined, in the lessons' language."""
    return say("limiter.and").join(word("limiter", n) for n in names)


def rows(metrics: dict, nbytes: int = 0, flops: float = 0.0) -> dict[str, str]:
    """The table's rows (the keys of grader.profile.rows()) from one launch's metrics; `nbytes` / `flops` are what
    the benchmark counts for the call, for the figure `grader bench` reports."""
    m = {key: metrics.get(name) for key, name in METRICS.items()}
    seconds = m["duration"]
    out = {"duration": f"{seconds * 1e6:.1f} us" if isinstance(seconds, float) else say("profile.na"),
           "dram": _pct(m["dram_pct"]), "sm": _pct(m["sm_pct"]), "l1": _pct(m["l1_hit"]), "l2": _pct(m["l2_hit"]),
           "occupancy": _pct(m["achieved_occupancy"]), "tensor": _pct(m["tensor_pct"])}
    if isinstance(seconds, float) and seconds > 0 and (nbytes or flops):
        out["throughput"] = (f"{nbytes / seconds / 1e9:.0f} GB/s" if nbytes else f"{flops / seconds / 1e12:.1f} TFLOP/s")
    requests, sectors = m["global_ld_requests"], m["global_ld_sectors"]
    if isinstance(requests, float) and isinstance(sectors, float):
        out["sectors"] = say("cell.loads", per=f"{sectors / requests:.2f}") if requests else say("cell.no_loads")
    conflicts = [v for v in (m["bank_conflicts_ld"], m["bank_conflicts_st"]) if isinstance(v, float)]
    if conflicts:
        out["bank_conflicts"] = f"{sum(conflicts):,.0f}"
    if isinstance(m["theoretical_occupancy"], float):
        out["theoretical"] = say("cell.limiter", pct=f"{m['theoretical_occupancy']:.0f}%", limiter=limiter(metrics))
    if isinstance(m["registers"], float):
        out["registers"] = f"{m['registers']:.0f}"
    smem = [v for v in (m["smem_static"], m["smem_dynamic"]) if isinstance(v, float)]
    if smem:
        out["smem"] = f"{sum(smem) / 1024:.1f} KiB"
    if isinstance(m["instructions"], float):
        out["instructions"] = f"{m['instructions']:,.0f}"
    if isinstance(m["threads_per_instruction"], float):
        out["active_threads"] = say("cell.of_32", threads=f"{m['threads_per_instruction']:.1f}")
    stalls = top_stalls(metrics)
    if stalls:
        out["stalls"] = ", ".join(f"{r} {v:.1f}" for r, v in stalls)
    return out
