"""Day 12 without a GPU: the solutions' SASS uses the tensor cores (HMMA) fed by ldmatrix (LDSM), the
solutions pass their own technique checks, the pipelined kernel copies with cp.async (LDGSTS) and the
synchronous one does not, no kernel spills; and the numpy reference and the shape checks are right."""
import re

import numpy as np
import pytest

from grader import sass, technique
from grader.compiler import ARCHS
from grader.exercises import day12
from grader.references import prefill_attention
from grader.paths import SOLUTIONS
from grader.pytest_plugin import require_sass_tools

DAY12 = SOLUTIONS / "day12"
MMA_KERNELS = [("attention_mma.cu", f"attention_mma_d{d}") for d in day12.HEAD_DIMS]
PREFILL_KERNELS = [("attention_prefill.cu", f"prefill_d{d}") for d in day12.HEAD_DIMS]
SCALAR_KERNELS = [("attention_scalar.cu", f"attention_scalar_d{d}") for d in day12.HEAD_DIMS]
QK_KERNELS = [("qk_tile.cu", f"qk_tile_d{d}") for d in day12.HEAD_DIMS]
TENSOR_CORE = QK_KERNELS + MMA_KERNELS + PREFILL_KERNELS


def _offline():
    require_sass_tools(module_level=False)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", TENSOR_CORE, ids=[k for _, k in TENSOR_CORE])
