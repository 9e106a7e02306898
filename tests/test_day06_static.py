"""Day 6 SASS facts, checked on the solutions' cubins (no GPU needed): the reductions use warp shuffles
(SHFL), RMSNorm moves 16 bytes per access (LDG.E.128 / STG.E.128), and the rows kept in registers
never spill to local memory."""
import pytest

from grader import sass
from grader.compiler import ARCHS
from grader.paths import SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

DAY06 = SOLUTIONS / "day06"
KERNELS = {
    "block_sum.cu": ["block_sum"],
    "rmsnorm.cu": ["rmsnorm_f16", "rmsnorm_bf16", "gemma_rmsnorm_f16", "gemma_rmsnorm_bf16"],
    "fused_add_rmsnorm.cu": ["fused_add_rmsnorm_f16", "fused_add_rmsnorm_bf16"],
}
ALL = [(f, k) for f, ks in KERNELS.items() for k in ks]
NORMS = [(f, k) for f, k in ALL if f != "block_sum.cu"]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", ALL, ids=[k for _, k in ALL])
def test_reductions_use_warp_shuffles(file, kernel, arch):
    path = DAY06 / file
    assert sass.has(path, arch, r"SHFL", kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", NORMS, ids=[k for _, k in NORMS])
def test_rmsnorm_moves_16_bytes_per_access(file, kernel, arch):
    path = DAY06 / file
    assert sass.has(path, arch, r"LDG\.E\.128", kernel=kernel), sass.report(path, arch, kernel)
    assert sass.has(path, arch, r"STG\.E\.128", kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", ALL, ids=[k for _, k in ALL])
def test_no_local_memory_spills(file, kernel, arch):
    usage = sass.resources(sass.load(DAY06 / file, arch)[0])[kernel]
    assert usage["spill_stores"] == usage["spill_loads"] == usage["local"] == 0, usage
    assert usage["shared"] <= 2048, usage  # a few floats of scratch (sm_90 adds 1 KiB reserved)
