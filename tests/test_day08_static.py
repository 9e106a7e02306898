"""Day 8 without a GPU: the CUB kernels compile for every course architecture (cupy's CCCL headers on
the include path), the single-pass kernels take their tile from an atomic counter and look back with
warp votes, and nothing spills to local memory (tests/test_compile.py compiles the stubs)."""
import pytest

from grader import compiler, sass
from grader.compiler import ARCHS
from grader.paths import SOLUTIONS
from grader.pytest_plugin import require_sass_tools

pytest.importorskip("cuda.bindings.nvrtc", reason="offline compilation needs cuda-bindings")
if not compiler.cccl_include_dirs():
    pytest.skip("CUB comes with cupy's CCCL headers: install cupy", allow_module_level=True)
require_sass_tools()

DAY8 = SOLUTIONS / "day08"
KERNELS = {
    "block_scan.cu": ["warp_inclusive_sum_i32", "block_exclusive_sum_i32"],
    "scan.cu": ["exclusive_sum_i32", "lookback_i32"],
    "compact.cu": ["compact_f32"],
    "ragged.cu": ["build_indptr", "segment_sum", "gather_rows"],
}
ALL = [(f, k) for f, ks in KERNELS.items() for k in ks]
SINGLE_PASS = [("scan.cu", "exclusive_sum_i32"), ("compact.cu", "compact_f32")]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", SINGLE_PASS, ids=[k for _, k in SINGLE_PASS])
def test_single_pass_scans_take_tiles_in_start_order_and_look_back(file, kernel, arch):
    path = DAY8 / file
    assert sass.has(path, arch, r"ATOMG?\.E\.ADD", kernel=kernel), "no atomic tile counter: " + sass.report(path, arch, kernel)
    assert sass.has(path, arch, r"VOTE\.ANY", kernel=kernel), "no warp vote in the look-back: " + sass.report(path, arch, kernel)
    assert sass.has(path, arch, r"SHFL", kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", SINGLE_PASS, ids=[k for _, k in SINGLE_PASS])
def test_tile_states_are_published_with_release_and_read_with_acquire(file, kernel, arch):
    """st.release.gpu: a fence, then a strong GPU-scope 64-bit store; ld.acquire.gpu: a strong
    GPU-scope 64-bit load (then L1 invalidated, so later loads do not see stale lines)."""
    path = DAY8 / file
    for op in (r"MEMBAR\.ALL\.GPU", r"STG\.E\.64\.STRONG\.GPU", r"LDG\.E\.64\.STRONG\.GPU", r"CCTL\.IVALL"):
        assert sass.has(path, arch, op, kernel=kernel), f"{op}: " + sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", ["warp_inclusive_sum_i32", "block_exclusive_sum_i32"])
def test_block_scan_is_written_with_shuffles(kernel, arch):
    path = DAY8 / "block_scan.cu"
    ops = sass.histogram(sass.load(path, arch)[1][kernel])
    assert sum(c for op, c in ops.items() if op.startswith("SHFL.UP")) == 5, sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
def test_no_local_memory(arch):
    for file in KERNELS:
        for kernel, usage in sass.resources(sass.load(DAY8 / file, arch)[0]).items():
            assert usage["spill_stores"] == usage["spill_loads"] == usage["local"] == 0, (file, kernel, usage)
            assert usage["shared"] <= 24 * 1024, (file, kernel, usage)


HEADER_DEMO = r"""
#include <cub/block/block_scan.cuh>
#include <course/ragged.cuh>
#include <course/scan.cuh>
using Scan = cub::BlockScan<int, 128>;
extern "C" __global__ void headers(const int* in, int* out, const long long* indptr, int batch,
                                   unsigned long long* status) {
  __shared__ Scan::TempStorage temp;
  __shared__ course::LookbackPrefix<int>::WarpReduce::TempStorage warp_temp;
  int v[2] = {in[2 * threadIdx.x], in[2 * threadIdx.x + 1]};
  course::RunningPrefix<int> running(5);
  Scan(temp).ExclusiveSum(v, v, running);
  __syncthreads();
  course::LookbackPrefix<int> lookback(status, blockIdx.x, warp_temp);
  Scan(temp).InclusiveSum(v, v, lookback);
  const auto rows = course::ragged::row_range(indptr, blockIdx.x);
  out[threadIdx.x] = v[0] + v[1] + course::ragged::find_sequence(indptr, batch, threadIdx.x) + rows.size();
}
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_headers_compile(tmp_path, arch):
    src = tmp_path / "headers.cu"
    src.write_text(HEADER_DEMO)
    assert compiler.compile_file(src, arch).kernels == ["headers"]

