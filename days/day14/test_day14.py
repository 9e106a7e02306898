"""Day 14 self-check. Your kernels: `pytest days/day14`; the course's: `pytest days/day14 --solutions`.

How to read the output:
- append_kv: q is NaN-poisoned; each cache holds random history up to pos[b] and NaN after it.
  A copy is exact, so every element must be equal: the history unchanged, row pos[b] the new k (v),
  the NaN after it untouched. A failure names the worst element and the seed (COURSE_SEED=<seed>).
- rope_append_kv: the same, with q and the new k row rotated (day 13's rotate half, theta 1e4) and
  compared with float64 (relative error norm 1e-3 for fp16, 1e-2 for bf16); v and the history exact.
- Both files must move 16-byte vectors (LDG.E.128 / STG.E.128 in their SASS): the technique check
  fails every case otherwise.
- The API tests run your kernels through grader.jit.ops: with torch tensors (zero-copy both ways;
  skipped where torch is not installed) and on a stream that is kept busy first, so a launch on the
  wrong stream reads its input too early and the result is wrong.
- The capstone runs one decode step of a transformer block built from your kernels of days 2, 6, 10,
  11, 13 and 14. Every stage is compared with float64 numpy from that stage's actual inputs, so the
  first failure names the stage to fix; then the block's output is compared with the float64
  reference of the whole block (relative error norm 3e-3: eleven stages stored in fp16).
- The stage-time test prints a per-stage table (batch 64, hidden 4096, 32/8 heads, kv_len 4096,
  intermediate 11008): microseconds, share of the block, GB/s and % of the copy bandwidth.
The checks are in grader/exercises/day14.py; the API in grader/jit/ops.py.
"""
import os

import numpy as np
import pytest

from grader import checks, device
from grader.emulator.scaling import FULL_ENV
from grader.exercises import case_id, day02, day06, day14
from grader.jit import ops

APPEND_KV, ROPE_APPEND_KV = day14.EXERCISES
SPIN = r'''extern "C" __global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {}
}'''


@pytest.mark.parametrize("case", APPEND_KV.cases, ids=case_id)
def test_append_kv(course, case):
    course.check(APPEND_KV, case)


@pytest.mark.parametrize("case", ROPE_APPEND_KV.cases, ids=case_id)
def test_rope_append_kv(course, case):
    course.check(ROPE_APPEND_KV, case)


@pytest.fixture
def kernels():
    """Kernels must run: a CUDA GPU or the emulator."""
    reason = device.why_no_gpu()
    if reason:
        pytest.skip(f"needs a CUDA GPU: {reason}")


@pytest.fixture
def gpu():
    reason = device.why_not_hardware()  # streams and torch tensors: the emulator has neither
    if reason:
        pytest.skip(f"needs a CUDA GPU: {reason}")
    return device.require_gpu()


def _fail_on_mismatch(fn):
    try:
        fn()
        return
    except AssertionError as e:
        message = str(e)
    pytest.fail(message, pytrace=False)


def _rmsnorm_inputs(seed, rows=37, d=4100):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((rows, d)).astype(np.float16), (1 + 0.5 * rng.standard_normal(d)).astype(np.float16)


def test_api_runs_on_the_current_cupy_stream(gpu):
    """On a busy stream: spin, then x += 1, then rmsnorm. Only a launch on that stream sees x + 1 (a
    launch elsewhere runs at once: the stream is non-blocking). A first round loads the kernels and
    fills the memory pool, so that nothing in the second one synchronizes the device."""
    seed = checks.new_seed()
    x, w = _rmsnorm_inputs(seed)
    spin = device.load_source(SPIN, "spin.cu").get_function("spin")
    x_dev, w_dev = device.asarray(x), device.asarray(w)
    stream = gpu.cuda.Stream(non_blocking=True)
    for cycles, add in ((0, 0), (1_000_000_000, 1)):
        with stream:
            spin((1,), (1,), (np.int64(cycles),))
            x_dev += add
            y = ops.rmsnorm(x_dev, w_dev)
            busy = not stream.done
        stream.synchronize()
    assert busy, "the stream was idle when ops.rmsnorm returned: something synchronized, so this proves nothing"
    expected = day06.rmsnorm_reference((x.astype(np.float32) + 1).astype(np.float16), w)
    _fail_on_mismatch(lambda: checks.assert_close(device.to_host(y), expected, dt="float16", seed=seed,
                                                  name="ops.rmsnorm on a busy cupy stream"))


def test_api_with_torch_tensors(gpu):
    """torch in, torch out, on torch's current stream, without copies (bf16 included)."""
    torch = pytest.importorskip("torch")
    seed = checks.new_seed()
    x, w = _rmsnorm_inputs(seed)
    xt, wt = torch.from_numpy(x).cuda(), torch.from_numpy(w).cuda()
    assert ops.as_cupy(xt).data.ptr == xt.data_ptr(), "as_cupy copied the tensor"
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(1_000_000_000)
        xt += 1
        yt = ops.rmsnorm(xt, wt)
    stream.synchronize()
    assert isinstance(yt, torch.Tensor) and yt.dtype == torch.float16 and yt.is_cuda
    expected = day06.rmsnorm_reference((x.astype(np.float32) + 1).astype(np.float16), w)
    _fail_on_mismatch(lambda: checks.assert_close(yt.cpu().numpy(), expected, dt="float16", seed=seed,
                                                  name="ops.rmsnorm with torch tensors on a busy stream"))
    rng = np.random.default_rng(seed)
    g = torch.from_numpy(3 * rng.standard_normal((33, 2 * 1000)).astype(np.float32)).cuda().to(torch.bfloat16)
    out = ops.silu_and_mul(g)
    assert out.dtype == torch.bfloat16 and tuple(out.shape) == (33, 1000)
    host = g.float().cpu().numpy().astype(device.bfloat16)
    _fail_on_mismatch(lambda: checks.assert_close(out.float().cpu().numpy(), day02.silu_and_mul_reference(host),
                                                  dt="bfloat16", seed=seed, name="ops.silu_and_mul, torch bf16"))


@pytest.mark.parametrize("case", day14.CAPSTONE_CASES, ids=case_id)
def test_capstone(kernels, case):
    if device.emulated() and case is day14.CAPSTONE_CASES[-1] and os.environ.get(FULL_ENV) != "1":
        pytest.skip(f"too large for the emulator (minutes on a CPU; the smaller blocks ran). "
                    f"{FULL_ENV}=1 runs it anyway; a GPU runs every case.")
    _fail_on_mismatch(lambda: day14.check_capstone(checks.new_seed(), **case))


@pytest.mark.perf
def test_capstone_stage_times(gpu):
    """Correct first (the middle-sized case), then the per-stage table of the large block."""
    _fail_on_mismatch(lambda: day14.check_capstone(checks.new_seed(), **day14.CAPSTONE_CASES[1]))
    print(day14.stage_table(day14.time_block()))
