"""The emulator's own benchmark: a fixed set of launches of the course's solutions (memory-bound grids
of thousands of blocks, and tensor-core kernels of a few blocks where Python's per-instruction cost
shows), each timed after a warm-up launch, in warp instructions per CPU second (what other processes
on the machine disturb least).

    python -m grader.emutools.speed                       # every launch, best of 3
    python -m grader.emutools.speed block_tile gemm -r 5  # some of them
    python -m grader.emutools.speed --save before.npz     # keep the outputs ...
    python -m grader.emutools.speed --compare before.npz  # ... and check a change left them bitwise equal

Inputs are fixed (seeded), so two runs produce the same outputs unless the emulator changed.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from grader import paths

SOLUTIONS = paths.SOLUTIONS


@dataclass(frozen=True)
class Case:
    name: str
    what: str
    prepare: Callable  # (rng) -> (launch(), outputs()): launch runs the kernel once; outputs are host arrays


def _vector_add(rng):
    from grader import device
    n = 1 << 20
    a, b = (device.asarray(rng.standard_normal(n).astype(np.float32)) for _ in range(2))
    c = device.empty(n, "float32")
    kernel = device.load(SOLUTIONS / "day01/vector_add.cu").get_function("vector_add")
    return (lambda: device.launch(kernel, (n // 256,), (256,), (a, b, c, np.int64(n))),
            lambda: [device.to_host(c)])


def _block_tile(rng):
    from grader import device
    from grader.exercises import day09
    m = n = k = 128
    a, b = (device.asarray(rng.standard_normal(s).astype(np.float16)) for s in ((m, k), (k, n)))
    c = device.empty((m, n), "float32")
    module = device.load(SOLUTIONS / "day09/block_tile.cu")
    return (lambda: day09.block_tile_launch(module, "float16", a, b, c, m, n, k), lambda: [device.to_host(c)])


def _gemm(rng):
    from grader import device
    from grader.exercises import day10
    m, n, k = 256, 256, 256
    a, b = (device.asarray(rng.standard_normal(s).astype(np.float16)) for s in ((m, k), (k, n)))
    c = device.empty((m, n), "float16")
    module = device.load(SOLUTIONS / "day10/gemm.cu")
    return lambda: day10.launch(module, a, b, c, m, n, k, n), lambda: [device.to_host(c)]


def _decode(rng):
    from grader import device
    from grader.exercises import day11
    batch, kv_len, qo_heads, kv_heads = 2, 1000, 8, 2
    q = device.asarray(rng.standard_normal((batch, qo_heads, day11.HEAD_DIM)).astype(np.float16))
    k, v = (device.asarray(rng.standard_normal((batch, kv_len, kv_heads, day11.HEAD_DIM)).astype(np.float16))
            for _ in range(2))
    o = device.empty((batch, qo_heads, day11.HEAD_DIM), "float16")
    module = device.load(SOLUTIONS / "day11/decode_attention.cu")
    return lambda: day11.launch_decode_attention(module, q, k, v, o), lambda: [device.to_host(o)]


def _prefill(rng):
    from grader import device
    from grader.exercises import day12
    heads, q_len, kv_len, d = 2, 128, 256, 128
    q = device.asarray(rng.standard_normal((heads, q_len, d)).astype(np.float16))
    k, v = (device.asarray(rng.standard_normal((heads, kv_len, d)).astype(np.float16)) for _ in range(2))
    out = device.empty((heads, q_len, d), "float16")
    module = device.load(SOLUTIONS / "day12/attention_prefill.cu")
    return (lambda: day12.attention_launch("prefill", module, q, k, v, out, heads, q_len, kv_len, d, True),
            lambda: [device.to_host(out)])


CASES = (
    Case("vector_add", "day 1 vector_add, n = 2^20 (4096 blocks of 256)", _vector_add),
    Case("block_tile", "day 9 block_tile f16, 128^3 (4 blocks: ldmatrix + mma)", _block_tile),
    Case("gemm", "day 10 gemm f16, 256^3 (cp.async, ldmatrix, mma)", _gemm),
    Case("decode", "day 11 decode_attention, batch 2, kv 1000, heads 8/2", _decode),
    Case("prefill", "day 12 prefill d128 causal, 2 heads, q 128, kv 256 (mma)", _prefill),
)


@dataclass
class Result:
    case: Case
    cpu: list[float]    # CPU seconds of each timed launch (what other processes on the machine disturb least)
    wall: list[float]
    instructions: int
    thread_instructions: int
    outputs: list[np.ndarray]

    @property
    def best(self) -> float:
        return min(self.cpu)

    @property
    def rate(self) -> float:
        return self.instructions / self.best


def measure(case: Case, repeat: int = 3, seed: int = 0) -> Result:
    """Time `repeat` launches of the case (after one untimed launch that decodes the kernel)."""
    from grader.emulator import program
    launch, outputs = case.prepare(np.random.default_rng(seed))
    launch()
    cpu, wall = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        launch()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
    run = program.last_launch
    return Result(case, cpu, wall, run.instructions, run.thread_instructions, outputs())


def table(results: list[Result]) -> str:
    from grader import tables
    rows = [[r.case.name, f"{r.instructions:,}", f"{r.best:.3f}", f"{(max(r.cpu) - r.best) / r.best:.0%}",
             f"{min(r.wall):.3f}", f"{r.rate / 1e6:.2f}", f"{r.thread_instructions / r.best / 1e6:.1f}", r.case.what]
            for r in results]
    numbers = ("warp instr.", "CPU s", "spread", "wall s", "M warp instr./s", "M thread instr./s")
    return tables.render(["launch", *numbers, "what"], rows, right=numbers,
                         note="CPU s: the best of the timed launches (CPU time of this process); spread: "
                              "(slowest - best) / best; wall s: the best wall-clock time; rates per CPU second")


def compare(results: list[Result], path: Path) -> list[str]:
    """Names of the outputs that differ bitwise from those saved in `path` (missing ones too); a
    ValueError when `path` is not a save of this benchmark."""
    try:
        saved = np.load(path)
    except (OSError, ValueError) as e:
        raise ValueError(f"--compare {path}: not an output file of --save ({type(e).__name__})") from None
    bad = []
    for r in results:
        for i, out in enumerate(r.outputs):
            key = f"{r.case.name}.{i}"
            if key not in saved.files:
                bad.append(f"{key} (not in {path})")
            elif saved[key].tobytes() != out.tobytes() or saved[key].shape != out.shape:
                bad.append(key)
    return bad


def main(argv=None) -> int:
    names = [c.name for c in CASES]
    ap = argparse.ArgumentParser(prog="python -m grader.emutools.speed", description=__doc__.split("\n\n")[0])
    ap.add_argument("only", nargs="*", metavar="LAUNCH", help=f"launches to run (default all): {', '.join(names)}")
    ap.add_argument("-r", "--repeat", type=int, default=3, help="timed launches per case (default 3)")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--save", type=Path, metavar="FILE.npz", help="save the outputs")
    group.add_argument("--compare", type=Path, metavar="FILE.npz", help="compare the outputs bitwise with a save")
    args = ap.parse_args(argv)
    unknown = [n for n in args.only if n not in names]
    if unknown:
        ap.error(f"unknown launch {unknown[0]!r}: expected some of {', '.join(names)}")
    if not SOLUTIONS.is_dir():
        ap.error("the emulator's speed, timed on the course's solutions, is an instructor feature: this student "
                 "edition of the course has no solutions/")
    if args.repeat < 1:
        ap.error(f"--repeat {args.repeat}: expected at least 1")
    if args.compare is not None and not args.compare.is_file():
        ap.error(f"--compare {args.compare}: no such file")
    if args.save is not None and not args.save.parent.is_dir():
        ap.error(f"--save {args.save}: no folder {args.save.parent}")
    os.environ["COURSE_BACKEND"] = "emulator"
    results = []
    for case in CASES:
        if not args.only or case.name in args.only:
            results.append(measure(case, args.repeat))
            print(f"  {case.name}: {results[-1].best:.2f} s", file=sys.stderr, flush=True)
    print(table(results))
    if args.save is not None:
        np.savez(args.save, **{f"{r.case.name}.{i}": o for r in results for i, o in enumerate(r.outputs)})
        print(f"outputs saved to {args.save}")
    if args.compare is not None:
        try:
            bad = compare(results, args.compare)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        if bad:
            print(f"outputs differ from {args.compare}: {', '.join(bad)}")
            return 1
        print(f"outputs bitwise equal to {args.compare} ({sum(len(r.outputs) for r in results)} arrays)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
