"""Day 3: planted kernels that compute the right numbers the wrong way (library calls where the day
teaches inline PTX) or the wrong numbers (truncation, swapped halves) fail with a message that says
what is wrong; the solutions pass (on the emulator without a GPU)."""
import re

import pytest

from grader.paths import SOLUTIONS

DAY3 = SOLUTIONS / "day03"


def _solution(name: str) -> str:
    return (DAY3 / f"{name}.cu").read_text()


def _asm_body(fn: str, new: str, text: str) -> str:
    """`text` with the body of function `fn` (one asm line and its return) replaced by `new`."""
    pattern = re.compile(rf"(COURSE_INLINE float {fn}\(float x\) {{\n  // BEGIN EXERCISE\n(?:  //[^\n]*\n)*)"
                         rf".*?(  // END EXERCISE)", re.S)
    out, count = pattern.subn(lambda m: m.group(1) + f"  {new}\n" + m.group(2), text)
    assert count == 1, f"the solution changed: no function {fn}"
    return out


LIBRARY = {"my_exp2": "return exp2f(x);", "my_log2": "return __log2f(x);", "my_rsqrt": "return rsqrtf(x);",
           "my_rcp": "return __fdividef(1.f, x);", "my_tanh": "return tanhf(x);"}


def _ptx_math_with_library_calls() -> str:
    text = _solution("ptx_math")
    for fn, body in LIBRARY.items():
        text = _asm_body(fn, body, text)
    return text


def _replaced(name: str, old: str, new: str) -> str:
    text = _solution(name)
    assert old in text, f"the solution changed: {old!r} not in {name}.cu"
    return text.replace(old, new)


PLANTED = {
    # Right numbers (within the bounds), but from the math library: graded on the asm.
    "ptx_math library calls": ("ptx_math", _ptx_math_with_library_calls(),
                               ("a math-library call", "asm statement with ex2.approx")),
    "ptx_math one library call": ("ptx_math", _asm_body("my_rsqrt", "return rsqrtf(x);", _solution("ptx_math")),
                                  ("asm statement with rsqrt.approx",)),
    "ptx_math course wrappers": ("ptx_math", "#include <course/math.cuh>\n" + _asm_body(
        "my_tanh", "return course::math::ptx_tanh(x);", _solution("ptx_math")), ("course::math's wrappers",)),
    "warp_reduce library shuffle": ("warp_reduce", _replaced(
        "warp_reduce", 'float r;\n  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : '
                       '"f"(v), "r"(lane_mask));\n  return r;', "return __shfl_xor_sync(0xffffffffu, v, lane_mask);"),
        ("the library's shuffles",)),
    # shfl down: only lane 0 ends with the sum.
    "warp_reduce shfl down": ("warp_reduce", _replaced("warp_reduce", "shfl.sync.bfly.b32", "shfl.sync.down.b32"),
                              ("asm statement with shfl.sync.bfly.b32",)),
    "gelu tanhf": ("gelu_tanh", _asm_body("tanh_approx", "return tanhf(x);", _solution("gelu_tanh")),
                   ("tanhf or course::math",)),
    "bf16 truncates": ("bf16_bits", _replaced("bf16_bits", "return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;",
                                              "return u >> 16;"), ("truncated instead of rounded",)),
    "bf16 ties away": ("bf16_bits", _replaced("bf16_bits", "return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;",
                                              "return (u + 0x8000u) >> 16;"), ("ties go to the EVEN",)),
    "bf16 cvt operands swapped": ("bf16_bits", _replaced("bf16_bits", ': "f"(hi), "f"(lo));', ': "f"(lo), "f"(hi));'),
                                  ("packed_hw", "halves swapped")),
}


@pytest.mark.parametrize("name", PLANTED)
def test_planted_kernel_fails(planted, name):
    exercise, text, expected = PLANTED[name]
    msg = planted("day03", exercise, text)
    assert msg is not None, f"planted kernel '{name}' passed"
    for words in expected:
        assert words in msg, msg


@pytest.mark.parametrize("exercise", ["ptx_math", "warp_reduce", "gelu_tanh", "bf16_bits"])
def test_solution_passes(planted, exercise):
    assert planted("day03", exercise, _solution(exercise)) is None
