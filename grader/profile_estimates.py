"""What `python -m grader profile` shows without a GPU: estimates from the PTX emulator, in the shape of
the Nsight Compute table. Nothing here is measured on a GPU: no times, no stalls, no caches.

- global memory: 32-byte sectors per warp request against the ideal (coalescing), per source line;
- shared memory: wavefronts per request against the ideal (bank conflicts), per source line;
- the instruction mix (warp instructions by kind) and divergence (active threads per warp instruction);
- occupancy on an H100, from the compiled sm_90 cubin's registers and shared memory (`grader.sass`) and
  the launch's block size, as the CUDA occupancy calculator computes it.

`recording()` collects every launch made inside it with its per-instruction counts; it wraps the
emulator's `launch`, so it is used in `grader.profile`'s child process only.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from grader import ncu
from grader.emulator import program, report
from grader.messages import say, word

#: An H100 SM (sm_90), for the occupancy estimate.
H100 = {"registers": 65536, "shared": 228 << 10, "reserved_shared": 1 << 10, "threads": 2048, "warps": 64,
        "blocks": 32, "register_unit": 256, "shared_unit": 128}

MEMORY = ("ld", "st", "ldu", "atom", "red", "prefetch")
FLOAT_TYPES = {"f16", "bf16", "f16x2", "bf16x2", "f32", "f64"}
SPECIAL = {"ex2", "lg2", "rsqrt", "sin", "cos", "tanh"}


@dataclass
class Record:
    """One launch on the emulator and how often each of its instructions ran."""
    launch: object                          # grader.emulator.machine.Launch
    warps: np.ndarray                       # per instruction (pc): warp instructions executed
    kernel: str = field(init=False)

    def __post_init__(self):
        self.kernel = self.launch.kernel


@contextlib.contextmanager
def recording():
    """A list that receives a Record for every kernel launched on the emulator inside the block (the
    emulator counts each instruction's warp executions itself: `Launch.warps_per_pc`)."""
    records: list[Record] = []
    original = program.launch

    def launch(kernel, grid, block, args, shared_mem=0):
        run = original(kernel, grid, block, args, shared_mem)
        records.append(Record(run, np.asarray(run.warps_per_pc, np.int64)))
        return run

    program.launch = launch
    try:
        yield records
    finally:
        program.launch = original


def category(opcode: str) -> str:
    """The kind of a PTX instruction, for the instruction mix."""
    parts = opcode.split(".")
    head, rest = parts[0], set(parts[1:])
    if head in ("mma", "wmma"):
        return "tensor core (mma)"
    if head == "ldmatrix":
        return "shared memory"
    if head == "cp" and "async" in rest:
        return "barriers and waits" if rest & {"commit_group", "wait_group", "wait_all"} else "global memory"
    if head in MEMORY:
        for space in ("global", "shared"):
            if space in rest:
                return f"{space} memory"
        return "other memory (param, local, generic)"
    if head in ("bar", "barrier", "membar", "fence"):
        return "barriers and waits"
    if head in ("shfl", "vote", "redux", "match", "activemask"):
        return "warp shuffles and votes"
    if head in SPECIAL or (head in ("rcp", "sqrt") and "approx" in rest):
        return "special functions (MUFU)"
    if head in ("cvt", "cvta", "mov"):
        return "conversions and moves"
    if rest & FLOAT_TYPES:
        return "floating point"
    return "integer and logic"


def mix(record: Record) -> dict[str, int]:
    """Warp instructions by kind, most first; branches and exits are what the counts leave over."""
    counts: dict[str, int] = {}
    for op, n in zip(record.launch.program.code, record.warps):
        if n:
            kind = category(op.inst.opcode)
            counts[kind] = counts.get(kind, 0) + int(n)
    rest = record.launch.instructions - sum(counts.values())
    if rest > 0:
        counts["control flow (branches, exits)"] = rest
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def memory(record: Record) -> dict[str, dict]:
    """Totals over the launch (`grader.emulator.report.totals`)."""
    return report.totals(record.launch)


def occupancy(threads: int, registers: int, shared: int) -> tuple[float, str, int]:
    """(fraction of the SM's 64 warps, what limits it, blocks per SM) for a block of `threads` threads
    using `registers` per thread and `shared` bytes of shared memory, on an H100."""
    warps = -(-threads // 32)
    per_warp = -(-max(registers, 1) * 32 // H100["register_unit"]) * H100["register_unit"]
    smem = -(-(shared + H100["reserved_shared"]) // H100["shared_unit"]) * H100["shared_unit"]
    limits = {"registers": H100["registers"] // per_warp // warps,
              "shared memory": H100["shared"] // smem,
              "block size (warps per SM)": H100["warps"] // warps,
              "blocks per SM": H100["blocks"]}
    blocks = min(limits.values())
    limiter = " and ".join(k for k, v in limits.items() if v == blocks)
    return blocks * warps / H100["warps"], limiter, blocks


def rows(record: Record, resources: dict) -> dict[str, str]:
    """The table's rows (the keys of grader.profile.rows()) for one launch; `resources` is the kernel's entry of
    `grader.sass.resources` (registers, shared) for sm_90, or {} when unknown."""
    launch = record.launch
    mem = memory(record)
    g, s = mem["global"], mem["shared"]
    kinds = mix(record)
    total = max(launch.instructions, 1)
    threads = int(np.prod(launch.block))
    out = {"duration": say("cell.not_timed"),
           "sectors": (say("cell.sectors", per=f"{g['sectors'] / g['requests']:.2f}",
                           ideal=f"{g['ideal'] / g['requests']:.2f}") if g["requests"] else say("cell.no_global")),
           "bank_conflicts": (say("cell.extra", count=f"{s['wavefronts'] - s['ideal']:,}") if s["requests"]
                              else say("cell.no_shared")),
           "instructions": f"{launch.instructions:,}",
           "active_threads": say("cell.of_32", threads=f"{launch.thread_instructions / total:.1f}"),
           "mix": ", ".join(f"{word('mix', k)} {v / total:.0%}" for k, v in list(kinds.items())[:4]),
           "tensor": say("cell.mma_share", share=f"{kinds.get('tensor core (mma)', 0) / total:.1%}")}
    if "registers" in resources:
        static = resources.get("shared", 0)
        frac, limiter, blocks = occupancy(threads, resources["registers"], static + launch.shared_mem)
        out["theoretical"] = say("cell.occupancy", frac=f"{frac:.0%}", blocks=blocks, threads=threads,
                                 limiter=ncu.limiters(limiter.split(" and ")))
        out["registers"] = str(resources["registers"])
        out["smem"] = f"{(static + launch.shared_mem) / 1024:.1f} KiB"
    return out


def line_rows(record: Record, top: int = 6) -> list[dict]:
    """The memory instructions furthest from their ideal, by source line: global sectors and shared
    wavefronts per request (n-way bank conflicts)."""

    found = sorted(report.memory_rows(record.launch), key=lambda r: -r["per_request"] / max(r["ideal"], 1e-9))
    return found[:top]
