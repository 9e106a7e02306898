"""Timing kernels the way the course reports them: CUDA events, warm-up, the median of many runs,
the L2 cache flushed between runs, and ceilings measured in the same process.

Results are ratios to a ceiling: the device-to-device copy bandwidth (bytes read + written) for
memory-bound kernels, cuBLAS through `cupy.matmul` for matrix products.

The timing itself is the device backend's (`device.current().time_ms`). A backend that cannot time
(the emulator) is not timed: `measure` runs the work once and prints the memory statistics of its last
launch instead; its Measurement says `timed=False` (ms is NaN), and the ceilings are not measured at all.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field

import numpy as np

from grader import device, tables
from grader.messages import phrased, say


@dataclass
class Measurement:
    label: str
    size: int             # the x-axis: elements, bytes or n, as the exercise states
    ms: float             # median time of one launch
    nbytes: int = 0       # bytes a perfect kernel must move (read + written)
    flops: float = 0.0
    runs: list[float] = field(default_factory=list, repr=False)
    timed: bool = True    # False on the emulator: ms is NaN, `memory` holds the memory statistics
    memory: str = field(default="", repr=False)

    @property
    def gbps(self) -> float:
        return self.nbytes / (self.ms * 1e-3) / 1e9

    @property
    def tflops(self) -> float:
        return self.flops / (self.ms * 1e-3) / 1e12


def flush_l2() -> None:
    """Evict the L2 cache by writing a buffer twice its size (NoTiming where nothing is timed)."""
    device.current().flush_l2()


def time_ms(fn, *, warmup: int = 3, repeat: int = 20, flush: bool = True) -> list[float]:
    """Run `fn()` (which launches GPU work) `warmup` times, then time `repeat` runs with CUDA events,
    flushing L2 before each. Returns every run's milliseconds; NoTiming where nothing is timed."""
    return device.current().time_ms(fn, warmup=warmup, repeat=repeat, flush=flush)


def timed() -> bool:
    """False where kernels cannot be timed (the emulator)."""
    return device.current().timed


def measure(label: str, fn, *, size: int, nbytes: int = 0, flops: float = 0.0,
            warmup: int = 3, repeat: int = 20) -> Measurement:
    """The median of `repeat` timed runs of `fn()`; on the emulator one untimed run, whose memory
    statistics (sectors per request, bank conflicts) are printed and kept in `.memory`."""
    backend = device.current()
    if not backend.timed:
        fn()
        table = backend.memory_report()
        print(say("bench.last_launch", label=label, not_timed=say("bench.not_timed"), table=table))
        return Measurement(label, size, float("nan"), nbytes, flops, timed=False, memory=table)
    runs = time_ms(fn, warmup=warmup, repeat=repeat)
    return Measurement(label, size, statistics.median(runs), nbytes, flops, runs)


def measure_interleaved(fns: dict, *, size: int, nbytes: int = 0, flops: float = 0.0, rounds: int = 5,
                        repeat: int = 4) -> dict[str, Measurement]:
    """`measure` for several launches `{label: fn}` timed in turns, `rounds` times `repeat` runs each:
    a clock that drifts with power and heat (an H100 running GEMMs loses ~10% within seconds) falls on
    every kernel alike, so their ratios hold. The median of each label's runs."""
    if not timed():
        return {label: measure(label, fn, size=size, nbytes=nbytes, flops=flops) for label, fn in fns.items()}
    runs = {label: [] for label in fns}
    for r in range(rounds):
        for label, fn in fns.items():
            runs[label] += time_ms(fn, warmup=0 if r else 3, repeat=repeat)
    return {label: Measurement(label, size, statistics.median(ts), nbytes, flops, ts) for label, ts in runs.items()}


def _untimed(label: str, size: int, nbytes: int = 0, flops: float = 0.0) -> Measurement:
    return Measurement(say("bench.untimed_label", label=label, not_timed=say("bench.not_timed")), size, float("nan"), nbytes, flops, timed=False)


