"""Day 4: planted kernels that give the right transpose without the day's technique fail with a message
that names it, and the solutions pass (on the emulator without a GPU).

- transpose_tiled / transpose_padded that copy straight from `in` to `out` (no shared-memory tile).
- transpose_swizzled with an unswizzled tile, or with course/permuted_smem.cuh's swizzle instead of
  its own tile_chunk.
"""
import re

import pytest

from grader.paths import SOLUTIONS

TILED = (SOLUTIONS / "day04" / "transpose_tiled.cu").read_text()
SWIZZLED = (SOLUTIONS / "day04" / "transpose_swizzled.cu").read_text()
CASES = [{"rows": 31, "cols": 33}, {"rows": 65, "cols": 129}]


def _no_tile() -> str:
    """The tiled exercise region replaced by a direct, uncoalesced copy: right values, no shared memory."""
    region = re.compile(r"(  const int r0 = blockIdx.y \* TILE, c0 = blockIdx.x \* TILE;.*?\n).*?(  // END EXERCISE\n)", re.S)
    text = region.sub(lambda m: m.group(1) + """#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int r = r0 + ty + j, c = c0 + tx;
    if (r < rows && c < cols) out[static_cast<int64_t>(c) * rows + r] = in[static_cast<int64_t>(r) * cols + c];
  }
  tile[0][0] = 0.f;  // declared but unused otherwise
""" + m.group(2), TILED)
    assert text != TILED
    return text


def _swizzled(old: str, new: str) -> str:
    assert old in SWIZZLED, f"the solution changed: {old!r} not found"
    return SWIZZLED.replace(old, new)


SWIZZLE = "return row * CHUNKS + (chunk ^ ((row >> SWIZZLE_SHIFT) & 7));"


def test_tiled_without_shared_memory_fails(planted):
    msg = planted("day04", "transpose_tiled", _no_tile(), cases=CASES)
    assert msg is not None, "a tiled transpose that never reads its tile passed"
    assert "technique of the day" in msg and "shared-memory tile" in msg, msg


@pytest.mark.parametrize("text,expected", [
    (_swizzled(SWIZZLE, "return row * CHUNKS + chunk;"), "XOR"),
    (_swizzled(SWIZZLE, "return course::permuted_chunk<CHUNKS, SWIZZLE_SHIFT>(row, chunk);").replace(
        "#include <course/vec_dtypes.cuh>", "#include <course/permuted_smem.cuh>\n#include <course/vec_dtypes.cuh>"),
     "permuted_smem.cuh"),
], ids=["unswizzled", "header_swizzle"])
def test_swizzled_without_its_own_swizzle_fails(planted, text, expected):
    msg = planted("day04", "transpose_swizzled", text, cases=CASES)
    assert msg is not None and "technique of the day" in msg and expected in msg, msg


@pytest.mark.parametrize("name,text", [("transpose_tiled", TILED), ("transpose_swizzled", SWIZZLED)])
def test_solution_passes(planted, name, text):
    assert planted("day04", name, text, cases=CASES, seed=None) is None
