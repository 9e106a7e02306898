"""`python -m grader autotune`: search the day 10 GEMM's configuration space on the GPU in use.

Each configuration of `grader.exercises.day10.search_space` (tile sizes, warps, stages; swizzled) is
compiled from your days/day10/gemm.cu (or the course's, with --solutions), checked on an odd shape,
then timed at each requested shape against cuBLAS (`cupy.matmul`) measured in the same process.
The best configuration per shape is saved for this GPU; `day10.gemm` and the day's benchmark use it.

    python -m grader autotune                      # 4096^3 and 8192^3
    python -m grader autotune --shapes 4096 2048x8192x1024 --max-configs 8
    python -m grader autotune --list               # the search space, no GPU needed
"""
from __future__ import annotations

import json
import re
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from grader import bench, checks, compiler, device, exercises, paths, runner, tables
from grader.exercises import day10
from grader.messages import say

HELP = "search the day 10 GEMM's configuration space on the GPU in use; save the best per shape"
CHECK_SHAPE = (257, 263, 136)  # M, N not multiples of any tile; K a multiple of 8 but not of bk


def parse_shape(text: str) -> tuple[int, int, int]:
    """'4096' -> (4096, 4096, 4096); 'MxNxK' -> (M, N, K); a clear error otherwise."""
    parts = text.lower().split("x")
    if len(parts) not in (1, 3) or not all(re.fullmatch(r"\d+", p) for p in parts):
        raise ValueError(say("autotune.shape", text=repr(text)))
    dims = tuple(int(p) for p in parts) * (3 if len(parts) == 1 else 1)
    day10.validate_shapes((dims[0], dims[2]), (dims[2], dims[1]))
    return dims


def add_arguments(parser) -> None:
    parser.add_argument("--shapes", nargs="+", default=["4096", "8192"], metavar="SHAPE",
                        help="N (cube) or MxNxK, K a multiple of 8 (default: 4096 8192)")
    parser.add_argument("--solutions", action="store_true",
                        help="tune solutions/day10/gemm.cu instead of your days/day10/gemm.cu")
    parser.add_argument("--max-configs", type=int, default=None, metavar="N",
                        help="time only the first N configurations (the default one is always first)")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per configuration and shape")
    parser.add_argument("--list", action="store_true", help="print the search space and exit (no GPU)")
    parser.add_argument("--out", default=str(day10.TUNED_FILE), help="where the best configurations go (JSON)")


def candidates(max_smem: int, max_configs: int | None) -> list[day10.GemmConfig]:
    """The search space, the default configuration first."""
    space = [day10.DEFAULT] + [c for c in day10.search_space(max_smem) if c != day10.DEFAULT]
    if max_configs is not None:
        if max_configs < 1:
            raise ValueError(say("autotune.at_least", option="--max-configs", value=max_configs))
        space = space[:max_configs]
    return space


def save(path: Path, gpu: str, best: dict) -> None:
    """Merge this run's best configurations into the JSON file: {gpu: {"MxNxK": entry}}."""
    data = json.loads(path.read_text()) if path.is_file() else {}
    data.setdefault(gpu, {}).update(best)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))


def main(args) -> int:
    shapes = [parse_shape(s) for s in args.shapes]
    if args.repeat < 1:
        raise ValueError(say("autotune.at_least", option="--repeat", value=args.repeat))
    if args.list:
        headers = [say("autotune.config"), say("autotune.threads"), say("autotune.smem")]
        print(tables.render(headers, [[cfg.name, cfg.threads, cfg.smem_bytes() // 1024]
                                      for cfg in candidates(227 * 1024, args.max_configs)], right=tuple(headers[1:])))
        return 0
    if not device.current().timed:  # the emulator: nothing to time, so nothing to tune
        raise device.NoTiming(say("autotune.no_timing", why=device.why_not_hardware()))
    cp = device.require_gpu()
    props = device.properties()
    space = candidates(props["smem_per_block_optin"] or 48 * 1024, args.max_configs)
    ex = exercises.get("day10", "gemm")
    source = runner.source_of(ex, solutions=args.solutions or None)
    shown = source.relative_to(paths.ROOT) if source.is_relative_to(paths.ROOT) else source
    print(say("autotune.start", source=shown, gpu=props["name"], configs=len(space), shapes=len(shapes)), flush=True)

    inputs, cublas = {}, {}
    for m, n, k in shapes:
        inputs[(m, n, k)] = (device.random((m, k), "float16", seed=1), device.random((k, n), "float16", seed=2),
                             cp.empty((m, n), dtype=np.float16))
        cublas[(m, n, k)] = bench.matmul_ceiling(m, n, k, repeat=args.repeat).tflops

    results: dict[day10.GemmConfig, dict] = {}
    for i, cfg in enumerate(space, 1):
        try:
            module = day10.load_config(source, cfg)
            day10.check_gemm(module, checks.new_seed(), *CHECK_SHAPE)
        except (compiler.CompileError, AssertionError) as e:
            print(f"[{i}/{len(space)}] {cfg.name:<28} " + say("autotune.rejected", why=str(e).splitlines()[0]), flush=True)
            continue
        row = {}
        for (m, n, k), (a, b, c) in inputs.items():
            b_pad, ldb = day10.padded_b(b, n)  # b itself unless N % 8 != 0, as gemm() does it
            day10.launch(module, a, b_pad, c, m, n, k, ldb)  # the first launch is checked for faults
            fn = lambda: day10.launch(module, a, b_pad, c, m, n, k, ldb, sync=False)  # noqa: E731
            row[(m, n, k)] = bench.measure(cfg.name, fn, size=m, flops=2.0 * m * n * k, repeat=args.repeat).tflops
        results[cfg] = row
        print(f"[{i}/{len(space)}] {cfg.name:<28} " + "  ".join(
            f"{s[0]}x{s[1]}x{s[2]}: {t:6.1f} TFLOP/s ({t / cublas[s]:4.0%})" for s, t in row.items()), flush=True)
    if not results:
        print(say("autotune.none_passed"))
        return 1

    best, rows = {}, []
    for shape in shapes:
        cfg = max(results, key=lambda c: results[c][shape])
        tflops = results[cfg][shape]
        key = "x".join(map(str, shape))
        best[key] = {"config": asdict(cfg), "tflops": round(tflops, 1), "cublas_tflops": round(cublas[shape], 1),
                     "ratio": round(tflops / cublas[shape], 3), "source": str(source.name),
                     "when": time.strftime("%Y-%m-%d %H:%M")}
        rows.append([key, cfg.name, f"{tflops:.1f}", f"{tflops / cublas[shape]:.1%}", f"{cublas[shape]:.1f}"])
    headers = [say("autotune.shape_col"), say("autotune.config"), "TFLOP/s", say("autotune.of_cublas"), "cuBLAS TFLOP/s"]
    print("\n" + say("autotune.best", gpu=props["name"]))
    print(tables.render(headers, rows, right=tuple(headers[2:])))
    save(Path(args.out), props["name"], best)
    print(say("autotune.saved", path=args.out))
    return 0
