"""Day 14 self-check. Your kernels: `pytest days/day14`; the course's: `pytest days/day14 --solutions`.

How to read the output:
- binding: your binding.py's rmsnorm against float64, into a NaN-poisoned `out=` and into a new array.
  On a GPU also on a cupy stream kept busy first (spin, then x += 1: a launch on another stream reads x
  too early) and, where torch is installed, with torch fp16 and bf16 tensors: `as_cupy` must share the
  tensor's memory (same data_ptr), the result must be a torch tensor, computed on torch's busy current
  stream. The emulator has neither streams nor torch: there only the values are checked.
- binding_errors: each bad call (a numpy array, float32, a wrong weight or out shape, a non-contiguous
  view, a float32 out) must raise a one-line TypeError or ValueError naming the argument, before any
  launch (out stays NaN).
- append_kv: q is NaN-poisoned; each cache holds random history up to pos[b] and NaN after it.
  A copy is exact, so every element must be equal: the history unchanged, row pos[b] the new k (v),
  the NaN after it untouched. A failure names the worst element and the seed (COURSE_SEED=<seed>).
- rope_append_kv: the same, with q and the new k row rotated (day 13's rotate half, theta 1e4) and
  compared with float64 (relative error norm 1e-3 for fp16, 1e-2 for bf16); v and the history exact.
- Both files must move 16-byte vectors (LDG.E.128 / STG.E.128 in their SASS): the technique check
  fails every case otherwise.
- The API test runs ops.silu_and_mul (day 2's kernel) on torch bf16 tensors through your binding's
  as_cupy, to_caller and current_stream (skipped without a GPU or torch).
- rmsnorm_ffi: your rmsnorm_ffi.py is built (nvcc through tvm_ffi.cpp.load_inline; skipped, in one
  line, without apache-tvm-ffi, nvcc or ninja). Everywhere: bad arguments (numpy arrays, through DLPack)
  must get one-line ValueErrors naming the argument, host memory included; without a GPU that is all
  (nothing is launched, so the rest is not graded there: skipped, saying so). On a GPU with torch: fp16 /
  bf16 into a NaN-poisoned out against float64, torch's busy current stream, a refused
  call leaving out untouched, and your custom op course::rmsnorm eager and under
  torch.compile(fullgraph=True) (a graph break fails). The stub raises NotImplementedError.
- The capstone runs one decode step of a transformer block built from your kernels of days 2, 6, 10,
  11 (the paged decode: the cache seen as pages of 16 tokens through a page table), 13 and 14, every
  stage through your binding.py. Every stage is compared with float64 numpy from that stage's actual
  inputs, so the first failure names the stage to fix; the padding of the last page must stay NaN; then
  the block's output is compared with the float64 reference of the whole block (relative error norm
  3e-3: eleven stages stored in fp16).
- On a GPU with torch, the same block in torch eager (F.rms_norm, cuBLAS matmuls, RoPE, SDPA with GQA)
  runs on the same inputs and must agree with yours.
- The stage-time test prints a per-stage table (batch 64, hidden 4096, 32/8 heads, kv_len 4096,
  intermediate 11008): microseconds, share of the block, GB/s and % of the copy bandwidth; then the
  whole block, yours (replayed as a CUDA graph, and launched from Python) and torch eager's, timed in
  turns in the same process, and their ratios. It fails if your block, replayed or launched from Python
  (one stage after another, each through your binding), is slower than torch eager.
The checks are in grader/exercises/day14.py (the capstone's in capstone.py); the API in grader/jit/ops.py
(through your binding.py).
"""
import os

import numpy as np
import pytest

from grader import checks, device, exercises
from grader.day_tests import exercise_tests
from grader.emulator.scaling import FULL_ENV
from grader.exercises import capstone, case_id, day14
from grader.jit import ops
from grader.references.layers import silu_and_mul_reference

globals().update(exercise_tests("day14", written=("rmsnorm_ffi",)))
RMSNORM_FFI = exercises.get("day14", "rmsnorm_ffi")


@pytest.mark.parametrize("case", RMSNORM_FFI.cases, ids=case_id)
def test_rmsnorm_ffi(course, case):
    reason = day14.why_no_ffi()
    if reason:
        pytest.skip(reason)
    try:
        course.check(RMSNORM_FFI, case)
    except pytest.fail.Exception as e:  # the refusals passed; the rest needs a GPU: not graded here
        if not day14.not_graded_here(str(e)):
            raise
        pytest.skip(str(e).splitlines()[0])


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
    except NotImplementedError as e:  # the stub of binding.py, which every ops call goes through
        message = f"NotImplementedError: {e}"
    pytest.fail(message, pytrace=False)


def test_api_with_torch_tensors(gpu):
    """ops.silu_and_mul on torch bf16: torch in, torch out, through the binding's doors."""
    torch = pytest.importorskip("torch")
    seed = checks.new_seed()
    rng = np.random.default_rng(seed)
    g = torch.from_numpy(3 * rng.standard_normal((33, 2 * 1000)).astype(np.float32)).cuda().to(torch.bfloat16)
    out = ops.silu_and_mul(g)
    assert out.dtype == torch.bfloat16 and tuple(out.shape) == (33, 1000)
    host = g.float().cpu().numpy().astype(device.bfloat16)
    _fail_on_mismatch(lambda: checks.assert_close(out.float().cpu().numpy(), silu_and_mul_reference(host),
                                                  dt="bfloat16", seed=seed, name="ops.silu_and_mul, torch bf16"))


@pytest.mark.parametrize("case", capstone.CAPSTONE_CASES, ids=case_id)
def test_capstone(kernels, case):
    if device.emulated() and case is capstone.CAPSTONE_CASES[-1] and os.environ.get(FULL_ENV) != "1":
        pytest.skip(f"too large for the emulator (minutes on a CPU; the smaller blocks ran). "
                    f"{FULL_ENV}=1 runs it anyway; a GPU runs every case.")
    _fail_on_mismatch(lambda: capstone.check_capstone(checks.new_seed(), **case))


@pytest.mark.parametrize("case", capstone.CAPSTONE_CASES[1:], ids=case_id)
def test_torch_eager_block_matches(gpu, case):
    """The baseline is the same block: torch eager on the same inputs agrees with the course's."""
    pytest.importorskip("torch", reason="needs torch (the torch eager block is the capstone's baseline)")
    _fail_on_mismatch(lambda: capstone.check_torch_block(checks.new_seed(), **case))


@pytest.mark.perf
def test_capstone_stage_times(gpu):
    """Correct first (the middle-sized case), then the per-stage table of the large block, and the whole
    block against torch eager on the same arrays: the course's must be faster, replayed as a CUDA graph
    and launched from Python alike."""
    _fail_on_mismatch(lambda: capstone.check_capstone(checks.new_seed(), **capstone.CAPSTONE_CASES[1]))
    times = capstone.time_block()
    print(capstone.stage_table(times))
    if times["torch_ms"] is None:
        pytest.skip("no torch here: the course block was timed, but there is no torch eager block to compare")
    behind = capstone.behind_torch(times)
    if behind:
        pytest.fail(behind, pytrace=False)
