"""Day 7 without a GPU: the solutions copy with cp.async (LDGSTS in SASS) and wait on it (DEPBAR), the
zero-fill form is used where the data can end, and the header's wrappers compile to the PTX they name
(tests/test_compile.py compiles the stubs)."""
import pytest

from grader import compiler, sass
from grader.compiler import ARCHS
from grader.paths import SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

DAY7 = SOLUTIONS / "day07"
KERNELS = {
    "async_copy.cu": ["async_copy_4b", "async_copy_8b", "async_copy_16b"],
    "double_buffer.cu": ["double_buffer"],
    "pipeline.cu": [f"pipeline_s{s}" for s in (1, 2, 3, 4, 6, 8)],
    "qk_scores.cu": ["qk_scores"],
}
Q_LOADS = {"qk_scores": 2}  # q's two floats per lane, loaded once into registers
ALL = [(f, k) for f, ks in KERNELS.items() for k in ks]
WIDTH = {"async_copy_4b": r"LDGSTS\.E(\.ZFILL)?\b", "async_copy_8b": r"LDGSTS\.E\.64",
         "async_copy_16b": r"LDGSTS\.E\.BYPASS\.128"}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", ALL, ids=[k for _, k in ALL])
def test_copies_are_asynchronous(file, kernel, arch):
    path = DAY7 / file
    assert sass.has(path, arch, r"LDGSTS", kernel=kernel), sass.report(path, arch, kernel)
    assert sass.has(path, arch, r"LDGDEPBAR", kernel=kernel), "commit_group missing: " + sass.report(path, arch, kernel)
    assert sass.has(path, arch, r"DEPBAR", kernel=kernel), "wait_group missing: " + sass.report(path, arch, kernel)
    loads = sass.histogram(sass.load(path, arch)[1][kernel])
    assert sum(c for op, c in loads.items() if op.startswith("LDG.")) == Q_LOADS.get(kernel, 0), \
        "a global load through registers: " + sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", list(WIDTH))
def test_async_copy_width(kernel, arch):
    path = DAY7 / "async_copy.cu"
    assert sass.has(path, arch, WIDTH[kernel], kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
def test_pipeline_zero_fills_and_keeps_to_static_shared_memory(arch):
    path = DAY7 / "pipeline.cu"
    usage = sass.resources(sass.load(path, arch)[0])
    for s in (1, 2, 3, 4, 6, 8):
        kernel = f"pipeline_s{s}"
        assert sass.has(path, arch, r"LDGSTS\.E\.BYPASS\.128\.ZFILL", kernel=kernel), sass.report(path, arch, kernel)
        assert s * 4096 <= usage[kernel]["shared"] <= s * 4096 + 1024, usage[kernel]  # STAGES tiles of 4 KiB
        assert usage[kernel]["local"] == 0, usage[kernel]


HEADER_DEMO = r"""
#include <course/cp_async.cuh>
namespace cpa = course::cp_async;
extern "C" __global__ void every_wrapper(const float* g, float* out, int n) {
  __shared__ __align__(16) float s[1024];
  const int t = threadIdx.x;
  cpa::load_128b(s + 4 * t, g + 4 * t, 4 * t < n);
  cpa::load_128b<cpa::SharedMemFillMode::kNoFill>(s + 4 * t, g + 4 * t, 4 * t < n);
  cpa::load_128b<cpa::SharedMemFillMode::kFillZero, cpa::PrefetchMode::kPrefetch>(s + 4 * t, g + 4 * t, t < n);
  cpa::load_128b_zfill(s + 4 * t, g + 4 * t, 4 * (n - 4 * t));
  cpa::commit_group();
  cpa::load_64b(s + 2 * t, g + 2 * t, t < n);
  cpa::load_64b<cpa::SharedMemFillMode::kNoFill>(s + 2 * t, g + 2 * t, t < n);
  cpa::load_32b(s + t, g + t, t < n);
  cpa::load<4, cpa::SharedMemFillMode::kNoFill>(s + t, g + t, t < n);
  cpa::commit_group();
  cpa::wait_group<1>();
  cpa::wait_group<0>();
  cpa::wait_all();
  cpa::prefetch_l2(g + t);
  __syncthreads();
  out[t] = s[t] + s[(t + 1) % 1024];
}
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_header_wrappers_compile_to_what_they_name(tmp_path, arch):
    src = tmp_path / "every_wrapper.cu"
    src.write_text(HEADER_DEMO)
    ptx = compiler.compile_file(src, arch).ptx
    # every wrapper rests on day 7's three instructions (commit, wait, one zero-filling copy): wait_all
    # is commit + wait_group 0, kNoFill a copy issued only where the predicate holds, kPrefetch a
    # prefetch.global.L2 beside the copy
    for instr in ("cp.async.cg.shared.global [", "cp.async.ca.shared.global", "], 8, %", "], 4, %",
                  "cp.async.commit_group;", "cp.async.wait_group 1;", "cp.async.wait_group 0;",
                  "prefetch.global.L2 ["):
        assert instr in ptx, f"{instr!r} missing from the PTX"
    for op in (r"LDGSTS\.E\.BYPASS\.128\.ZFILL", r"LDGSTS\.E\.64", r"LDGSTS\.E\b", r"LDGDEPBAR",
               r"DEPBAR\.LE"):
        assert sass.has(src, arch, op), sass.report(src, arch)

