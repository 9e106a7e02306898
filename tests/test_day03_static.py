"""Day 3 without a GPU: the solutions use the SFU (MUFU.EX2, MUFU.TANH) and warp shuffles (SHFL), the
course header's wrappers compile to the instructions they name, and the stubs compile."""
import pytest

from grader import compiler, sass
from grader.compiler import ARCHS
from grader.paths import DAYS, SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

DAY3 = SOLUTIONS / "day03"


@pytest.mark.parametrize("arch", ARCHS)
def test_ptx_math_uses_the_sfu(arch):
    path = DAY3 / "ptx_math.cu"
    for op in ("MUFU.EX2", "MUFU.LG2", "MUFU.RSQ", "MUFU.RCP", "MUFU.TANH"):
        assert sass.has(path, arch, op.replace(".", r"\."), kernel="ptx_math"), sass.report(path, arch)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", ["gelu_tanh_f32", "gelu_tanh_f16"])
def test_gelu_tanh_uses_tanh_approx(arch, kernel):
    path = DAY3 / "gelu_tanh.cu"
    assert sass.has(path, arch, r"MUFU\.TANH", kernel=kernel), sass.report(path, arch, kernel)
    assert sass.has(path, arch, r"LDG\.E\.128", kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
def test_warp_reduce_shuffles(arch):
    path = DAY3 / "warp_reduce.cu"
    assert sass.has(path, arch, r"SHFL\.BFLY", kernel="warp_reduce"), sass.report(path, arch)
    assert not sass.has(path, arch, r"(STS|LDS)\b", kernel="warp_reduce"), "no shared memory needed"


HEADER_DEMO = r"""
#include <course/math.cuh>
using namespace course::math;
extern "C" __global__ void every_wrapper(float* f, half* h, half2* h2) {
  const int i = threadIdx.x;
  f[i] = ptx_exp2(f[i]) + ptx_log2(f[i] + 1.f) + ptx_rsqrt(f[i] + 2.f) + ptx_rcp(f[i] + 3.f)
       + ptx_tanh(f[i] + 4.f) + shfl_xor_sync(f[i], 1) + log2e + loge2 - inf;
  h[i] = ptx_tanh(h[i]);
  h2[i] = ptx_tanh(h2[i]);
}
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_math_header_wrappers_compile_to_what_they_name(tmp_path, arch):
    src = tmp_path / "every_wrapper.cu"
    src.write_text(HEADER_DEMO)
    ptx = compiler.compile_file(src, arch).ptx
    for instr in ("ex2.approx.ftz.f32", "lg2.approx.ftz.f32", "rsqrt.approx.ftz.f32", "rcp.approx.ftz.f32",
                  "tanh.approx.f32", "tanh.approx.f16 ", "tanh.approx.f16x2", "shfl.sync.bfly.b32"):
        assert instr in ptx, f"{instr} missing from the PTX"
    for op in (r"MUFU\.EX2", r"MUFU\.LG2", r"MUFU\.RSQ", r"MUFU\.RCP", r"MUFU\.TANH", r"SHFL\.BFLY"):
        assert sass.has(src, arch, op), sass.report(src, arch)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", ["ptx_math.cu", "warp_reduce.cu", "gelu_tanh.cu"])
def test_stub_compiles(arch, name):
    stub, solution = DAYS / "day03" / name, DAY3 / name
    assert compiler.compile_file(stub, arch).kernels == compiler.compile_file(solution, arch).kernels


@pytest.mark.parametrize("arch", ARCHS)
def test_bf16_bits_packs_with_one_instruction(arch):
    path = DAY3 / "bf16_bits.cu"
    assert sass.has(path, arch, r"F2FP\.BF16", kernel="bf16_bits"), sass.report(path, arch)
