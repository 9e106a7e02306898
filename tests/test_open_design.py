"""The open-design exercises' grading against planted designs: each is right (its correctness cases pass)
but falls short in one way the design grade must name, or is wrong in a way the correctness cases catch."""
import numpy as np
import pytest

from grader import device
from grader.exercises import open_design
from grader.paths import SOLUTIONS

COLSUM = (SOLUTIONS / "day07" / "colsum.cu").read_text()


def _planted(solution: str, *pairs: tuple[str, str]) -> str:
    """`solution` with each (old, new) replaced; every old must still be in the solution."""
    text = solution
    for old, new in pairs:
        assert old in text, f"the planted replacement no longer matches the solution: {old!r}"
        text = text.replace(old, new)
    return text


def _derive(*pairs: tuple[str, str]) -> str:
    return _planted(COLSUM, *pairs)


def _graded_design(planted, day: str, name: str, text: str) -> str | None:
    """The design grade's message for a planted design that must still pass the correctness cases."""
    right = planted(day, name, text)
    assert right is None, f"a planted design must still be right: {right}"
    return planted(day, f"{name}_design", text)


def _design(planted, text: str) -> str | None:
    return _graded_design(planted, "day07", "colsum", text)


def test_the_solution_passes_both(planted):
    assert planted("day07", "colsum", COLSUM) is None
    assert planted("day07", "colsum_design", COLSUM) is None


def test_scalar_loads_are_narrow(planted):
    msg = _design(planted, _derive(("  t.vec = n % 4 == 0 ? 4 : 1;\n", "  t.vec = 1;\n")))
    assert msg and "narrow loads: 4.0 bytes per thread" in msg and "not coalesced" not in msg, msg


def test_lanes_down_the_rows_are_not_coalesced(planted):
    msg = _design(planted, _derive(("const int tx = threadIdx.x % t.tx, ty = threadIdx.x / t.tx;",
                                    "const int tx = threadIdx.x / t.ty, ty = threadIdx.x % t.ty;"),
                                   ("part.store(red + threadIdx.x * VEC);", "part.store(red + (ty * t.tx + tx) * VEC);")))
    assert msg and "loads not coalesced" in msg, msg


def test_reading_the_input_twice(planted):
    loop = "    for (long long r = r0 + ty; r < r1; r += t.ty) {\n"
    msg = _design(planted, _derive((loop, "    for (int twice = 0; twice < 2; ++twice)\n" + loop),
                                   ("acc[k] += v[k];\n    }\n  }\n", "acc[k] += 0.5f * v[k];\n    }\n  }\n")))
    assert msg and "the input read 2.00 times" in msg, msg


def test_one_block_row_for_all_rows_is_too_little_parallelism(planted):
    msg = _design(planted, _derive(("  plan[1] = static_cast<int>(min(grid_y, 65535LL));\n", "  plan[1] = 1;\n")))
    assert msg and "too little parallelism" in msg and "(1, 1)" in msg, msg


def test_a_strided_reduction_buffer_has_bank_conflicts(planted):
    msg = _design(planted, _derive(("float red[BLOCK_THREADS * 4]", "float red[BLOCK_THREADS * 32]"),
                                   ("part.store(red + threadIdx.x * VEC);", "part.store(red + threadIdx.x * 32);"),
                                   ("v.load(red + (y * t.tx + tx) * VEC);", "v.load(red + (y * t.tx + tx) * 32);")))
    assert msg and "bank conflicts" in msg, msg


def test_half_precision_sums_fail_the_correctness_cases(planted):
    text = _derive(("#include <course/vec_dtypes.cuh>\n", "#include <course/vec_dtypes.cuh>\n#include <cuda_fp16.h>\n"),
                   ("for (int k = 0; k < VEC; ++k) acc[k] += v[k];\n    }\n  }\n",
                    "for (int k = 0; k < VEC; ++k) acc[k] = __half2float(__float2half(acc[k] + v[k]));\n    }\n  }\n"))
    msg = planted("day07", "colsum", text)
    assert msg and "colsum (M=" in msg and "allowed error" in msg, msg


