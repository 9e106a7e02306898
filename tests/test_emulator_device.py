"""Emulator: the COURSE_BACKEND=emulator switch behind grader/device.py (CUDA C compiled by NVRTC, run
through the device layer as a notebook or check would), device arrays, the cupy subset, and which
cases run on the emulator."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from grader import paths
from grader.emulator import memory, scaling

SCRIPT = textwrap.dedent(r'''
    import numpy as np
    from grader import device
    assert device.backend() == "emulator" and device.gpu_available() and device.why_no_gpu() is None
    src = r"""
    extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      __shared__ float s[64];
      s[threadIdx.x] = x[i < n ? i : 0];
      __syncthreads();
      if (i < n) y[i] = a * s[threadIdx.x] + y[i];
    }
    extern "C" __global__ void oob(float* y) { y[threadIdx.x + 1] = 1.f; }
    """
    mod = device.load_source(src, "axpy.cu")
    x = np.arange(100, dtype=np.float32)
    y = device.asarray(np.ones(100, np.float32))
    device.launch(mod.get_function("axpy"), (2,), (64,), (np.float32(2), device.asarray(x), y, np.int32(100)))
    assert (device.to_host(y) == 2 * x + 1).all()
    e = device.empty(3, "bfloat16")
    assert device.to_host(e, "bfloat16").dtype == device.bfloat16 and np.isnan(device.to_host(e, "bfloat16").astype(np.float32)).all()
    try:
        device.launch(mod.get_function("oob"), (1,), (4,), (device.empty(4),), what="oob")
    except device.KernelFault as err:
        assert "oob failed on the emulator: out-of-bounds global write" in str(err), err
        assert "thread (3, 0, 0)" in str(err) and "axpy.cu:9" in str(err), err
    else:
        raise AssertionError("no fault")
    cp = device.require_gpu()
    z = cp.zeros(4, dtype=np.uint64)
    assert z[2:].ptr == z.ptr + 16 and (z.get() == 0).all()
    try:
        cp.cuda.Event()
    except device.NoGPU as err:
        assert "timings are not emulated" in str(err)
    else:
        raise AssertionError("cupy.cuda timed on the emulator")
    print("OK")
''')


def test_device_layer_on_the_emulator(tmp_path):
    pytest.importorskip("cuda.bindings.nvrtc", reason="NVRTC (cuda-bindings) compiles the kernels")
    env = {**os.environ, "COURSE_BACKEND": "emulator", "PYTHONPATH": str(paths.ROOT)}
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120,
                       cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip().endswith("OK"), r.stdout + r.stderr


def test_unknown_backend_is_a_clear_error():
    env = {**os.environ, "COURSE_BACKEND": "tpu", "PYTHONPATH": str(paths.ROOT)}
    r = subprocess.run([sys.executable, "-m", "grader", "show-config"], env=env, capture_output=True, text=True,
                       timeout=60, cwd=paths.ROOT)
    assert r.returncode == 2 and r.stderr == "error: COURSE_BACKEND='tpu': expected one of cupy, emulator\n", r.stderr


def test_device_array_views_share_memory():
    a = memory.DeviceArray.from_host(np.arange(12, dtype=np.int32).reshape(3, 4))
    row = a[1]
    row.fill(7)
    assert (a.get()[1] == 7).all() and row.ptr == a.ptr + 16
    assert a.view(np.uint8).shape == (3, 16) and a.ravel().shape == (12,)
    with pytest.raises(TypeError, match="implicit conversion"):
        np.asarray(a)


def test_scaling_keeps_small_cases_and_the_two_smallest():
    class Ex:
        key = "dayXX/ex"
        cases = ({"n": 1}, {"n": 1 << 22}, {"n": 1 << 24}, {"rows": 4096, "d": 1000, "dtype": "float16"})
    ok = [scaling.runs_on_emulator(Ex, c)[0] for c in Ex.cases]
    assert ok == [True, False, False, True]  # the two smallest: n = 1 and 4096 x 1000
    assert "COURSE_EMULATOR_FULL=1" in scaling.runs_on_emulator(Ex, Ex.cases[2])[1]


def test_scaling_runs_larger_cases_of_tensor_core_exercises():
    """An exercise graded on the tensor cores (its technique requires HMMA) runs cases up to
    TENSOR_LIMIT multiply-adds; the same sizes of another exercise are skipped."""
    from grader import exercises
    from grader.exercises import day09, day10

    gemm = {"m": 257, "n": 129, "k": 1000}
    assert scaling.runs_on_emulator(exercises.get("day10", "gemm"), gemm)[0]
    assert not scaling.runs_on_emulator(exercises.get("day10", "gemm_naive"), gemm)[0]
    big = {"m": 1024, "n": 1024, "k": 1024}
    assert "> 134,217,728 elements" in scaling.runs_on_emulator(exercises.get("day10", "gemm"), big)[1]
    assert scaling.limit(day09.EXERCISES[2]) == scaling.TENSOR_LIMIT == 1 << 27
    assert scaling.limit(day10.EXERCISES[0]) == scaling.LIMIT


def test_speed_benchmark_times_launches_and_checks_outputs_bitwise(tmp_path, capsys, monkeypatch):
    """`python -m grader.emutools.speed`: a table of warp instructions per second; --save / --compare
    find a changed output; bad arguments are one-line errors."""
    from grader.emutools import speed

    monkeypatch.setenv("COURSE_BACKEND", "emulator")
    saved = tmp_path / "before.npz"
    assert speed.main(["vector_add", "-r", "1", "--save", str(saved)]) == 0
    out = capsys.readouterr().out
    assert "vector_add" in out and "M warp instr./s" in out
    assert speed.main(["vector_add", "-r", "1", "--compare", str(saved)]) == 0
    assert "bitwise equal" in capsys.readouterr().out
    planted = dict(np.load(saved))
    planted["vector_add.0"][7] += 1
    np.savez(saved, **planted)
    assert speed.main(["vector_add", "-r", "1", "--compare", str(saved)]) == 1
    assert "differ" in capsys.readouterr().out
    for bad, why in ((["nope"], "unknown launch 'nope'"), (["-r", "0"], "--repeat 0"),
                     (["--compare", str(tmp_path / "none.npz")], "no such file")):
        with pytest.raises(SystemExit):
            speed.main(bad)
        assert why in capsys.readouterr().err


def test_report_command_prints_memory_tables(capsys, monkeypatch):
    """`python -m grader.emutools.day_report`: without arguments how to get the tables; with a day and an
    exercise, the memory table of each launch of its largest emulated case; bad input in one line."""
    from grader.emutools import day_report

    monkeypatch.setenv("COURSE_BACKEND", "emulator")
    assert day_report.main([]) == 0
    assert "python -m grader.emutools.day_report dayNN" in capsys.readouterr().out
    assert day_report.main(["day02", "strided_gather", "--solutions"]) == 0
    out = capsys.readouterr().out
    assert "strided_gather.cu:" in out and "ld.global" in out and "31.76" in out  # stride 32: a sector a lane
    assert day_report.main(["day99"]) == 2 and "unknown day" in capsys.readouterr().err
    assert day_report.main(["day02", "nope"]) == 2 and "no exercise 'nope'" in capsys.readouterr().err
