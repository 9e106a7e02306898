"""What a launch on the emulator measured, per instruction, mapped to the CUDA source: global memory
sectors per warp request against the ideal (coalescing), shared memory wavefronts per request against
the ideal (bank conflicts); and the emulator's own speed.

    from grader.emulator import report
    print(report.memory_table())        # the last launch
"""
from __future__ import annotations

from grader import tables
from grader.emulator import program


def memory_rows(launch=None) -> list[dict]:
    launch = launch or program.last_launch
    if launch is None:
        raise ValueError("no kernel has run on the emulator yet")
    if launch.stats is None:
        raise ValueError("statistics were off for that launch (COURSE_EMULATOR_STATS=0)")
    rows = []
    for (pc, kind), rec in sorted(launch.stats.items()):
        op = launch.program.code[pc]
        row = {"line": str(op.inst.loc) if op.inst.loc else "?", "instruction": op.inst.text, "kind": kind,
               "requests": rec["requests"]}
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


def speed(launch=None, seconds: float | None = None) -> str:
    launch = launch or program.last_launch
    line = f"{launch.instructions:,} warp instructions ({launch.thread_instructions:,} thread instructions)"
    if seconds:
        line += f" in {seconds:.2f} s: {launch.instructions / seconds / 1e6:.2f} M warp instructions/s"
    return line
