"""`bench.bandwidth_sweep`, the loop every memory-bound benchmark shares: what it measures, at which
sizes and bytes, and the copy ceiling it sets beside each point."""
import math

import numpy as np

from grader import bench, device


def test_each_series_is_measured_at_each_point_and_the_copy_once_per_byte_count(monkeypatch):
    measured, copies = [], []

    def measure(label, fn, *, size, nbytes=0, **_):
        measured.append((label, fn(), size, nbytes))
        return bench.Measurement(label, size, 2.0, nbytes)

    def copy_ceiling(nbytes, repeat=20):
        copies.append(nbytes)
        return bench.Measurement("copy (ceiling)", nbytes, 1.0, nbytes)

    monkeypatch.setattr(bench, "measure", measure)
    monkeypatch.setattr(bench, "copy_ceiling", copy_ceiling)
    def made(what, point):  # a launch that says what it was made for
        return lambda: (what, point)

    report = bench.Report("t", "stride", "GB/s")
    bench.bandwidth_sweep(report, {"yours": "a", "solution": "b"}, made, [1, 4, 16], 800, xs=[1, 4, 16])
    assert measured == [(label, (what, p), p, 800) for label, what in (("yours", "a"), ("solution", "b"))
                        for p in (1, 4, 16)]
    assert copies == [800] and [(c.size, c.nbytes) for c in report.ceiling] == [(1, 800), (4, 800), (16, 800)]
    assert report.final_ratio("yours") == 0.5

    measured.clear(), copies.clear()
    by_bytes = bench.bandwidth_sweep(bench.Report("t", "bytes", "GB/s"), {"yours": "a"}, made, [3, 5], [48, 80])
    assert [(m[2], m[3]) for m in measured] == [(48, 48), (80, 80)] and copies == [48, 80]
    assert [(m.size, m.nbytes) for m in by_bytes.series["yours"]] == [(48, 48), (80, 80)]


def test_a_sweep_runs_a_kernel_on_this_backend():
    """A real (tiny) gather: on the emulator untimed, with memory statistics; on a GPU, timed."""
    module = device.load_source(r'''
    extern "C" __global__ void gather(const float* x, float* y, int n, int s) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) y[i] = x[i * s];
    }''', "gather.cu")
    x, y = device.asarray(np.arange(64 * 4, dtype=np.float32)), device.empty(64)
    kernel = module.get_function("gather")
    report = bench.bandwidth_sweep(
        bench.Report("gather", "stride", "GB/s"), {"yours": kernel},
        lambda k, s: lambda: k((1,), (64,), (x, y, np.int32(64), np.int32(s))), [1, 4], 512, xs=[1, 4])
    assert (device.to_host(y) == np.arange(64) * 4).all()  # the last point ran
    assert [m.size for m in report.series["yours"]] == [1, 4] == [c.size for c in report.ceiling]
    timed = bench.timed()
    assert all(m.timed == timed and math.isnan(m.ms) != timed for m in report.series["yours"] + report.ceiling)
