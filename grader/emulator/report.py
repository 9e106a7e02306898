"""What a launch on the emulator measured, per instruction, mapped to the CUDA source: global memory
sectors per warp request against the ideal (coalescing), shared memory wavefronts per request against
the ideal (bank conflicts); and the instruction mix, warp instructions by the SASS they become.

    from grader.emulator import report
    print(report.memory_table())        # the last launch
    report.instruction_mix()            # {"mma": ..., "ldmatrix": ..., "cp.async": ..., ...}

As a command, the tables of a day's kernels (each exercise's largest case that the emulator runs):

    python -m grader.emulator.report day02 [strided_gather] [--solutions]
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys

from grader import tables
from grader.emulator import program, scaling


#: The families of the instruction mix, in the order charts show them, with the SASS each becomes (what
#: `python -m grader sass` counts). cp.async's commit and wait groups are barriers (LDGDEPBAR, DEPBAR).
SASS = {"mma": "HMMA", "wgmma": "HGMMA", "ldmatrix": "LDSM", "cp.async": "LDGSTS", "tma": "UTMALDG, UTMASTG",
        "shfl": "SHFL", "ld.global": "LDG", "st.global": "STG", "ld.shared": "LDS", "st.shared": "STS",
        "atom": "ATOM, RED", "bar": "BAR, DEPBAR", "mbarrier": "SYNCS", "other": "other"}
_WAITS = {"commit_group", "wait_group", "wait_all", "mbarrier"}


def _launch(launch):
    launch = launch or program.last_launch
    if launch is None:
        raise ValueError("no kernel has run on the emulator yet")
    return launch


def family(opcode: str, spaces=()) -> str:
    """The mix family (a key of SASS) of a PTX opcode; `spaces`, the state spaces the emulator saw the
    instruction touch, place a generic ld/st (no space in its opcode) as global or shared."""
    head, *rest = opcode.split(".")
    if head == "mma" or opcode.startswith("wmma.mma"):
        return "mma"
    if opcode.startswith("wgmma.mma_async"):
        return "wgmma"
    if head == "mbarrier":
        return "mbarrier"
    if head == "cp" and "bulk" in rest:
        return "tma"
    if head == "cp" and "async" in rest:
        return "bar" if _WAITS.intersection(rest) else "cp.async"
    if head in ("ldmatrix", "shfl"):
        return head
    if head in ("bar", "barrier"):
        return "bar"
    if head in ("atom", "red"):
        return "atom"
    if head in ("ld", "ldu", "st"):
        space = next((s for s in ("global", "shared") if s in rest), None)
        if space is None and len(spaces) == 1:
            space = spaces[0]
        if space is not None:
            return f"{'st' if head == 'st' else 'ld'}.{space}"
    return "other"


def instruction_mix(launch=None) -> dict[str, int]:
    """Warp instructions the launch executed, per family (every key of SASS, in its order); they add
    up to `launch.instructions`."""
    launch = _launch(launch)
    spaces: dict[int, list[str]] = {}
    for pc, kind in launch.stats or ():
        spaces.setdefault(pc, []).append(kind)
    mix = dict.fromkeys(SASS, 0)
    for op, n in zip(launch.program.code, launch.warps_per_pc):
        if n:
            mix[family(op.inst.opcode, spaces.get(op.pc, ()))] += n
    return mix


def mix_text(mix: dict[str, int]) -> str:
    """'HMMA (mma) 2,048, LDSM (ldmatrix) 512, ..., other 9,000': the families that ran."""
    return ", ".join(f"{SASS[f]}{f' ({f})' if f != 'other' else ''} {n:,}" for f, n in mix.items() if n)


def totals(launch=None) -> dict[str, dict]:
    """The launch's memory statistics summed over its instructions: global requests, sectors, ideal
    sectors and bytes the threads asked for; shared requests, wavefronts, ideal and the worst n-way."""
    launch = _launch(launch)
    out = {"global": {"requests": 0, "sectors": 0, "ideal": 0, "bytes": 0},
           "shared": {"requests": 0, "wavefronts": 0, "ideal": 0, "max_ways": 0}}
    for (_, kind), rec in (launch.stats or {}).items():
        total = out[kind]
        for key in total:
            total[key] = max(total[key], rec[key]) if key == "max_ways" else total[key] + rec[key]
    return out


def memory_rows(launch=None) -> list[dict]:
    launch = _launch(launch)
    if launch.stats is None:
        raise ValueError("statistics were off for that launch (COURSE_EMULATOR_STATS=0)")
    rows = []
    for (pc, kind), rec in sorted(launch.stats.items()):
        op = launch.program.code[pc]
        row = {"line": str(op.inst.loc) if op.inst.loc else "?", "instruction": op.inst.text, "kind": kind,
               "opcode": op.inst.opcode, "requests": rec["requests"]}
        if kind == "global":
            row["per_request"] = rec["sectors"] / max(rec["requests"], 1)
            row["ideal"] = rec["ideal"] / max(rec["requests"], 1)
        else:
            row["per_request"] = rec["wavefronts"] / max(rec["requests"], 1)
            row["ideal"] = rec["ideal"] / max(rec["requests"], 1)
            row["max_ways"] = rec["max_ways"]
        rows.append(row)
    return rows


def memory_table(launch=None) -> str:
    """A table: one row per memory instruction, worst (furthest from ideal) first."""
    rows = sorted(memory_rows(launch), key=lambda r: -r["per_request"] / max(r["ideal"], 1e-9))
    return tables.render(
        ["source line", "space", "requests", "per request", "ideal", "instruction"],
        [[r["line"], r["kind"], r["requests"], f"{r['per_request']:.2f}", f"{r['ideal']:.2f}",
          r["instruction"] + (f" ({r['max_ways']}-way)" if r["kind"] == "shared" and r["max_ways"] > 1 else "")]
         for r in rows],
        right=("requests", "per request", "ideal"),
        note="global: 32-byte sectors per warp request; shared: wavefronts per request (n-way bank conflicts)")


@contextlib.contextmanager
def _recording():
    """A list that receives every launch made on the emulator inside the block."""
    launches, original = [], program.launch

    def launch(*args, **kwargs):
        launches.append(original(*args, **kwargs))
        return launches[-1]

    program.launch = launch
    try:
        yield launches
    finally:
        program.launch = original


def largest_case(ex) -> dict:
    """The exercise's largest self-check case that the emulator runs: what stands in for its benchmark."""
    return max((c for c in ex.cases if scaling.runs_on_emulator(ex, c)[0]), key=scaling.case_size)


