"""Day 14, part 2: day 6's rmsnorm as a TVM-FFI function (solutions/day14/ffi/rmsnorm_ffi.cu) and the
PyTorch custom op `course::rmsnorm` over it (rmsnorm_op.py).

Without a GPU (apache-tvm-ffi and nvcc present): the module builds, and bad arguments (numpy arrays,
through DLPack) get a one-line ValueError naming the argument. On a GPU with torch: fp16 and bf16 at
awkward sizes into NaN-poisoned memory against float64 and torch, on torch's busy current stream, and
under `torch.compile(fullgraph=True)` (a graph break fails the compile). What is missing skips, in one line.
"""
import importlib.util
import os
import shutil

import numpy as np
import pytest

from grader import checks, device, paths
from grader.exercises import day06

FFI = paths.SOLUTIONS / "day14" / "ffi"
CASES = [(1, 8), (37, 4100), (5, 1000)]


@pytest.fixture(scope="module")
def rmsnorm_op():
    pytest.importorskip("tvm_ffi", reason="needs apache-tvm-ffi (pip install apache-tvm-ffi)")
    if not (shutil.which("nvcc") or os.environ.get("CUDA_HOME")):
        pytest.skip("needs nvcc (a CUDA toolkit): tvm_ffi.cpp.load compiles rmsnorm_ffi.cu with it")
    if device.why_not_hardware() and "TVM_FFI_CUDA_ARCH_LIST" not in os.environ:
        os.environ["TVM_FFI_CUDA_ARCH_LIST"] = "9.0"  # no GPU to ask: build for sm_90 all the same
    spec = importlib.util.spec_from_file_location("rmsnorm_op", FFI / "rmsnorm_op.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.build()
    return module


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch", reason="needs torch")
    reason = device.why_not_hardware()
    if reason or not torch.cuda.is_available():
        pytest.skip(f"needs a CUDA GPU for torch: {reason or 'torch sees none'}")
    return torch


@pytest.mark.parametrize("args, message", [
    (((4, 8), (9,), (4, 8)), r"^weight has shape \[9\]; expected \[d\] with d = 8 \(from x\)$"),
    (((4, 8), (8,), (4, 9)), r"^out has shape \[4, 9\]; expected x's \[4, 8\]$"),
    (((4, 8, 1), (8,), (4, 8)), r"^x has shape \[4, 8, 1\]; expected 2 dims \[rows, d\]$"),
    (((4, 8), (8,), (4, 8)), r"^x must be on a CUDA device$"),
], ids=["weight", "out", "x-dims", "device"])
def test_bad_arguments_are_one_line_value_errors(rmsnorm_op, args, message):
    x, w, out = (np.zeros(s, np.float16) for s in args)
    with pytest.raises(ValueError, match=message):
        rmsnorm_op.build().rmsnorm(x, w, out, 1e-6)


def test_float32_is_refused(rmsnorm_op):
    x, w = np.zeros((4, 8), np.float32), np.zeros(8, np.float32)
    with pytest.raises(ValueError, match=r"^x has a dtype other than float16 or bfloat16$"):
        rmsnorm_op.build().rmsnorm(x, w, np.zeros_like(x), 1e-6)


def _inputs(torch, seed, rows, d, dtype):
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(2 * rng.standard_normal((rows, d)).astype(np.float32)).cuda().to(dtype)
    w = torch.from_numpy((1 + 0.5 * rng.standard_normal(d)).astype(np.float32)).cuda().to(dtype)
    return x, w


def _close(torch, got, x, w, name, seed, dt):
    """got against float64 numpy, and torch's own rms_norm (float32) within the same tolerance."""
    host = [t.float().cpu().numpy() for t in (got, x, w)]
    tol = day06.norm_tolerance(dt)
    checks.assert_close(host[0], day06.rmsnorm_reference(host[1], host[2]), dt=dt, tol=tol, seed=seed,
                        name=f"{name} against float64")
    ref = torch.nn.functional.rms_norm(x.float(), (x.shape[-1],), w.float(), eps=1e-6)
    checks.assert_close(host[0], ref.double().cpu().numpy(), dt=dt, tol=tol, seed=seed,
                        name=f"{name} against torch.nn.functional.rms_norm")


@pytest.mark.gpu
@pytest.mark.parametrize("rows, d", CASES)
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_ffi_function_matches_float64_and_torch(rmsnorm_op, torch, rows, d, dt):
    seed = checks.new_seed()
    x, w = _inputs(torch, seed, rows, d, getattr(torch, dt))
    out = torch.full_like(x, float("nan"))
    rmsnorm_op.build().rmsnorm(x, w, out, 1e-6)  # torch tensors in: zero copy, torch's current stream
    torch.cuda.synchronize()
    _close(torch, out, x, w, f"TVM-FFI rmsnorm ({dt}, rows={rows}, d={d})", seed, dt)


@pytest.mark.gpu
def test_ffi_function_runs_on_torchs_current_stream(rmsnorm_op, torch):
    """Busy stream: sleep, x += 1, rmsnorm; only a launch on that stream sees x + 1."""
    seed = checks.new_seed()
    x, w = _inputs(torch, seed, 37, 4100, torch.float16)
    out = torch.empty_like(x)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for cycles, add in ((0, 0), (200_000_000, 1)):
            torch.cuda._sleep(cycles)
            x += add
            rmsnorm_op.build().rmsnorm(x, w, out, 1e-6)
        busy = not stream.query()
    stream.synchronize()
    assert busy, "the stream was idle when rmsnorm returned: something synchronized"
    _close(torch, out, x, w, "TVM-FFI rmsnorm on torch's busy current stream", seed, "float16")


@pytest.mark.gpu
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_custom_op_under_torch_compile_fullgraph(rmsnorm_op, torch, dt):
    """course::rmsnorm inside a compiled function: fullgraph=True raises on any graph break."""
    seed = checks.new_seed()
    rmsnorm = rmsnorm_op.op()
    x, w = _inputs(torch, seed, 37, 4100, getattr(torch, dt))

    def block(x, w):  # torch work on both sides of the custom op, in one graph
        y = torch.ops.course.rmsnorm(x * 0.5, w, 1e-6)
        return y, y.float().abs().amax()

    got, peak = torch.compile(block, fullgraph=True)(x, w)
    torch.cuda.synchronize()
    _close(torch, got, x * 0.5, w, f"torch.compile'd course::rmsnorm ({dt})", seed, dt)
    assert float(peak) == float(got.float().abs().amax())
    eager = rmsnorm(x, w, 1e-6)
    _close(torch, eager, x, w, f"course::rmsnorm eager ({dt})", seed, dt)