def copy_ceiling(nbytes: int, repeat: int = 20) -> Measurement:
    """The device-to-device copy `b[...] = a` of `nbytes` (counted read + written: 2x the buffer)."""
    half = max(nbytes // 2, 4) // 4 * 4
    if not timed():
        return _untimed("copy (ceiling)", 2 * half, 2 * half)
    cp = device.require_gpu()
    a = cp.ones(half // 4, dtype=np.float32)
    b = cp.empty_like(a)

    def copy():
        b[...] = a

    return measure("copy (ceiling)", copy, size=2 * half, nbytes=2 * half, repeat=repeat)


def matmul_ceiling(m: int, n: int, k: int, dt="float16", repeat: int = 10) -> Measurement:
    """cuBLAS through `cupy.matmul` on random inputs (never zeros) of the given shape."""
    if not timed():
        return _untimed("cuBLAS (ceiling)", m, flops=2.0 * m * n * k)
    cp = device.require_gpu()
    dt = device.dtype(dt)
    rng = cp.random.default_rng(0)
    a = rng.standard_normal((m, k), dtype=np.float32).astype(dt)
    b = rng.standard_normal((k, n), dtype=np.float32).astype(dt)
    c = cp.empty((m, n), dtype=dt)
    return measure("cuBLAS (ceiling)", lambda: cp.matmul(a, b, out=c), size=m,
                   flops=2.0 * m * n * k, repeat=repeat)


def ratio(kernel: Measurement, ceiling: Measurement) -> float:
    """Achieved over ceiling, by bandwidth when bytes are given, else by FLOP rate."""
    if kernel.nbytes and ceiling.nbytes:
        return kernel.gbps / ceiling.gbps
    return kernel.tflops / ceiling.tflops


@dataclass
class Report:
    """A benchmark's measurements: one series per kernel version, and the ceiling at the same sizes."""
    title: str
    xlabel: str
    metric: str                                   # "GB/s" or "TFLOP/s"
    series: dict[str, list[Measurement]] = field(default_factory=dict)
    ceiling: list[Measurement] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ceiling_name: str = ""                        # what the ceiling is; default: copy bandwidth / cuBLAS
    earlier: tuple[str, ...] = ()                 # series of an earlier version (a ladder's rung below), drawn
                                                  # and tabled for comparison, not held to the target

    @property
    def ceiling_label(self) -> str:
        return self.ceiling_name or {"GB/s": "copy bandwidth", "TFLOP/s": "cuBLAS"}.get(self.metric, "its ceiling")

    def value(self, m: Measurement) -> float:
        return m.gbps if self.metric == "GB/s" else m.tflops

    def ratios(self, label: str) -> list[float]:
        """Each size's achieved / ceiling for one series."""
        return [self.value(m) / self.value(c) for m, c in zip(self.series[label], self.ceiling)]

    def final_ratio(self, label: str) -> float:
        """The ratio at the largest size: what the course's targets are stated for."""
        return self.ratios(label)[-1]

    def table(self) -> str:
        if not all(m.timed for m in self.ceiling):
            return say("bench.table_untimed", title=phrased(self.title), not_timed=say("bench.not_timed"))
        headers = [say("bench.size"), *(phrased(s) for s in self.series), say("bench.ceiling")]
        rows = [[c.size, *(f"{self.value(ms[i]):.1f} ({self.value(ms[i]) / self.value(c):.0%})"
                           for ms in self.series.values()), f"{self.value(c):.1f}"]
                for i, c in enumerate(self.ceiling)]
        table = tables.render(headers, rows, right=tuple(headers), note=say("bench.units", metric=self.metric))
        return "\n".join([phrased(self.title), table, *self.notes])


def bandwidth_sweep(report: Report, series: dict, make, points: list, nbytes: list[int] | int,
                    xs: list[int] | None = None, ceiling=None) -> Report:
    """Fill a GB/s `report` the way every memory-bound benchmark does: for each `label: what` of
    `series` (a module, a (module, dtype) pair ...), the launch `make(what, point)` returns (having made
    the point's inputs) measured at each of `points`, moving `nbytes[i]` bytes (an int: the same at
    every point), on the x-axis at `xs[i]` (default: the bytes); then the ceiling: `ceiling(point)`'s
    Measurement where given (a library's own kernel), else the device-to-device copy of the same bytes
    (measured once per byte count)."""
    moved = [nbytes] * len(points) if isinstance(nbytes, int) else list(nbytes)
    xs = moved if xs is None else list(xs)
    for label, what in series.items():
        report.series[label] = [measure(label, make(what, p), size=x, nbytes=n) for p, x, n in zip(points, xs, moved)]
    if ceiling is None:
        copies = {n: copy_ceiling(n) for n in dict.fromkeys(moved)}
        ceilings = [copies[n] for n in moved]
    else:
        ceilings = [ceiling(p) for p in points]
    report.ceiling = [Measurement(**{**vars(c), "size": x}) for c, x in zip(ceilings, xs)]
    return report
