"""Emulator: how the course uses it without a GPU. Untimed measurements with memory statistics,
nb.size, jit.load and ops on the emulator's arrays, device arrays' arithmetic, and the CI check that
every stub test fails."""
import os
import subprocess
import sys
import textwrap

import pytest

from grader import paths
from grader import stubs_fail

SCRIPT = textwrap.dedent(r'''
    import math
    import numpy as np
    from grader import bench, device, jit
    import grader.notebook as nb
    from grader.jit import ops

    assert device.emulated() and device.why_not_hardware() and device.why_no_gpu() is None
    assert nb.size(1 << 26, emulator=1 << 10) == 1 << 10
    mod = device.load_source(r"""
    extern "C" __global__ void gather(const float* x, float* y, int n, int s) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) y[i] = x[i * s];
    }""", "gather.cu")
    x, y = device.asarray(np.arange(64 * 32, dtype=np.float32)), device.empty(64)
    m = bench.measure("gather", lambda: mod.get_function("gather")((1,), (64,), (x, y, np.int32(64), np.int32(32))),
                      size=64, nbytes=512)
    assert not m.timed and math.isnan(m.ms) and "per request" in m.memory, m
    assert (device.to_host(y) == np.arange(64) * 32).all()
    c = bench.copy_ceiling(1 << 30)
    assert not c.timed and "not timed" in c.label and math.isnan(c.gbps)
    assert "not timed on the emulator" in bench.Report("t", "x", "GB/s", {"k": [m]}, [c]).table()
    assert (device.to_host(x[:4] + 1) == np.arange(4) + 1).all()
    assert jit._arch() == "sm_80"
    k = jit.load("twice", 'extern "C" __global__ void twice(float* v) { v[threadIdx.x] *= 2.f; }')
    assert jit.load("twice", 'extern "C" __global__ void twice(float* v) { v[threadIdx.x] *= 2.f; }') is k
    t = ops.describe("x", x)
    assert t.framework == "cupy" and t.shape == (2048,) and t.device == 0
    print("ok")
''')


def test_integration_on_the_emulator():
    env = {**os.environ, "COURSE_BACKEND": "emulator"}
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env,
                          cwd=paths.ROOT, timeout=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stdout[-3000:] + done.stderr[-3000:]


def _r(outcome, name="t"):
    return {"nodeid": f"days/day01/test_day01.py::{name}", "outcome": outcome}


@pytest.mark.parametrize("results, ok", [
    ([_r("failed"), _r("skipped")], True),
    ([_r("failed"), _r("passed", "pretends")], False),
    ([_r("skipped")], False),
    ([], False),
])
def test_stubs_fail_verdict(results, ok):
    got, summary = stubs_fail.verdict(results)
    assert got == ok, summary
    if not ok and any(r["outcome"] == "passed" for r in results):
        assert "pretends" in summary


def test_stubs_fail_needs_a_report(tmp_path, capsys):
    assert stubs_fail.main([str(tmp_path / "none.json")]) == 2
    assert "no course report" in capsys.readouterr().err