def test_tensor_core_kernels_use_hmma_and_ldmatrix(file, kernel, arch):
    _offline()
    path = DAY12 / file
    assert sass.has(path, arch, r"HMMA\.16816\.F32", kernel=kernel), sass.report(path, arch, kernel)
    assert sass.has(path, arch, r"LDSM", kernel=kernel), sass.report(path, arch, kernel)
    if file != "qk_tile.cu":
        assert sass.has(path, arch, r"MUFU\.EX2", kernel=kernel), sass.report(path, arch, kernel)
        assert sass.has(path, arch, r"SHFL\.BFLY", kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("ex", [e for e in day12.EXERCISES if e.technique], ids=lambda e: e.name)
def test_solutions_show_the_technique(ex):
    _offline()
    assert technique.problems(DAY12 / ex.source, ex.technique) == []


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", PREFILL_KERNELS, ids=[k for _, k in PREFILL_KERNELS])
def test_pipelined_kernel_copies_with_cp_async(file, kernel, arch):
    _offline()
    path = DAY12 / file
    assert sass.has(path, arch, r"LDGSTS", kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", MMA_KERNELS + SCALAR_KERNELS, ids=[k for _, k in MMA_KERNELS + SCALAR_KERNELS])
def test_unpipelined_kernels_load_through_registers(file, kernel, arch):
    _offline()
    path = DAY12 / file
    assert not sass.has(path, arch, r"LDGSTS", kernel=kernel), sass.report(path, arch, kernel)
    assert sass.has(path, arch, r"LDG\.E\.128", kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", SCALAR_KERNELS, ids=[k for _, k in SCALAR_KERNELS])
def test_scalar_baseline_has_no_tensor_cores(file, kernel, arch):
    _offline()
    assert not sass.has(DAY12 / file, arch, r"HMMA", kernel=kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", TENSOR_CORE, ids=[k for _, k in TENSOR_CORE])
def test_no_local_memory_spills(file, kernel, arch):
    _offline()
    usage = sass.resources(sass.load(DAY12 / file, arch)[0])[kernel]
    assert usage["spill_stores"] == usage["spill_loads"] == usage["local"] == 0, usage


# ---- the reference and the argument checks (numpy only) -----------------------------------------

def _loop_reference(q, k, v, causal):
    """The definition, one query at a time."""
    heads, q_len, d = q.shape
    kv_len = k.shape[1]
    out = np.zeros((heads, q_len, d))
    for h in range(heads):
        for i in range(q_len):
            seen = min(kv_len, i + kv_len - q_len + 1) if causal else kv_len
            if seen <= 0:
                continue
            s = k[h, :seen].astype(np.float64) @ q[h, i].astype(np.float64) / np.sqrt(d)
            p = np.exp(s - s.max())
            out[h, i] = p @ v[h, :seen].astype(np.float64) / p.sum()
    return out


@pytest.mark.parametrize("q_len,kv_len", [(1, 1), (5, 5), (3, 9), (9, 3)])
@pytest.mark.parametrize("causal", [False, True])
def test_reference_matches_the_definition(q_len, kv_len, causal):
    rng = np.random.default_rng(12)
    q, k, v = (rng.standard_normal((2, n, 8)).astype(np.float16) for n in (q_len, kv_len, kv_len))
    np.testing.assert_allclose(prefill_attention.attention_reference(q, k, v, causal), _loop_reference(q, k, v, causal),
                               rtol=1e-12, atol=1e-12)


def test_causal_mask_is_aligned_to_the_end_of_the_kv():
    assert list(prefill_attention.visible_keys(3, 5, True)) == [3, 4, 5]   # the last query sees every key
    assert list(prefill_attention.visible_keys(3, 3, True)) == [1, 2, 3]
    assert list(prefill_attention.visible_keys(2, 4, False)) == [4, 4]
    assert prefill_attention.attention_flops(1, 3, 3, 64, True) == 4 * 64 * 6


def test_bad_shapes_are_named():
    with pytest.raises(ValueError, match="head_dim=96"):
        day12.validate(4, 4, 96, False)
    with pytest.raises(ValueError, match="q_len=5 > kv_len=3"):
        day12.validate(5, 3, 64, True)
    with pytest.raises(ValueError, match="q_len=0"):
        day12.validate(0, 3, 64, False)


def test_cases_fit_the_kernels():
    for ex in day12.EXERCISES:
        if ex.name == "qk_tile":
            assert {c["head_dim"] for c in ex.cases} == set(day12.HEAD_DIMS)
            continue
        for case in ex.cases:
            if ex.name.startswith("batch_prefill"):  # ragged: any lengths, heads in whole groups
                assert case["num_qo_heads"] % case["num_kv_heads"] == 0, case
            else:
                day12.validate(case["q_len"], case["kv_len"], case["head_dim"], case["causal"])
        assert {c["head_dim"] for c in ex.cases} == set(day12.HEAD_DIMS), ex.name
    assert all(c["causal"] for c in day12.CAUSAL) and not any(c["causal"] for c in day12.NON_CAUSAL)


@pytest.mark.parametrize("change,says", [
    ({"qo_indptr": np.array([0, 2], np.int64)}, "qo_indptr must be int32"),
    ({"kv_indptr": np.array([0, 5], np.int32)}, "kv_indptr must be int32, ascending from 0 to 4"),
    ({"kv_indptr": np.array([0, 4, 4], np.int32)}, "must have batch + 1 entries"),
    ({"q": (2, 3, 64)}, "num_qo_heads=3 must be a multiple of num_kv_heads=2"),
    ({"q": (2, 4, 96), "k": (4, 2, 96)}, "head_dim must be one of (64, 128)"),
])
def test_batch_prefill_says_what_is_wrong(change, says):
    """Bad arguments: one ValueError naming the argument, before anything is launched."""
    args = {"q": (2, 4, 64), "k": (4, 2, 64), "qo_indptr": np.array([0, 2], np.int32),
            "kv_indptr": np.array([0, 4], np.int32)}
    args.update(change)
    q, k = (np.zeros(args[n], np.float16) for n in ("q", "k"))
    with pytest.raises(ValueError, match=re.escape(says)) as e:
        day12.batch_prefill(None, q, k, k, args["qo_indptr"], args["kv_indptr"], causal=True)
    assert "\n" not in str(e.value)


def test_the_launch_geometry_is_asked_of_each_config_kernel(monkeypatch):
    """prefill_geometry remembers each (module, config kernel) pair's answer, not the module's first."""
    from grader import device
    from grader.launchers import prefill

    class Module:
        def get_function(self, name):
            return name

    answers = {"prefill_config": [64, 128, 1, 32, 256, 2], "batch_prefill_config": [16, 64, 3, 16, 128, 4]}
    monkeypatch.setattr(device, "require_gpu", lambda: np)
    monkeypatch.setattr(device, "launch",
                        lambda fn, grid, block, args, what=None: args[0].__setitem__(slice(None), answers[fn]))
    monkeypatch.setattr(device, "to_host", lambda a: a)
    module = Module()
    assert prefill.prefill_geometry(module)[64] == (64, 128, 1)
    assert prefill.prefill_geometry(module, "batch_prefill_config")[128] == (16, 128, 4)