def record_case(ex, case: dict, module, seed: int = 0) -> tuple[list, str | None]:
    """Every launch of one check of `case` on `module`, and the first line of why the check failed (None
    when it passed): a wrong kernel's launches still show its accesses."""
    with _recording() as launches:
        try:
            ex.check(module, seed, **case)
        except (AssertionError, RuntimeError) as e:
            return launches, (str(e) or type(e).__name__).splitlines()[0]
    return launches, None


def launch_text(run) -> str:
    """A launch in words: its kernel and shape, its instruction mix and its memory table."""
    return "\n".join([f"{run.kernel}, grid {run.grid}, block {run.block}: {run.instructions:,} warp instructions",
                      f"  instruction mix: {mix_text(instruction_mix(run))}",
                      memory_table(run) if run.stats else "  (no memory instruction)"])


def exercise_tables(ex, solutions: bool = False) -> str:
    """The memory table of every launch of the exercise's largest case that the emulator runs (the
    kernel compiled for the emulator, without the grader's technique check)."""
    from grader import emulator, paths

    case = largest_case(ex)
    what = ", ".join(f"{k}={v}" for k, v in case.items())
    source = paths.solutions_dir("the solution's memory table (--solutions)") / ex.day / ex.source if solutions \
        else paths.source_path(ex.day, ex.source)
    out = [f"{ex.key} ({what}), {source}:"]
    launches, error = record_case(ex, case, emulator.load(source))
    if error:
        out.append(f"  failed: {error}")
    out += ["\n" + launch_text(run) for run in launches]
    return "\n".join(out)


USAGE = """The emulator's memory statistics, per instruction and CUDA source line:

  python -m grader.emulator.report dayNN [exercise] [--solutions]
      each exercise's largest case that the emulator runs: sectors per request, bank conflicts
  python -m grader profile dayNN [exercise]
      the same as an estimate of Nsight Compute's table, with the instruction mix and occupancy
  from grader.emulator import report; print(report.memory_table())
      the last launch in this process

The emulator's own speed: python -m grader.emulator.speed"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m grader.emulator.report",
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
