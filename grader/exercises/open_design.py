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

import numpy as np

from grader import bench, checks, device
from grader.messages import say

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
        return say("design.plan", gx=self.grid[0], gy=self.grid[1], block=self.block, shared=self.shared)


def read_plan(module, name: str, args: tuple, what: str) -> Plan:
    """Run `<name>_plan(*args, plan)` on one thread and check the launch it writes; an AssertionError
    naming the bad field otherwise."""
    out = device.empty(4, "int32")
    device.launch(module.get_function(f"{name}_plan"), (1,), (1,), (*args, out), what=f"{name}_plan {what}")
    gx, gy, block, shared = (int(v) for v in device.to_host(out))
    limits = ((1 <= gx < 2 ** 31, lambda: say("design.grid_x", value=gx)),
              (1 <= gy <= 65535, lambda: say("design.grid_y", value=gy)),
              (32 <= block <= 1024 and block % 32 == 0, lambda: say("design.block", value=block)),
              (0 <= shared <= MAX_SHARED, lambda: say("design.shared", value=shared, most=MAX_SHARED)))
    problems = [text() for ok, text in limits if not ok]
    if problems:
        raise AssertionError(say("design.impossible", name=name, what=what, problems=say("sep").join(problems)))
    return Plan((gx, gy), block, shared)


def launch(module, name: str, plan: Plan, args: tuple, what: str, sync: bool = True) -> None:
    kernel = module.get_function(name)
    if sync:
        device.launch(kernel, plan.grid, (plan.block,), args, shared_mem=plan.shared, what=f"{name} {what}")
    else:
        kernel(plan.grid, (plan.block,), args, shared_mem=plan.shared)


def run(module, name: str, inputs: tuple, sizes: tuple, n_out: int, sms: int, what: str, out_name: str = "out"):
    """Plan `name` for `sizes` on `sms` SMs, then launch name(*inputs, out, *sizes) once. `out` is [n_out]
    float32, zeroed first, with one guard element past it that must keep its poison. (results, plan)."""
    plan = read_plan(module, name, (*sizes, np.int32(sms)), what)
    out = device.empty(n_out + 1, guard=1)
    out[:n_out] = 0
    launch(module, name, plan, (*inputs, out, *sizes), what)
    got = device.to_host(out)
    checks.assert_untouched(got[n_out:], np.ones(1, bool), name=f"{name} {out_name} past N {what}")
    return got[:n_out], plan


def judge(module, name: str, plan: Plan, inputs: tuple, sizes: tuple, n_out: int, nbytes: int, what: str, *,
          full_sizes: tuple, full_what: str, reread: int = 0, ceiling=None,
          at_least: float = AT_LEAST_OF_COPY) -> None:
    """Grade the design `run` just launched: on a GPU its bandwidth reading `nbytes` against `ceiling()`
    (default: the copy); on the emulator that launch's statistics (`reread`: see statistics_verdict) and
    the plan for `full_sizes` on GPU_SMS SMs. An AssertionError listing every shortfall."""
    if bench.timed():
        out = device.empty(n_out)
        _, wrong = bandwidth_verdict(lambda: launch(module, name, plan, (*inputs, out, *sizes), what, sync=False),
                                     nbytes, ceiling() if ceiling else None, at_least)
    else:
        wrong = statistics_verdict(device.current().memory_totals(), nbytes, reread)
        wrong += parallelism_verdict(read_plan(module, name, (*full_sizes, np.int32(GPU_SMS)), full_what))
    fail_if(wrong, f"{name} {what}", plan)


def statistics_verdict(totals: dict, input_bytes: int, reread: int = 0) -> list[str]:
    """What the emulator's load totals of one launch say is wrong with a design; [] if nothing.
    `reread`: bytes a design may load again on top of the input (a small vector each block stages)."""
    g, s = totals["global"], totals["shared"]
    wrong = []
    if g["requests"] == 0:
        return [say("design.loads_nothing")]
    if g["sectors"] > COALESCED * g["ideal"]:
        wrong.append(say("design.uncoalesced", sectors=f"{g['sectors'] / g['requests']:.2f}",
                         ideal=f"{g['ideal'] / g['requests']:.2f}"))
    if g["bytes"] > READ_ONCE * input_bytes + reread:
        wrong.append(say("design.reread", times=f"{(g['bytes'] - reread) / input_bytes:.2f}", loaded=f"{g['bytes']:,}",
                         size=f"{input_bytes:,}", again=say("design.again", reread=f"{reread:,}") if reread else ""))
    width = g["bytes"] / (32 * g["requests"])
    if width < WIDE_BYTES:
        wrong.append(say("design.narrow", width=f"{width:.1f}", wide=WIDE_BYTES))
    if s["requests"] and s["wavefronts"] > CONFLICT_FREE * s["ideal"]:
        wrong.append(say("design.conflicts", per=f"{s['wavefronts'] / s['requests']:.2f}",
                         ideal=f"{s['ideal'] / s['requests']:.2f}", ways=s["max_ways"]))
    return wrong


def parallelism_verdict(plan: Plan) -> list[str]:
    """What is wrong with the plan for the GPU-size shape on GPU_SMS SMs; [] if nothing."""
    per_sm = plan.threads / GPU_SMS
    if per_sm < THREADS_PER_SM:
        return [say("design.parallelism", plan=plan, per_sm=f"{per_sm:.0f}", sms=GPU_SMS, least=THREADS_PER_SM)]
    return []


def bandwidth_verdict(run, nbytes: int, ceiling: bench.Measurement | None = None,
                      at_least: float = AT_LEAST_OF_COPY) -> tuple[float, list[str]]:
    """Time `run()`, which reads `nbytes`, against `ceiling` (default: the copy of the same bytes, read +
    written) measured just before; (the share of the ceiling, what is wrong)."""
    ceiling = ceiling or bench.copy_ceiling(2 * nbytes)
    kernel = statistics.median(bench.time_ms(run, warmup=3, repeat=20))
    share = (nbytes / kernel) / (ceiling.nbytes / ceiling.ms)
    if share < at_least:
        return share, [say("design.bandwidth", gbps=f"{nbytes / kernel / 1e6:.0f}", share=f"{share:.0%}",
                           ceiling=ceiling.label.removesuffix(" (ceiling)"), ceiling_gbps=f"{ceiling.gbps:.0f}",
                           least=f"{at_least:.0%}")]
    return share, []


def fail_if(wrong: list[str], what: str, plan: Plan) -> None:
    """An AssertionError listing what is wrong with the design `what`, launched with `plan`; nothing if
    nothing is."""
    if wrong:
        what = say("design.launched", what=what, plan=plan)
        raise AssertionError(say("design.short", what=what, wrong="\n  - ".join(wrong)))

