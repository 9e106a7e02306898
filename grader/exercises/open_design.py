"""Open-design exercises (one a week): the student picks the launch, the tiles and the vector width;
the grade is the kernel's speed, measured on a GPU and judged from the emulator's memory statistics
without one.

The student's file has a `<name>_plan` kernel besides the kernel itself: one thread of it writes
plan[0..3] = grid.x, grid.y, block.x, dynamic shared bytes for the shape at hand, and the grader launches
the kernel with that plan (`read_plan`, checked first). `judge` then grades a design:

- on a GPU, bytes per second against a ceiling measured in the same process: the device-to-device
  copy (`AT_LEAST_OF_COPY`), or the library's own kernel where one exists (day 10: cuBLAS's GEMV);
- on the emulator, the last launch's loads (`device.current().memory_totals()`): coalesced, the input
  read once, wide loads, shared memory without bank conflicts; and the plan at the GPU-size shape
  launching enough threads per SM to keep the bytes in flight that Little's law asks for.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from grader import bench, device

AT_LEAST_OF_COPY = 0.75   # a design passes on a GPU at this share of the copy bandwidth (the course's: 87-90% on an H100)
GPU_SMS = 132             # the H100 SXM the emulator's judgement plans for
THREADS_PER_SM = 512      # ... with at least this many threads per SM at the GPU-size shape
COALESCED = 1.10          # sectors per load request within this factor of the ideal
READ_ONCE = 1.10          # bytes loaded within this factor of the input's size
WIDE_BYTES = 8            # average bytes per thread and load instruction
CONFLICT_FREE = 1.25      # shared wavefronts within this factor of the ideal
MAX_SHARED = 227 << 10    # an H100 block's dynamic shared memory (opt-in)


@dataclass(frozen=True)
class Plan:
    grid: tuple[int, int]
    block: int
    shared: int

    @property
    def threads(self) -> int:
        return self.grid[0] * self.grid[1] * self.block

    def __str__(self) -> str:
        return f"grid ({self.grid[0]}, {self.grid[1]}), block {self.block}, {self.shared} B dynamic shared"


def read_plan(module, name: str, args: tuple, what: str) -> Plan:
    """Run `<name>_plan(*args, plan)` on one thread and check the launch it writes; an AssertionError
    naming the bad field otherwise."""
    out = device.empty(4, "int32")
    device.launch(module.get_function(f"{name}_plan"), (1,), (1,), (*args, out), what=f"{name}_plan {what}")
    gx, gy, block, shared = (int(v) for v in device.to_host(out))
    limits = ((1 <= gx < 2 ** 31, f"grid.x = {gx} (1 .. 2^31 - 1)"), (1 <= gy <= 65535, f"grid.y = {gy} (1 .. 65535)"),
              (32 <= block <= 1024 and block % 32 == 0, f"block.x = {block} (a multiple of 32 from 32 to 1024)"),
              (0 <= shared <= MAX_SHARED, f"{shared} bytes of dynamic shared memory (0 .. {MAX_SHARED})"))
    problems = [text for ok, text in limits if not ok]
    if problems:
        raise AssertionError(f"{name}_plan {what} wrote an impossible launch: {'; '.join(problems)} "
                             f"(plan[0..3] = grid.x, grid.y, block.x, dynamic shared bytes)")
    return Plan((gx, gy), block, shared)


def launch(module, name: str, plan: Plan, args: tuple, what: str, sync: bool = True) -> None:
    kernel = module.get_function(name)
    if sync:
        device.launch(kernel, plan.grid, (plan.block,), args, shared_mem=plan.shared, what=f"{name} {what}")
    else:
        kernel(plan.grid, (plan.block,), args, shared_mem=plan.shared)


def statistics_verdict(totals: dict, input_bytes: int, reread: int = 0) -> list[str]:
    """What the emulator's load totals of one launch say is wrong with a design; [] if nothing.
    `reread`: bytes a design may load again on top of the input (a small vector each block stages)."""
    g, s = totals["global"], totals["shared"]
    wrong = []
    if g["requests"] == 0:
        return ["it loads nothing from global memory"]
    if g["sectors"] > COALESCED * g["ideal"]:
        wrong.append(f"loads not coalesced: {g['sectors'] / g['requests']:.2f} sectors per request where "
                     f"{g['ideal'] / g['requests']:.2f} would do (neighbouring lanes must read neighbouring "
                     f"addresses)")
    if g["bytes"] > READ_ONCE * input_bytes + reread:
        wrong.append(f"the input read {(g['bytes'] - reread) / input_bytes:.2f} times ({g['bytes']:,} bytes "
                     f"loaded, {input_bytes:,} in the input" + (f", {reread:,} allowed again)" if reread else ")"))
    width = g["bytes"] / (32 * g["requests"])
    if width < WIDE_BYTES:
        wrong.append(f"narrow loads: {width:.1f} bytes per thread and load instruction on average "
                     f"(at least {WIDE_BYTES}: vec_t)")
    if s["requests"] and s["wavefronts"] > CONFLICT_FREE * s["ideal"]:
        wrong.append(f"shared-memory bank conflicts: {s['wavefronts'] / s['requests']:.2f} wavefronts per "
                     f"request where {s['ideal'] / s['requests']:.2f} would do (worst {s['max_ways']}-way)")
    return wrong


def parallelism_verdict(plan: Plan) -> list[str]:
    """What is wrong with the plan for the GPU-size shape on GPU_SMS SMs; [] if nothing."""
    per_sm = plan.threads / GPU_SMS
    if per_sm < THREADS_PER_SM:
        return [f"too little parallelism on a GPU: the plan for the full-size shape ({plan}) gives "
                f"{per_sm:.0f} threads per SM of an H100's {GPU_SMS} (at least {THREADS_PER_SM}): too few "
                f"bytes in flight to cover the memory's latency"]
    return []


def bandwidth_verdict(run, nbytes: int, ceiling: bench.Measurement | None = None,
                      at_least: float = AT_LEAST_OF_COPY) -> tuple[float, list[str]]:
    """Time `run()`, which reads `nbytes`, against `ceiling` (default: the copy of the same bytes, read +
    written) measured just before; (the share of the ceiling, what is wrong)."""
    ceiling = ceiling or bench.copy_ceiling(2 * nbytes)
    kernel = statistics.median(bench.time_ms(run, warmup=3, repeat=20))
    share = (nbytes / kernel) / (ceiling.nbytes / ceiling.ms)
    if share < at_least:
        return share, [f"{nbytes / kernel / 1e6:.0f} GB/s: {share:.0%} of {ceiling.label.removesuffix(' (ceiling)')} "
                       f"({ceiling.gbps:.0f} GB/s), "
                       f"below the {at_least:.0%} a design needs"]
    return share, []


def fail_if(wrong: list[str], what: str) -> None:
    if wrong:
        raise AssertionError(f"{what}: the design falls short:\n  - " + "\n  - ".join(wrong))

