"""Day 6: planted wrong kernels fail with a message that says what is wrong, and the solutions pass
(on the emulator without a GPU).

- block_sum through cub::BlockReduce or through an atomicAdd gives the right sum but skips the
  technique of the day (the student's own two-level reduction): the technique check refuses both.
- RMSNorm and fused add + RMSNorm whose sum of squares is accumulated in the 16-bit dtype (bf16 and
  fp16), that leave eps out, or that add it outside the square root, must fail the tolerance (one
  rounding of the dtype per element, rows near zero included).
"""
import re

import pytest

from grader import technique
from grader.exercises import day06
from grader.paths import SOLUTIONS

SOLUTION = {name: (SOLUTIONS / "day06" / f"{name}.cu").read_text()
            for name in ("block_sum", "rmsnorm", "fused_add_rmsnorm")}


def _planted(name: str, *edits: tuple[str, str]) -> str:
    text = SOLUTION[name]
    for old, new in edits:
        assert old in text, f"the solution {name}.cu changed: {old!r} not found"
        text = text.replace(old, new)
    return text


# ---- block_sum: the right sum without the day's technique ----------------------------------------

BLOCK_SUM_OF = re.compile(r"(COURSE_INLINE float block_sum_of\(float v, float\* smem\) \{\n).*?(\n\}\n)", re.S)


def _block_sum_of(body: str, include: str = "") -> str:
    text = BLOCK_SUM_OF.sub(lambda m: m.group(1) + body + m.group(2), SOLUTION["block_sum"])
    assert text != SOLUTION["block_sum"]
    return text.replace("#include <course/common.cuh>\n", "#include <course/common.cuh>\n" + include)


CUB = _block_sum_of("""  using BlockReduce = cub::BlockReduce<float, BLOCK>;
  __shared__ typename BlockReduce::TempStorage temp;
  return BlockReduce(temp).Sum(v);""", "#include <cub/block/block_reduce.cuh>\n")
ATOMIC = _block_sum_of("""  if (threadIdx.x == 0) smem[0] = 0.f;
  __syncthreads();
  atomicAdd(smem, v);
  __syncthreads();
  return smem[0];""")


@pytest.mark.parametrize("text,expected", [(CUB, "uses CUB"), (ATOMIC, "atomics")], ids=["cub", "atomicAdd"])
def test_block_sum_without_its_own_reduction_fails(planted, text, expected):
    msg = planted("day06", "block_sum", text, cases=[{"n": 1000}])
    assert msg is not None, "a block_sum without its own shuffle + shared-memory reduction passed"
    assert "technique of the day" in msg and expected in msg, msg


def test_block_sum_solution_passes(planted):
    assert planted("day06", "block_sum", SOLUTION["block_sum"], cases=[{"n": 1000}, {"n": 33}]) is None


# ---- RMSNorm: accumulation in 16 bits, eps -------------------------------------------------------

ROUND_AS = """#include <course/vec_dtypes.cuh>
COURSE_INLINE float round_as(float x, half) { return __half2float(__float2half_rn(x)); }
COURSE_INLINE float round_as(float x, __nv_bfloat16) {  // to nearest even, in integer arithmetic
  const uint32_t u = __float_as_uint(x);
  return __uint_as_float((u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u);
}
"""


def _accumulate_in_t(name: str, square: str, tail_square: str) -> str:
    """Each thread's sum_sq rounded to T (bf16 or fp16, the kernel's dtype) after every addition: the
    arithmetic of a `T sum_sq` accumulator (kept in a float register, so that the kernel has no
    local-memory traffic for the technique check to refuse first)."""
    def rounded(sq):
        return f"sum_sq = round_as(sum_sq + {sq}, T());"
    return _planted(name, ("#include <course/vec_dtypes.cuh>\n", ROUND_AS), (f"sum_sq += {square};", rounded(square)),
                    (f"sum_sq += {tail_square};", rounded(tail_square)))


SCALE = "rsqrtf(row_sum(sum_sq, smem) / d + eps)"
NORM_PLANTED = {
    "rmsnorm": {
        "accumulates_in_16_bits": _accumulate_in_t(
            "rmsnorm", "course::to_float(v[k][j]) * course::to_float(v[k][j])", "t[j] * t[j]"),
        "no_eps": _planted("rmsnorm", (SCALE, "rsqrtf(row_sum(sum_sq, smem) / d)")),
        "eps_outside_sqrt": _planted("rmsnorm", (SCALE, "1.f / (sqrtf(row_sum(sum_sq, smem) / d) + eps)")),
    },
    "fused_add_rmsnorm": {
        "accumulates_in_16_bits": _accumulate_in_t(
            "fused_add_rmsnorm", "course::to_float(v[k][j]) * course::to_float(v[k][j])",
            "course::to_float(r[j]) * course::to_float(r[j])"),
        "no_eps": _planted("fused_add_rmsnorm", (SCALE, "rsqrtf(row_sum(sum_sq, smem) / d)")),
        "eps_outside_sqrt": _planted("fused_add_rmsnorm",
                                     (SCALE, "1.f / (sqrtf(row_sum(sum_sq, smem) / d) + eps)")),
    },
}
# Rows of every ROW_SCALES kind (rows = 7 > 6). A 16-bit accumulator only hurts where each thread
# adds up many squares: d = 12345 (odd: one element per access, 48 per thread); eps shows at any d.
SHAPES = {"accumulates_in_16_bits": {"rows": 7, "d": 12345}, "no_eps": {"rows": 7, "d": 31},
          "eps_outside_sqrt": {"rows": 7, "d": 31}}


def _case(name: str, shape: dict, dtype: str, **extra) -> dict:
    return {**shape, "dtype": dtype, **({"gemma": False, **extra} if name == "rmsnorm" else {})}


@pytest.mark.parametrize("dtype", day06.SUFFIX)
@pytest.mark.parametrize("name,bug", [(n, b) for n, bugs in NORM_PLANTED.items() for b in bugs])
def test_planted_norm_fails(planted, monkeypatch, name, bug, dtype):
    # The tolerance alone must catch these (the bf16 kernel of a planted one may spill a register,
    # which the technique check would refuse first).
    monkeypatch.setattr(technique, "check", lambda ex, path: None)
    msg = planted("day06", name, NORM_PLANTED[name][bug], cases=[_case(name, SHAPES[bug], dtype)])
    assert msg is not None, f"{name} with {bug} passed in {dtype}"
    assert f"one {dtype} rounding" in msg or "NaN" in msg or "Inf" in msg, msg
    assert "never written" not in msg, msg  # a NaN of 0 x inf on a zero row is written: say so


@pytest.mark.parametrize("name", NORM_PLANTED)
def test_norm_solution_passes(planted, name):
    shapes = ({"rows": 7, "d": 31}, {"rows": 7, "d": 12345})
    cases = [_case(name, s, dt) for s in shapes for dt in day06.SUFFIX]
    cases += [_case(name, shapes[0], "bfloat16", gemma=True)] if name == "rmsnorm" else []
    assert planted("day06", name, SOLUTION[name], cases=cases, seed=None) is None


def test_gemma_needs_one_plus_weight(planted):
    text = _planted("rmsnorm", ("return GEMMA ? 1.f + course::to_float(w) : course::to_float(w);",
                                "return course::to_float(w);"))
    msg = planted("day06", "rmsnorm", text, cases=[{"rows": 7, "d": 31, "dtype": "bfloat16", "gemma": True}])
    assert msg is not None and "gemma_rmsnorm out" in msg, msg
