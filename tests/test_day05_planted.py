"""Day 5: planted wrong kernels fail with a message that says what is wrong, and the solutions pass
(on the emulator without a GPU).

- warp_scan done by lane 0 in a loop: the right numbers, no shuffles: the technique check refuses it.
- softmax_stats whose merge forgets that two empty states give -inf - (-inf) = NaN: short rows fail.
- softmax through course::warp_reduce_max / warp_reduce_sum instead of its own butterflies: refused.
"""
import re

import pytest

from grader.paths import SOLUTIONS

SOLUTION = {name: (SOLUTIONS / "day05" / f"{name}.cu").read_text()
            for name in ("warp_scan", "softmax_stats", "softmax")}


def _planted(name: str, *edits: tuple[str, str]) -> str:
    text = SOLUTION[name]
    for old, new in edits:
        assert old in text, f"the solution {name}.cu changed: {old!r} not found"
        text = text.replace(old, new)
    return text


def _lane0_scan() -> str:
    """The kernel's exercise region replaced by one lane walking the row alone."""
    loop = re.compile(r"(  int carry = 0;\n).*?(\n  // END EXERCISE\n\}\n$)", re.S)
    text = loop.sub(lambda m: "  if (lane == 0) {\n    int acc = 0;\n    for (int j = 0; j < d; ++j) o[j] = acc += in[j];\n  }"
                    + m.group(2), SOLUTION["warp_scan"])
    assert text != SOLUTION["warp_scan"]
    return text


SCAN_CASES = [{"rows": 3, "d": 31}, {"rows": 7, "d": 33}]
STATS_CASES = [{"rows": 7, "d": 31, "inputs": "normal"}, {"rows": 1, "d": 1, "inputs": "normal"}]
SOFTMAX_CASES = [{"rows": 7, "d": 31, "dtype": "float32", "inputs": "normal"}]


def test_warp_scan_in_lane_0_fails(planted):
    msg = planted("day05", "warp_scan", _lane0_scan(), cases=SCAN_CASES)
    assert msg is not None, "a warp_scan without shuffles passed"
    assert "technique of the day" in msg and "SHFL" in msg, msg


def test_warp_scan_with_the_course_helper_fails(planted):
    text = _planted("warp_scan", ("const int s = scan_chunk(j < d ? in[j] : 0) + carry;",
                                  "const int s = course::warp_inclusive_scan(j < d ? in[j] : 0) + carry;"))
    msg = planted("day05", "warp_scan", text, cases=SCAN_CASES)
    assert msg is not None and "warp_inclusive_scan" in msg, msg


def test_softmax_stats_merging_empty_states_fails(planted):
    text = _planted("softmax_stats", ("  if (m == -course::math::inf) return a;  // neither has seen anything\n", ""))
    msg = planted("day05", "softmax_stats", text, cases=STATS_CASES)
    assert msg is not None, "a merge that makes NaN of two empty states passed"
    assert "NaN" in msg, msg


def test_softmax_with_the_course_helpers_fails(planted):
    text = _planted("softmax", ("#include <course/math.cuh>\n", "#include <course/warp.cuh>\n"),
                    ("  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(FULL_MASK, m, offset));\n",
                     "  m = course::warp_reduce_max(m);\n"))
    msg = planted("day05", "softmax", text, cases=SOFTMAX_CASES)
    assert msg is not None and "technique of the day" in msg and "course/reduce.cuh" in msg, msg


@pytest.mark.parametrize("name,cases", [("warp_scan", SCAN_CASES), ("softmax_stats", STATS_CASES),
                                        ("softmax", SOFTMAX_CASES)])
def test_solution_passes(planted, name, cases):
    assert planted("day05", name, SOLUTION[name], cases=cases, seed=None) is None