def test_an_impossible_plan_is_named(planted):
    msg = planted("day07", "colsum", _derive(("  plan[2] = BLOCK_THREADS;\n", "  plan[2] = 100;\n")))
    assert msg and "colsum_plan" in msg and "block.x = 100" in msg, msg


@pytest.mark.parametrize("totals, expected", [
    ({"global": {"requests": 0, "sectors": 0, "ideal": 0, "bytes": 0},
      "shared": {"requests": 0, "wavefronts": 0, "ideal": 0, "max_ways": 0}}, "loads nothing"),
    ({"global": {"requests": 10, "sectors": 160, "ideal": 160, "bytes": 5120},
      "shared": {"requests": 0, "wavefronts": 0, "ideal": 0, "max_ways": 0}}, None),
])
def test_statistics_verdict_edges(totals, expected):
    wrong = open_design.statistics_verdict(totals, 5120)
    assert (expected in wrong[0]) if expected else wrong == [], wrong


def test_parallelism_counts_threads_per_sm():
    assert open_design.parallelism_verdict(open_design.Plan((132, 1), 512, 0)) == []
    assert "256 threads per SM" in open_design.parallelism_verdict(open_design.Plan((132, 1), 256, 0))[0]


@pytest.mark.skipif(not device.emulated(), reason="the emulator's statistics")
def test_memory_totals_count_loads_only():
    mod = device.load_source('extern "C" __global__ void k(const float* x, float* y) {'
                             ' y[threadIdx.x] = x[threadIdx.x] + x[threadIdx.x + 32]; }', "loads.cu")
    x, y = device.asarray(np.ones(64, np.float32)), device.empty(32)
    device.launch(mod.get_function("k"), (1,), (32,), (x, y))
    g = device.current().memory_totals()["global"]
    assert (g["requests"], g["bytes"], g["sectors"]) == (2, 256, 8), g


def test_design_shapes_keep_integer_sums_exact():
    """The design check compares exactly on +-(1..8): every partial sum must stay within float32's 2^24
    (a float bound at 2^21 rows let sums never written pass on the H100)."""
    from grader.exercises import day07
    for small, full in day07.DESIGN_SHAPES.values():
        assert 8 * max(small[0], full[0]) <= 2 ** 24 and full[0] * full[1] == 1 << 26


def test_writing_nothing_fails_every_design_shape(planted):
    from grader.exercises import day07
    text = _derive(("    column_tile_sums<4>(x, out, m, n, t, red);\n", ""), ("    column_tile_sums<1>(x, out, m, n, t, red);\n", ""))
    for shape in day07.DESIGN_SHAPES:
        msg = planted("day07", "colsum_design", text, cases=[{"shape": shape}])
        assert msg and "exact in any order" in msg, (shape, msg)


# ---- day 10: the decode GEMV ---------------------------------------------------------------------

GEMV = (SOLUTIONS / "day10" / "gemv.cu").read_text()


def _gemv(*pairs: tuple[str, str]) -> str:
    return _planted(GEMV, *pairs)


def _gemv_design(planted, text: str) -> str | None:
    return _graded_design(planted, "day10", "gemv", text)


def test_gemv_solution_passes_both(planted):
    assert planted("day10", "gemv", GEMV) is None and planted("day10", "gemv_design", GEMV) is None


def test_gemv_reading_x_from_global_for_every_row(planted):
    msg = _gemv_design(planted, _gemv(("        b.load(xs + i);\n", "        b.load(x + c0 + i);\n")))
    assert msg and "the input read" in msg, msg


def test_gemv_scalar_loads_are_narrow(planted):
    msg = _gemv_design(planted, _gemv(("  t.vec = k % 8 == 0 ? 8 : 1;\n", "  t.vec = 1;\n")))
    assert msg and "narrow loads" in msg, msg


def test_gemv_without_splitting_k_starves_the_wide_shape(planted):
    msg = _gemv_design(planted, _gemv(("  plan[1] = min(grid_y, 65535);\n", "  plan[1] = 1;\n")))
    assert msg and "too little parallelism" in msg, msg
