"""Day 5 SASS facts, checked on the solutions' cubins (no GPU needed): the scan and the softmax talk
through warp shuffles (SHFL), the compaction through votes (VOTE, POPC) with no shuffle at all, the
softmax moves 16 bytes per access and takes exp from the SFU, nothing spills to local memory, and the
course header compiles to the instructions it names."""
import pytest

from grader import compiler, sass
from grader.compiler import ARCHS
from grader.paths import DAYS, SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

DAY05 = SOLUTIONS / "day05"
KERNELS = {"warp_scan.cu": ["warp_scan"], "softmax_stats.cu": ["softmax_stats"],
           "softmax.cu": ["softmax_f32", "softmax_f16"],
           "compact.cu": ["compact_count", "compact_scatter"]}
ALL = [(f, k) for f, ks in KERNELS.items() for k in ks]
SHUFFLES = {"warp_scan": r"SHFL\.UP", "softmax_stats": r"SHFL\.BFLY", "softmax_f32": r"SHFL\.BFLY", "softmax_f16": r"SHFL\.BFLY"}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", [(f, k) for f, k in ALL if k in SHUFFLES], ids=list(SHUFFLES))
def test_shuffles_present(file, kernel, arch):
    path = DAY05 / file
    assert sass.has(path, arch, SHUFFLES[kernel], kernel=kernel), sass.report(path, arch, kernel)
    assert not sass.has(path, arch, r"(STS|LDS)\b", kernel=kernel), "a warp needs no shared memory"


@pytest.mark.parametrize("arch", ARCHS)
def test_scan_carry_is_a_broadcast(arch):
    path = DAY05 / "warp_scan.cu"
    assert sass.has(path, arch, r"SHFL\.IDX", kernel="warp_scan"), sass.report(path, arch, "warp_scan")


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", KERNELS["compact.cu"])
def test_compaction_votes(kernel, arch):
    path = DAY05 / "compact.cu"
    for op in (r"VOTE\.ANY", r"POPC"):
        assert sass.has(path, arch, op, kernel=kernel), sass.report(path, arch, kernel)
    assert not sass.has(path, arch, r"SHFL", kernel=kernel), "one ballot replaces the shuffles"


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", KERNELS["softmax.cu"])
def test_softmax_uses_wide_access_and_the_sfu(kernel, arch):
    path = DAY05 / "softmax.cu"
    for op in (r"LDG\.E\.128", r"STG\.E\.128", r"MUFU\.EX2"):
        assert sass.has(path, arch, op, kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", ALL, ids=[k for _, k in ALL])
def test_no_local_memory_spills(file, kernel, arch):
    usage = sass.resources(sass.load(DAY05 / file, arch)[0])[kernel]
    assert usage["spill_stores"] == usage["spill_loads"] == usage["local"] == 0, usage


HEADER_DEMO = r"""
#include <course/warp.cuh>
extern "C" __global__ void every_helper(int* a, float* f, unsigned* m) {
  const int i = threadIdx.x;
  a[i] = course::warp_inclusive_scan(a[i]) + course::warp_exclusive_scan(a[i] + 1)
       + course::warp_broadcast(a[i], 3) + course::lane_id();
  f[i] = course::warp_inclusive_scan(f[i]);
  const course::WarpRank r = course::warp_rank(f[i] > 0.f);
  m[i] = course::lanemask_lt() + r.rank + r.count;
}
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_warp_header_compiles_to_what_it_names(tmp_path, arch):
    src = tmp_path / "every_helper.cu"
    src.write_text(HEADER_DEMO)
    ptx = compiler.compile_file(src, arch).ptx
    for instr in ("shfl.sync.up.b32", "shfl.sync.idx.b32", "vote.sync.ballot.b32", "%lanemask_lt"):
        assert instr in ptx, f"{instr} missing from the PTX"
    for op in (r"SHFL\.UP", r"SHFL\.IDX", r"VOTE\.ANY", r"POPC"):
        assert sass.has(src, arch, op), sass.report(src, arch)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", list(KERNELS))
def test_stub_compiles(arch, name):
    stub, solution = DAYS / "day05" / name, DAY05 / name
    assert compiler.compile_file(stub, arch).kernels == compiler.compile_file(solution, arch).kernels
