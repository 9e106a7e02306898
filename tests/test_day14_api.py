"""Day 14's API (grader.jit.ops): argument checks say what is wrong (no GPU needed for most), and the
capstone's numpy reference is sound."""
import numpy as np
import pytest

from grader import device, paths
from grader.exercises import capstone
from grader.jit import ops
from grader.jit.ops import Tensor


def T(name="x", shape=(4, 8), dtype="float16", contiguous=True, dev=0, framework="cupy"):
    return Tensor(name, framework, shape, dtype, contiguous, dev)


def test_numpy_and_other_objects_are_refused():
    with pytest.raises(TypeError, match=r"x is a numpy array, in host memory.*cupy.asarray\(x\)"):
        ops.describe("x", np.zeros(3))
    with pytest.raises(TypeError, match="expected a cupy array or a torch tensor, got builtins.list"):
        ops.describe("w", [1, 2])


def test_valid_arguments_give_their_sizes():
    dims = ops.validate([(T("x", (4, 8)), ("rows", "d")), (T("w", (8,)), ("d",))], ("float16",), 0)
    assert dims == {"rows": 4, "d": 8}


@pytest.mark.parametrize("specs, error, message", [
    ([(T(dtype="float32"), ("r", "d"))], TypeError, r"x has dtype float32; expected float16 or bfloat16"),
    ([(T(dtype="uint16"), ("r", "d"))], TypeError, r"cupy has no bfloat16"),
    ([(T(), ("r", "d")), (T("w", dtype="bfloat16"), ("r", "d"))], TypeError, r"w has dtype bfloat16 but x has float16"),
    ([(T(shape=(4, 8, 1)), ("r", "d"))], ValueError, r"x has shape \[4, 8, 1\]; expected 2 dims \[r, d\]"),
    ([(T(), ("r", "d")), (T("w", (9,)), ("d",))], ValueError, r"w has shape \[9\]; expected \[d\] with d = 8 \(from x\)"),
    ([(T(shape=(4, 8)), ("r", 128))], ValueError, r"x has shape \[4, 8\]; expected \[r, 128\]"),
    ([(T(contiguous=False), ("r", "d"))], ValueError, r"x is not contiguous .*x.contiguous\(\).*ascontiguousarray\(x\)"),
    ([(T(dev=None, framework="torch"), ("r", "d"))], ValueError, r"x is a CPU tensor: move it to the GPU first \(x.cuda\(\)\)"),
    ([(T(dev=1), ("r", "d"))], ValueError, r"x is on cuda:1, but this call runs on cuda:0"),
    ([(T(shape=(0, 8)), ("r", "d"))], ValueError, r"x is empty"),
])
def test_bad_arguments_are_named(specs, error, message):
    with pytest.raises(error, match=message):
        ops.validate(specs, ("float16", "bfloat16"), 0)


def test_capstone_reference_is_finite_and_uses_every_stage():
    cfg = capstone.BlockConfig(batch=2, qo_heads=2, kv_heads=1, intermediate=96, kv_len=5)
    host = capstone.block_inputs(cfg, seed=3)
    ref = capstone.reference_block(host, cfg)
    assert ref["out"].shape == (2, 256) and np.isfinite(ref["out"]).all()
    assert np.isfinite(ref["k_cache"][:, :cfg.kv_len + 1]).all(), "the new row was not appended in the reference"
    assert np.isnan(ref["k_cache"][:, cfg.kv_len + 1:]).all() and cfg.max_len % capstone.PAGE_SIZE == 0
    assert {s.source for s in capstone.STAGES} >= {"day 2", "day 6", "day 10", "day 11 (paged)", "day 13 (JIT)", "day 14"}
    produced = {o for s in capstone.STAGES for o in s.outputs} | set(host)
    assert all(i in produced for s in capstone.STAGES for i in s.inputs)


def test_stage_bytes_count_reads_and_writes():
    state = {"x": np.zeros((2, 8), np.float16), "w_attn_norm": np.zeros(8, np.float16),
             "h": np.zeros((2, 8), np.float16)}
    assert capstone.stage_bytes(capstone.STAGES[0], state) == 32 + 16 + 32


@pytest.mark.gpu
def test_on_the_gpu_bad_arrays_are_refused_before_any_launch(monkeypatch):
    if device.why_not_hardware():
        pytest.skip(f"needs a CUDA GPU: {device.why_not_hardware()}")
    import cupy as cp

    monkeypatch.setenv(paths.KERNELS_ENV, "solutions")  # ops.rmsnorm is binding.py's: the course's here

    x = cp.zeros((4, 16), cp.float16)
    with pytest.raises(ValueError, match="x is not contiguous"):
        ops.rmsnorm(x[:, ::2], cp.zeros(8, cp.float16))
    with pytest.raises(ValueError, match=r"weight has shape \[15\]; expected \[d\] with d = 16"):
        ops.rmsnorm(x, cp.zeros(15, cp.float16))
    with pytest.raises(ValueError, match="qo_heads = 6 is not a multiple of kv_heads = 4"):
        ops.decode_attention(cp.zeros((1, 6, 128), cp.float16), *[cp.zeros((1, 3, 4, 128), cp.float16)] * 2)
    with pytest.raises(ValueError, match="with qo_heads=2, kv_heads=1 and head_dim=8 they must hold"):
        ops.append_kv(cp.zeros((1, 8), cp.float16), cp.zeros(1, cp.int32), *[cp.zeros((1, 2, 1, 8), cp.float16)] * 2, 2)
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError, match="x is a CPU tensor"):
        ops.rmsnorm(torch.zeros(4, 16, dtype=torch.float16), torch.zeros(16, dtype=torch.float16))


def test_operations_go_through_the_binding(monkeypatch):
    """Every ops function converts and picks its stream through binding.py (one door each): here
    silu_and_mul, on the course's binding, seen through a spy."""
    if device.why_no_gpu():
        pytest.skip(f"needs a CUDA GPU or the emulator: {device.why_no_gpu()}")
    monkeypatch.setenv(paths.KERNELS_ENV, "solutions")
    real, seen = ops.binding(), []

    class Spy:
        def __getattr__(self, name):
            seen.append(name)
            return getattr(real, name)

    monkeypatch.setattr(ops, "binding", Spy)
    x = np.random.default_rng(0).standard_normal((2, 64)).astype(np.float16)
    out = device.to_host(ops.silu_and_mul(device.asarray(x)))
    assert {"as_cupy", "current_stream", "to_caller"} <= set(seen), seen
    assert out.shape == (2, 32) and np.isfinite(out).all()
