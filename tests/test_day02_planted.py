"""Day 2's gather and int8 quantisation: planted wrong kernels fail with a message that says what is
wrong, and the solution passes (on the emulator without a GPU)."""
import re

import numpy as np
import pytest

from grader.paths import SOLUTIONS

SOLUTION = (SOLUTIONS / "day02" / "quant_int8.cu").read_text()


def _planted(old: str, new: str) -> str:
    assert old in SOLUTION, f"the solution changed: {old!r} not found"
    return SOLUTION.replace(old, new)


PLANTED = {
    # static_cast truncates towards zero: 12.7 becomes 12.
    "truncates": (_planted("const int r = __float2int_rn(x * inv_scale);",
                           "const int r = static_cast<int>(x * inv_scale);"), "truncated instead of rounded"),
    # The scale from the row's first element instead of its largest |x|.
    "scale_from_first": (_planted("amax = block_max(amax);",
                                  "amax = fabsf(course::to_float(xr[0]));"), "quantize_int8 scales"),
    # The scale inverted: max|x| * 127 stored instead of max|x| / 127.
    "scale_inverted": (_planted("scales[row] = amax / 127.f;", "scales[row] = amax * 127.f;"),
                       "quantize_int8 scales"),
    # Narrow accesses: one element per thread even when d % 16 == 0.
    "scalar_only": (_planted("if (d % VEC == 0) {", "if (false) {"), "16-byte accesses"),
}


@pytest.mark.parametrize("name", PLANTED)
def test_planted_quant_int8_fails(planted, name):
    text, expected = PLANTED[name]
    msg = planted("day02", "quant_int8", text)
    assert msg is not None, f"planted kernel {name} passed"
    assert expected in msg, msg
    assert "never written" not in msg, msg  # the most specific story first (truncation made a -1 too)


def test_solution_passes(planted):
    assert planted("day02", "quant_int8", SOLUTION) is None


def test_truncation_is_named_across_float_rounding():
    """A truncating kernel's x * (1 / scale) in float32 can fall just below an integer that x / scale
    reaches (2.9999998 for 3.0000001): still truncation. The large cases lost the diagnosis before."""
    from grader.exercises.day02 import _quant_diagnosis

    v = np.array([2.5, -7.9, 3.0000001, -12.0000002, 100.7])
    got = np.array([2.0, -7.0, 2.0, -11.0, 100.0])
    assert "truncated instead of rounded" in _quant_diagnosis(got, v, np.rint(v))
    assert _quant_diagnosis(np.array([2.0, -7.0, 1.0]), v[:3], np.rint(v[:3])) == ""  # 1 for 3.0000001: not that


def test_a_gather_one_element_off_is_caught_past_n(planted):
    """out[i + 1] = ...: the write past n_out is the specific story (element 0 unwritten follows from it),
    named at its own index."""
    solution = (SOLUTIONS / "day02" / "strided_gather.cu").read_text()
    old = "if (i < n_out) out[i] = in[i * stride];"
    assert old in solution, "the solution changed"
    msg = planted("day02", "strided_gather", solution.replace(old, "if (i < n_out) out[i + 1] = in[i * stride];"))
    assert msg is not None and "past n_out" in msg and "never written" not in msg, msg
    assert re.search(r"first at index (\d+)", msg).group(1) != "0", msg  # n_out, not the guard's own 0
