"""What a launch on the emulator measured, per instruction, mapped to the CUDA source: global memory
sectors per warp request against the ideal (coalescing), shared memory wavefronts per request against
the ideal (bank conflicts); and the instruction mix, warp instructions by the SASS they become.

    from grader.emulator import report
    print(report.memory_table())        # the last launch
    report.instruction_mix()            # {"mma": ..., "ldmatrix": ..., "cp.async": ..., ...}

The tables of a day's kernels, as a command: `python -m grader.emutools.day_report`.
"""
from __future__ import annotations

import contextlib

from grader import tables
from grader.messages import say, word
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
        raise ValueError(say("emu.no_launch"))
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
    return ", ".join(f"{SASS[f]} ({f}) {n:,}" if f != "other" else f"{word('mix', 'other')} {n:,}"
                     for f, n in mix.items() if n)


def totals(launch=None, loads_only: bool = False) -> dict[str, dict]:
    """The launch's memory statistics summed over its instructions: global requests, sectors, ideal
    sectors and bytes the threads asked for; shared requests, wavefronts, ideal and the worst n-way.
    `loads_only`: global memory narrowed to what the threads read (ld, ldu, the global side of cp.async),
    stores and atomics left out, so that "read once" and "coalesced" speak of the loads."""
    launch = _launch(launch)
    out = {"global": {"requests": 0, "sectors": 0, "ideal": 0, "bytes": 0},
           "shared": {"requests": 0, "wavefronts": 0, "ideal": 0, "max_ways": 0}}
    for (pc, kind), rec in (launch.stats or {}).items():
        head, *rest = launch.program.code[pc].inst.opcode.split(".")
        if loads_only and kind == "global" and not (head in ("ld", "ldu") or (head == "cp" and "async" in rest)):
            continue
        total = out[kind]
        for key in total:
            total[key] = max(total[key], rec[key]) if key == "max_ways" else total[key] + rec[key]
    return out


def memory_rows(launch=None) -> list[dict]:
    launch = _launch(launch)
    if launch.stats is None:
        raise ValueError(say("emu.stats_off"))
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
    headers = [say("memory.line"), say("memory.space"), say("memory.requests"), say("memory.per_request"),
               say("memory.ideal"), say("memory.instruction")]
    return tables.render(
        headers,
        [[r["line"], r["kind"], r["requests"], f"{r['per_request']:.2f}", f"{r['ideal']:.2f}",
          r["instruction"] + (say("memory.ways", ways=r["max_ways"]) if r["kind"] == "shared" and r["max_ways"] > 1
                              else "")]
         for r in rows],
        right=tuple(headers[2:5]), note=say("memory.note"))


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
    return "\n".join([say("memory.launch", kernel=run.kernel, grid=run.grid, block=run.block,
                          count=f"{run.instructions:,}"),
                      say("memory.mix", mix=mix_text(instruction_mix(run))),
                      memory_table(run) if run.stats else say("memory.none")])
