"""Day 2 without a GPU: the vectorised solutions move 16 bytes per access (LDG.E.128 / STG.E.128), the
int8 vec_t of course/vec_dtypes.cuh included, with no spills; day 1's read_sum loads float4s."""
import pytest

from grader import compiler, sass
from grader.compiler import ARCHS
from grader.paths import SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", ["quantize_int8", "dequantize_int8"])
def test_quant_int8_moves_16_bytes(arch, kernel):
    path = SOLUTIONS / "day02" / "quant_int8.cu"
    for op in (r"LDG\.E\.128", r"STG\.E\.128"):
        assert sass.has(path, arch, op, kernel=kernel), sass.report(path, arch, kernel)
    assert not sass.has(path, arch, r"(LDL|STL)\b", kernel=kernel), "no local memory"


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", ["silu_and_mul_f32", "silu_and_mul_f16", "silu_and_mul_bf16"])
def test_silu_and_mul_moves_16_bytes(arch, kernel):
    path = SOLUTIONS / "day02" / "silu_and_mul.cu"
    assert sass.has(path, arch, r"LDG\.E\.128", kernel=kernel), sass.report(path, arch, kernel)
    assert sass.has(path, arch, r"STG\.E\.128", kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
def test_read_sum_loads_float4(arch):
    path = SOLUTIONS / "day01" / "read_sum.cu"
    assert sass.has(path, arch, r"LDG\.E\.128", kernel="read_sum"), sass.report(path, arch)


INT8_DEMO = r"""
#include <course/vec_dtypes.cuh>
extern "C" __global__ void int8_vec(const int8_t* q, int8_t* r, float* f) {
  course::vec_t<int8_t, 16> v;
  v.load(q + 16 * threadIdx.x);
  f[threadIdx.x] = course::to_float(v[0]) + course::to_float(v[15]);
  v[1] = course::from_float<int8_t>(f[threadIdx.x + 64]);
  v.store(r + 16 * threadIdx.x);
  course::vec_t<int8_t, 1> one;
  one.load(q);
  one.store(r + 4096);
}
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_int8_vec_t_is_one_16_byte_access(tmp_path, arch):
    src = tmp_path / "int8_vec.cu"
    src.write_text(INT8_DEMO)
    ptx = compiler.compile_file(src, arch).ptx
    assert "cvt.rni.s32.f32" in ptx, "from_float<int8_t> rounds to nearest"
    assert sass.has(src, arch, r"LDG\.E\.128"), sass.report(src, arch)
    assert sass.has(src, arch, r"STG\.E\.128"), sass.report(src, arch)
